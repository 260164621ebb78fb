// The WebAssembly engine's numbers-only evaluation and sweep: the same bytes as the native CLI,
// and every sweep point the numbers-only evaluation of its parameters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine, cli, cases } from './lib.mjs';

const engine = await loadEngine();

test('evaluateNumbers: the outputs and warnings of evaluate, with no steps', () => {
  for (const c of cases()) {
    const input = JSON.stringify(c.params);
    const full = JSON.parse(engine.evaluate(c.calculator, input));
    const numbers = JSON.parse(engine.evaluateNumbers(c.calculator, input));
    if (full.error) {
      assert.deepEqual(numbers, full, c.id);
      continue;
    }
    assert.deepEqual(numbers.steps, [], c.id);
    assert.deepEqual({ ...numbers, steps: undefined }, { ...full, steps: undefined }, c.id);
  }
});

const sweeps = [
  ['decode', { model: 'llama3-70b', chip: 'tpu-v5e', chips: 16 },
    { x: { param: 'batch', from: 1, to: 4096, points: 64 }, outputs: ['step_s', 'tokens_per_s', 'bound'] }],
  ['serving', { model: 'llama3-70b', chip: 'tpu-v5e' },
    { x: { param: 'batch', values: [1, 16, 256, 0] }, y: { param: 'chips', values: [8, 16, 32] } }],
  ['roofline', { chip: 'h100', matmul: { B: 512, D: 8192, F: 8192 } },
    { x: { param: 'matmul.B', from: 1, to: 65536, points: 33 } }],
  ['collective', { chip: 'tpu-v5e', op: 'all_reduce', axes: [16] },
    { x: { param: 'bytes', from: 1e3, to: 1e10, points: 20, scale: 'log' } }],
];

for (const [calc, params, spec] of sweeps) {
  test(`sweep ${calc}: native and wasm give the same bytes, each point a numbers-only evaluate`, () => {
    const w = engine.sweep(calc, JSON.stringify(params), JSON.stringify(spec));
    const n = cli(['sweep', calc, JSON.stringify(params), JSON.stringify(spec)]);
    assert.equal(n.status, 0, n.stderr);
    assert.equal(n.stdout, w + '\n');
    const r = JSON.parse(w);
    const ys = r.y ? r.y.values : [undefined];
    let i = 0;
    for (const xv of r.x.values) {
      for (const yv of ys) {
        const input = structuredClone(params);
        const set = (dotted, v) => {
          const keys = dotted.split('.');
          let at = input;
          for (const k of keys.slice(0, -1)) at = at[k] ??= {};
          at[keys.at(-1)] = v;
        };
        set(r.x.param, xv);
        if (r.y) set(r.y.param, yv);
        const one = JSON.parse(engine.evaluateNumbers(calc, JSON.stringify(input)));
        if (one.error) {
          assert.equal(r.errors[i].message, one.error.message, `${calc} point ${i}`);
          for (const column of Object.values(r.outputs)) assert.equal(column[i], null);
        } else {
          assert.equal(r.errors[i], null, `${calc} point ${i}`);
          for (const [name, column] of Object.entries(r.outputs)) assert.deepEqual(column[i], one.outputs[name], `${calc} ${name} at ${i}`);
        }
        ++i;
      }
    }
    assert.equal(r.errors.length, i);
  });
}

test('a bad sweep spec is one bad_input error naming the field, as natively', () => {
  const spec = JSON.stringify({ x: { param: 'batch', from: 1, to: 10, points: 5000 } });
  const w = engine.sweep('decode', '{}', spec);
  const e = JSON.parse(w).error;
  assert.equal(e.status, 'bad_input');
  assert.equal(e.param, 'sweep.x.points');
  assert.match(e.message, /≤ 4096/);
  const n = cli(['sweep', 'decode', '{}', spec]);
  assert.equal(n.status, 2);
  assert.equal(n.stdout, w + '\n');
});
