// The bad-input matrix (tests/bad_inputs.json) through WebAssembly: the same error as the
// native CLI, naming the same parameter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine, cli, badInputs, wasmCalculators } from './lib.mjs';

const engine = await loadEngine();
const wasm = wasmCalculators(engine);
const entries = badInputs();

test('the matrix has at least 100 entries', () => {
  assert.ok(entries.length >= 100, `${entries.length} entries`);
});

for (const b of entries) {
  test(`bad input ${b.id}`, (t) => {
    if (!wasm.has(b.calculator)) {
      t.skip(`calculator "${b.calculator}" is not registered yet`);
      return;
    }
    let out;
    assert.doesNotThrow(() => { out = engine.evaluate(b.calculator, b.input); });
    const j = JSON.parse(out);
    assert.ok(j.error, `${b.id}: expected an error, got ${out.slice(0, 200)}`);
    assert.equal(j.error.param, b.param, `${b.id}: ${out}`);
    assert.ok(j.error.message.includes(b.contains), `${b.id}: message should contain "${b.contains}": ${out}`);
    const n = cli(['eval', b.calculator, '-'], b.input);
    assert.equal(n.status, 2);
    assert.equal(n.stdout, out + '\n', `${b.id}: native and wasm differ`);
  });
}

test('text that is not valid UTF-8 (a lone surrogate) is an error, not an exception', () => {
  for (const input of ['{"chip": "\uD800"}', '{"\uDFFF": 1}']) {
    let out;
    assert.doesNotThrow(() => { out = engine.evaluate('chip', input); });
    assert.ok(JSON.parse(out).error, out);
  }
});
