// The browser's sweep: the engine hands the columns of numbers over as doubles (sweepColumns +
// sweepValues) and web/src/sweep-columns.js, the code engine.ts runs, puts the result back
// together. It must be the JSON sweep's result, value for value: nulls where points are refused
// or outputs null, words and verdicts as they are, 1-D and 2-D sweeps, and a refused spec.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from './lib.mjs';
import { sweepFromColumns } from '../../web/src/sweep-columns.js';

const engine = await loadEngine();

const sweeps = [
  ['decode over the context, every numeric output, past the HBM',
    'decode', { model: 'llama3-70b', chip: 'tpu-v5e', chips: 16, batch: 32 },
    { x: { param: 'context', from: 0, to: 131072, points: 2048, scale: 'linear' } }],
  ['decode with refused batches, a verdict and a nullable output',
    'decode', { model: 'llama3-70b', chip: 'tpu-v5e' },
    { x: { param: 'batch', values: [8, 0, 1.5, 16, 1e9] }, outputs: ['step_s', 'bound', 'max_batch', 't_comm_s'] }],
  ['serving over batch and chips (2-D) with a refused batch',
    'serving', { model: 'llama3-70b', chip: 'tpu-v5e' },
    { x: { param: 'batch', values: [1, 16, 256, 0] }, y: { param: 'chips', values: [8, 16, 32] } }],
  ['roofline over a nested matmul dimension',
    'roofline', { chip: 'h100', matmul: { B: 512, D: 8192, F: 8192 } },
    { x: { param: 'matmul.B', from: 1, to: 65536, points: 33 } }],
  ['collective on a log range, with its regime',
    'collective', { chip: 'tpu-v5e', op: 'all_reduce', axes: [16] },
    { x: { param: 'bytes', from: 1e3, to: 1e10, points: 20, scale: 'log' }, outputs: ['t_s', 't_bandwidth_s', 't_latency_s', 'regime'] }],
  ['transformer over T and B (2-D)',
    'transformer', { model: 'llama3-8b' },
    { x: { param: 'T', values: [128, 4096, 131072] }, y: { param: 'B', from: 1, to: 64, points: 7 } }],
  ['training_comm over batch tokens, refused below the minimum',
    'training_comm', {},
    { x: { param: 'batch_tokens', values: [-5, 1e5, 1e6, 4e6] }, outputs: ['t_math_s', 't_comm_s'] }],
];

for (const [what, calc, params, spec] of sweeps) {
  test(`typed sweep = JSON sweep: ${what}`, () => {
    const p = JSON.stringify(params), s = JSON.stringify(spec);
    const json = JSON.parse(engine.sweep(calc, p, s));
    const header = engine.sweepColumns(calc, p, s);
    const typed = sweepFromColumns(header, engine.sweepValues());
    assert.deepStrictEqual(typed, json);
    assert.ok(!json.error, JSON.stringify(json).slice(0, 300));
    const columns = Object.values(JSON.parse(header).outputs).filter((c) => typeof c === 'number');
    assert.ok(columns.length > 0, 'some outputs come as doubles');
  });
}

test('the typed sweep has nulls where points are refused, as the JSON sweep', () => {
  const p = JSON.stringify({ model: 'llama3-70b', chip: 'tpu-v5e' });
  const s = JSON.stringify({ x: { param: 'batch', values: [8, 0, 16] }, outputs: ['step_s'] });
  const typed = sweepFromColumns(engine.sweepColumns('decode', p, s), engine.sweepValues());
  assert.equal(typed.outputs.step_s[1], null);
  assert.equal(typeof typed.outputs.step_s[0], 'number');
  assert.equal(typed.errors[1].param, 'batch');
});

test('a refused sweep is the JSON sweep\'s error, and no values', () => {
  const s = JSON.stringify({ x: { param: 'batch', from: 1, to: 10, points: 5000 } });
  const header = engine.sweepColumns('decode', '{}', s);
  assert.equal(header, engine.sweep('decode', '{}', s));
  assert.equal(engine.sweepValues().length, 0);
  assert.equal(sweepFromColumns(header, engine.sweepValues()).error.param, 'sweep.x.points');
  assert.equal(JSON.parse(engine.sweepColumns('warp_drive', '{}', '{}')).error.status, 'unknown_calculator');
});
