#!/usr/bin/env node
// WebAssembly engine throughput: evaluations/s per registered calculator, on the first case
// of each calculator in tests/cases (the inputs bench/bench_evaluate.cpp uses natively).
//
//   node bench/wasm_bench.mjs [--wasm-dir build-wasm] [--seconds 1]
//        [--native build/scalelab_bench | --native-json native.json]
//
// With --native, runs the native benchmark binary (--benchmark_format=json) first and prints
// the wasm/native ratio; --native-json reads a saved run instead.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

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

function firstInputs() {
  const dir = path.join(root, 'tests', 'cases');
  const out = new Map();
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    for (const c of JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))) {
      if (!out.has(c.calculator)) out.set(c.calculator, JSON.stringify(c.params));
    }
  }
  return out;
}

function nativeRates() {
  let report;
  if (nativeJson) {
    report = JSON.parse(fs.readFileSync(nativeJson, 'utf8'));
  } else if (nativeBin) {
    const r = spawnSync(path.resolve(root, nativeBin),
      ['--benchmark_format=json', `--benchmark_min_time=${seconds}`], { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`${nativeBin} failed: ${r.stderr}`);
    report = JSON.parse(r.stdout);
  } else {
    return null;
  }
  const rates = new Map();
  for (const b of report.benchmarks) {
    if (b.name.startsWith('evaluate/')) rates.set(b.name.slice('evaluate/'.length), b.items_per_second);
  }
  return rates;
}

const require = createRequire(import.meta.url);
const createEngine = require(path.join(wasmDir, 'node', 'engine.cjs'));
const engine = await createEngine({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'node', 'engine.wasm')) });

const native = nativeRates();
const inputs = firstInputs();
const names = JSON.parse(engine.calculators()).calculators.map((c) => c.name);

function measure(name, input) {
  for (let i = 0; i < 200; i++) engine.evaluate(name, input);  // warm up
  let n = 0;
  const t0 = process.hrtime.bigint();
  const budget = BigInt(Math.round(seconds * 1e9));
  let elapsed = 0n;
  while (elapsed < budget) {
    for (let i = 0; i < 100; i++) engine.evaluate(name, input);
    n += 100;
    elapsed = process.hrtime.bigint() - t0;
  }
  return n / (Number(elapsed) / 1e9);
}

const fmt = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : x >= 1e3 ? `${(x / 1e3).toFixed(1)}k` : x.toFixed(0));
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
