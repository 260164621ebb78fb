#!/usr/bin/env node
// WebAssembly engine throughput: evaluations/s per registered calculator, on the first case
// of each calculator in tests/cases (the inputs bench/bench_evaluate.cpp uses natively).
//
//   node bench/wasm_bench.mjs [--wasm-dir build-wasm] [--seconds 1]
//        [--native build/scalelab_bench | --native-json native.json]
//
// With --native, runs the native benchmark binary (--benchmark_format=json) first and prints
// the wasm/native ratio; --native-json reads a saved run instead.
//
//   node bench/wasm_bench.mjs --fast-path [--native build/scalelab_bench] [--seconds 1]
//
// --fast-path measures only the labs' hot path: decode and serving with steps and numbers-only
// (evaluateNumbers), and the 2,048-point numbers-only decode sweep of bench_evaluate.cpp
// (sweep/decode_2048), each beside its native figure.
//
//   node bench/wasm_bench.mjs --fast-path --native build/scalelab_bench --rounds 10
//
// --rounds alternates native and Node, round by round (0.3 s each per figure), as
// sweep_chromium.mjs does with Chromium: numbers-only decode and serving and the sweep as
// columns, each round's ratios and their medians. The machine's load drifts over seconds; a
// round's two figures, taken seconds apart, meet the same load.
//
//   node bench/wasm_bench.mjs --sweep-only [--runs 30] [--wasm-dir build-wasm]
//
// --sweep-only times the 2,048-point decode sweep alone, as the course calls it (sweepColumns, put
// back together by web/src/sweep-columns.js) and as JSON: `runs` calls after 3 warm-ups, each
// timed, their median and p95 in milliseconds.
//
// --cpu counts this process's CPU time (process.cpuUsage) instead of wall time, and compares it
// with the native benchmark's items per CPU second: on a loaded machine, the figures that move
// least from run to run.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { sweepFromColumns } from '../web/src/sweep-columns.js';
import { firstInputs } from './case_inputs.mjs';
import { inRounds, nativeRates, readNative, runNative } from './native_rates.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const wasmDir = path.resolve(root, opt('--wasm-dir', process.env.SCALELAB_WASM_DIR || 'build-wasm'));
const seconds = Number(opt('--seconds', '1'));
const nativeBin = opt('--native', null);
const nativeJson = opt('--native-json', null);
const fastPath = args.includes('--fast-path');
const sweepOnly = args.includes('--sweep-only');
const runs = Number(opt('--runs', '30'));
const cpuTime = args.includes('--cpu');
const rounds = args.includes('--rounds') ? Number(opt('--rounds', '10')) : 0;

function nativeFigures() {
  const filter = fastPath ? '^(evaluate|numbers)/(decode|serving)$|^sweep/' : null;
  const report = nativeJson ? readNative(nativeJson) : nativeBin ? runNative(nativeBin, { filter, seconds, root }) : null;
  // --fast-path compares wall time with wall time
  return report && nativeRates(report, { wallTime: fastPath && !cpuTime });
}

const require = createRequire(import.meta.url);
const createEngine = require(path.join(wasmDir, 'node', 'engine.cjs'));
const engine = await createEngine({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'node', 'engine.wasm')) });

const native = rounds ? null : nativeFigures();
const inputs = firstInputs(root);
const names = JSON.parse(engine.calculators()).calculators.map((c) => c.name);

// Calls of `call` per second, after a warm-up, over `budget` seconds (--seconds), in batches of `batch`.
function rate(call, batch = 100, budgetSeconds = seconds) {
  for (let i = 0; i < Math.max(2, batch * 2); i++) call();  // warm up
  let n = 0;
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const budget = BigInt(Math.round(budgetSeconds * 1e9));
  let elapsed = 0n;
  while (elapsed < budget) {
    for (let i = 0; i < batch; i++) call();
    n += batch;
    elapsed = process.hrtime.bigint() - t0;
  }
  if (cpuTime) {
    const used = process.cpuUsage(cpu0);
    return n / ((used.user + used.system) / 1e6);
  }
  return n / (Number(elapsed) / 1e9);
}
const measure = (name, input) => rate(() => engine.evaluate(name, input));

const fmt = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : x >= 1e3 ? `${(x / 1e3).toFixed(1)}k` : x.toFixed(0));

// The same sweep as bench_evaluate.cpp's sweep/decode_2048.
const SWEEP_PARAMS = JSON.stringify({ model: 'llama3-70b', chip: 'tpu-v5e', chips: 16, batch: 32 });
const SWEEP_SPEC = JSON.stringify({ x: { param: 'context', from: 0, to: 131072, points: 2048, scale: 'linear' } });

if (sweepOnly) {
  // Milliseconds per call of `call`: median and p95 of `runs` timed calls after 3 warm-ups.
  const timed = (call) => {
    for (let i = 0; i < 3; i++) call();
    const ms = [];
    for (let i = 0; i < runs; i++) {
      const t0 = process.hrtime.bigint();
      call();
      ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    ms.sort((a, b) => a - b);
    const at = (q) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))];
    return `median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms`;
  };
  console.log(`wasm: ${path.relative(root, wasmDir) || '.'}/node/engine.cjs, node ${process.version}, ${runs} runs each`);
  if (engine.sweepColumns) {
    console.log(`2,048-point decode sweep, as the course calls it (columns): ${
      timed(() => sweepFromColumns(engine.sweepColumns('decode', SWEEP_PARAMS, SWEEP_SPEC), engine.sweepValues()))}`);
  }
  console.log(`the same sweep as JSON, parsed: ${timed(() => JSON.parse(engine.sweep('decode', SWEEP_PARAMS, SWEEP_SPEC)))}`);
  process.exit(0);
}

if (fastPath && rounds) {
  if (!nativeBin) throw new Error('--rounds needs --native build/scalelab_bench');
  if (cpuTime) throw new Error('--rounds compares wall time with wall time: leave out --cpu');
  console.log(`wasm: ${path.relative(root, wasmDir) || '.'}/node/engine.cjs, node ${process.version}, ${rounds} rounds against ${nativeBin}`);
  await inRounds(nativeBin, {
    root, rounds, label: `Node ${process.version}`,
    measure: async () => ({
      'numbers/decode': rate(() => engine.evaluateNumbers('decode', inputs.get('decode')), 100, 0.3),
      'numbers/serving': rate(() => engine.evaluateNumbers('serving', inputs.get('serving')), 100, 0.3),
      'sweep/decode_2048_columns': 2048 * rate(() => sweepFromColumns(engine.sweepColumns('decode', SWEEP_PARAMS, SWEEP_SPEC), engine.sweepValues()), 1, 0.3),
    }),
  });
  process.exit(0);
}

if (fastPath) {
  console.log(`wasm: ${path.relative(root, wasmDir) || '.'}/node/engine.cjs, node ${process.version}, ${seconds}s each, ${cpuTime ? 'CPU' : 'wall'} time`);
  console.log(['what'.padEnd(30), 'wasm /s'.padStart(10), native ? 'native /s'.padStart(11) : '',
    native ? 'wasm/native'.padStart(12) : ''].join(''));
  const row = (what, w, nat) => console.log([what.padEnd(30), fmt(w).padStart(10), nat ? fmt(nat).padStart(11) : '',
    nat ? (w / nat).toFixed(2).padStart(12) : ''].join(''));
  for (const name of ['decode', 'serving']) {
    const input = inputs.get(name);
    row(`${name} with steps`, rate(() => engine.evaluate(name, input)), native?.get(name));
    row(`${name} numbers-only`, rate(() => engine.evaluateNumbers(name, input)), native?.get(`numbers/${name}`));
  }
  const sweeps = rate(() => engine.sweep('decode', SWEEP_PARAMS, SWEEP_SPEC), 1);
  const nativeSweeps = native?.get('sweep/decode_2048') ? native.get('sweep/decode_2048') / 2048 : null;
  row('decode sweep, 2,048 points', sweeps, nativeSweeps);
  console.log(`  one 2,048-point sweep: ${(1000 / sweeps).toFixed(1)} ms wasm` +
    (nativeSweeps ? `, ${(1000 / nativeSweeps).toFixed(1)} ms native` : ''));
  // As the course calls it: the columns as doubles, put back together by web/src/sweep-columns.js
  // (an engine from before sweepColumns has no such row).
  if (!engine.sweepColumns) process.exit(0);
  const typed = rate(() => sweepFromColumns(engine.sweepColumns('decode', SWEEP_PARAMS, SWEEP_SPEC), engine.sweepValues()), 1);
  const nativeTyped = native?.get('sweep/decode_2048_columns') ? native.get('sweep/decode_2048_columns') / 2048 : null;
  row('the same, columns as doubles', typed, nativeTyped);
  console.log(`  one 2,048-point sweep as the course calls it: ${(1000 / typed).toFixed(1)} ms wasm` +
    (nativeTyped ? `, ${(1000 / nativeTyped).toFixed(1)} ms native` : ''));
  process.exit(0);
}
console.log(`wasm: ${path.relative(root, wasmDir) || '.'}/node/engine.cjs, node ${process.version}, ${seconds}s per calculator`);
console.log(['calculator'.padEnd(18), 'wasm eval/s'.padStart(12), native ? 'native eval/s'.padStart(14) : '',
  native ? 'wasm/native'.padStart(12) : ''].join(''));
const rows = [];
for (const name of names) {
  const input = inputs.get(name) ?? '{}';
  if (JSON.parse(engine.evaluate(name, input)).error) {
    console.log(`${name.padEnd(18)} (refuses its first case; skipped)`);
    continue;
  }
  const w = measure(name, input);
  const nat = native?.get(name);
  rows.push({ name, wasm: w, native: nat ?? null, ratio: nat ? w / nat : null });
  console.log([name.padEnd(18), fmt(w).padStart(12), nat ? fmt(nat).padStart(14) : '',
    nat ? (w / nat).toFixed(2).padStart(12) : ''].join(''));
}
if (args.includes('--json')) console.log(JSON.stringify(rows));
