#!/usr/bin/env node
// Two WebAssembly engines compared in one process, their calls interleaved (A, B, A, B, ...): a
// shared machine's load drifts over seconds, and a pair of calls made back to back meets the same
// load. Prints each engine's median and how many pairs B won.
//
//   node bench/wasm_ab.mjs A_DIR B_DIR [--runs 150]            the 2,048-point decode sweep
//   node bench/wasm_ab.mjs A_DIR B_DIR --transformer [--runs 150]   the transformer's, over T
//   node bench/wasm_ab.mjs A_DIR B_DIR --numbers [--runs 30]   numbers-only decode and serving
//                                                              evaluations/s, 100 ms per engine a pair
//
// A_DIR and B_DIR each hold a Node build's engine.cjs and engine.wasm (build-wasm/node, or a copy
// of it made before a change). Run it twice with the two swapped: a real difference shows as B
// winning most pairs one way and losing most the other.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { firstInputs } from './case_inputs.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const dirs = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
if (dirs.length !== 2) {
  console.error('usage: node bench/wasm_ab.mjs A_DIR B_DIR [--numbers] [--runs N]');
  process.exit(2);
}
const numbers = args.includes('--numbers');
const runs = Number(opt('--runs', numbers ? '30' : '150'));
const require = createRequire(import.meta.url);
const load = (dir) => require(path.resolve(dir, 'engine.cjs'))({ wasmBinary: fs.readFileSync(path.resolve(dir, 'engine.wasm')) });
const [a, b] = [await load(dirs[0]), await load(dirs[1])];

const median = (x) => x.slice().sort((p, q) => p - q)[x.length >> 1];
const report = (ta, tb, unit, bWins, what) => {
  const wins = ta.filter((t, i) => bWins(ta[i], tb[i])).length;
  console.log(`A ${dirs[0]}: median ${median(ta).toFixed(2)} ${unit}; B ${dirs[1]}: median ${median(tb).toFixed(2)} ${unit}; ` +
    `B faster in ${wins} of ${runs} pairs (${what})`);
};

if (numbers) {
  // The first case of decode and serving in tests/cases (bench_evaluate.cpp's numbers/NAME).
  const inputs = firstInputs(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
  const rate = (engine, name) => {  // thousands of evaluations per second over 100 ms
    const input = inputs.get(name), t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < 100) {
      engine.evaluateNumbers(name, input);
      n++;
    }
    return n / (performance.now() - t0);
  };
  for (const name of ['decode', 'serving']) {
    [rate(a, name), rate(b, name)];  // warm up
    const ta = [], tb = [];
    for (let i = 0; i < runs; i++) {
      ta.push(rate(a, name));
      tb.push(rate(b, name));
    }
    report(ta, tb, 'k/s', (x, y) => y > x, `numbers-only ${name}`);
  }
} else {
  // The sweep of bench_evaluate.cpp's sweep/decode_2048 and wasm_bench.mjs; with --transformer,
  // the transformer calculator's over T (a calculator whose outputs are those of 2026-12-04: the
  // sweep's own cost, without the outputs decode has gained since).
  const [CALCULATOR, PARAMS, SPEC] = args.includes('--transformer')
    ? ['transformer', '{}', JSON.stringify({ x: { param: 'T', from: 1, to: 131072, points: 2048, scale: 'linear' } })]
    : ['decode', JSON.stringify({ model: 'llama3-70b', chip: 'tpu-v5e', chips: 16, batch: 32 }),
      JSON.stringify({ x: { param: 'context', from: 0, to: 131072, points: 2048, scale: 'linear' } })];
  const timed = (engine) => {
    const t0 = process.hrtime.bigint();
    engine.sweepColumns(CALCULATOR, PARAMS, SPEC);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  for (let i = 0; i < 5; i++) [timed(a), timed(b)];  // warm up
  const ta = [], tb = [];
  for (let i = 0; i < runs; i++) {
    ta.push(timed(a));
    tb.push(timed(b));
  }
  report(ta, tb, 'ms', (x, y) => y < x, `sweepColumns ${CALCULATOR}, 2,048 points`);
}
