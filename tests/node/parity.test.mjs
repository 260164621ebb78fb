// Native CLI and WebAssembly return the same bytes for every case in tests/cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine, cli, cases, nativeCalculators, wasmCalculators } from './lib.mjs';

const engine = await loadEngine();
const native = nativeCalculators();
const wasm = wasmCalculators(engine);

test('both builds register the same calculators', () => {
  assert.deepEqual([...wasm].sort(), [...native].sort());
});

test('schemas and catalogs are byte-identical', () => {
  assert.equal(engine.calculators() + '\n', cli(['list', '--json']).stdout);
  assert.equal(engine.chips() + '\n', cli(['chips']).stdout);
  assert.equal(engine.models() + '\n', cli(['models']).stdout);
});

test('calculator(name): the entry calculators() lists for it, in the same bytes; "null" for an unknown name', () => {
  const all = engine.calculators();
  const listed = JSON.parse(all).calculators;
  assert.ok(listed.length > 0);
  for (const c of listed) {
    const one = engine.calculator(c.name);
    assert.deepEqual(JSON.parse(one), c, c.name);
    assert.ok(all.includes(one), `${c.name}: not the bytes calculators() lists`);
  }
  assert.equal(engine.calculator('no-such-calculator'), 'null');
  assert.equal(engine.calculator(''), 'null');
});

test('objectFields(kind): the chip_fields and model_fields calculators() lists, in the same bytes; "null" for another kind', () => {
  const all = engine.calculators();
  const schema = JSON.parse(all);
  for (const kind of ['chip', 'model']) {
    const one = engine.objectFields(kind);
    assert.deepEqual(JSON.parse(one), schema[`${kind}_fields`], kind);
    assert.ok(JSON.parse(one).length > 3, `${kind}: has fields`);
    assert.ok(all.includes(`"${kind}_fields":${one}`), `${kind}: not the bytes calculators() lists`);
  }
  for (const kind of ['', 'chips', 'decode']) assert.equal(engine.objectFields(kind), 'null');
});

for (const c of cases()) {
  test(`case ${c.id}`, (t) => {
    const inNative = native.has(c.calculator);
    const inWasm = wasm.has(c.calculator);
    if (!inNative && !inWasm) {
      t.skip(`calculator "${c.calculator}" is not registered yet`);
      return;
    }
    assert.ok(inNative && inWasm,
      `calculator "${c.calculator}" is registered in only one build (native: ${inNative}, wasm: ${inWasm}); rebuild both`);
    const input = JSON.stringify(c.params);
    const n = cli(['eval', c.calculator, input]);
    const w = engine.evaluate(c.calculator, input);
    assert.equal(n.stdout, w + '\n', `${c.id}: native and wasm differ`);
    const error = JSON.parse(w).error;
    assert.equal(n.status, !error ? 0 : error.status === 'internal' ? 3 : 2);
  });
}

test('formatQuantity, and outputUnit from the declared outputs, in wasm', () => {
  assert.equal(engine.formatQuantity(1.39e-3, 's'), '1.39 ms');
  assert.equal(engine.formatQuantity(1.4e11, 'bytes'), '140 GB');
  assert.equal(engine.formatQuantity(1.97e14, 'FLOP/s'), '197 TFLOP/s');
  assert.equal(engine.formatQuantity(90, 's'), '1.5 min');
  assert.equal(engine.formatQuantity(NaN, 's'), '—');
  assert.equal(engine.outputUnit('transfer', 't_s'), 's');
  assert.equal(engine.outputUnit('chip', 'hbm_bytes_per_s'), 'bytes/s');
  assert.equal(engine.outputUnit('transformer', 'train_flops'), 'FLOPs');
  assert.equal(engine.outputUnit('training_run', 'cost_usd'), 'usd');
  assert.equal(engine.outputUnit('decode', 'critical_batch'), 'sequences');
  assert.equal(engine.outputUnit('roofline', 'bound'), '');
});

test('the --text quantities match wasm formatQuantity', () => {
  const input = '{"chip": "tpu-v5e", "matmul": {"B": 512, "D": 8192, "F": 32768}}';
  const text = cli(['eval', 'roofline', input, '--text']).stdout;
  const out = JSON.parse(engine.evaluate('roofline', input)).outputs;
  for (const name of ['t_math_s', 't_comm_s', 'flops', 'bytes']) {
    const shown = engine.formatQuantity(out[name], engine.outputUnit('roofline', name));
    assert.ok(text.includes(shown), `${name}: "${shown}" not in --text output`);
  }
});

test('unknown calculator: same error from both', () => {
  const n = cli(['eval', 'warp_drive', '{}']);
  assert.equal(n.status, 2);
  assert.equal(n.stdout, engine.evaluate('warp_drive', '{}') + '\n');
});
