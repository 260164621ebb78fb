// The native engine's rates, from one run of bench/bench_evaluate.cpp's binary (scalelab_bench)
// with --benchmark_format=json: a Map from the benchmark's name (evaluate/ dropped: "decode" is
// decode with steps; "numbers/decode", "sweep/decode_2048" keep theirs) to items per second.
// wallTime: items per wall second (Google Benchmark's items/s are per CPU second), which is what
// a JavaScript timer compares with.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

export function runNative(bin, { filter = null, seconds = 1, root = '.' } = {}) {
  const r = spawnSync(path.resolve(root, bin),
    ['--benchmark_format=json', `--benchmark_min_time=${seconds}`, ...(filter ? [`--benchmark_filter=${filter}`] : [])],
    { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${bin} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

export function readNative(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

export function nativeRates(report, { wallTime = false } = {}) {
  const rates = new Map();
  for (const b of report.benchmarks) {
    const name = b.name.startsWith('evaluate/') ? b.name.slice('evaluate/'.length) : b.name;
    rates.set(name, wallTime ? b.items_per_second * b.cpu_time / b.real_time : b.items_per_second);
  }
  return rates;
}

// The labs' hot path beside native, round by round: each round a short native run (0.3 s per
// benchmark) and then `measure()` (the WebAssembly figures, by the same keys), so that both meet
// the same load. Prints each round's ratios and their medians; returns the medians by key.
export const HOT_PATH = { 'numbers/decode': 'decode numbers-only', 'numbers/serving': 'serving numbers-only',
  'sweep/decode_2048_columns': 'decode sweep, columns (points/s)' };
export async function inRounds(bin, { root = '.', rounds = 10, measure, label = 'wasm' }) {
  const ratios = Object.fromEntries(Object.keys(HOT_PATH).map((k) => [k, []]));
  const median = (x) => x.slice().sort((a, b) => a - b)[x.length >> 1];
  for (let r = 0; r < rounds; r++) {
    const native = nativeRates(runNative(bin, { root, seconds: 0.3,
      filter: '^numbers/(decode|serving)$|^sweep/decode_2048_columns$' }), { wallTime: true });
    const wasm = await measure();
    const cells = Object.keys(HOT_PATH).map((k) => {
      ratios[k].push(wasm[k] / native.get(k));
      return `${HOT_PATH[k]} ${Math.round(wasm[k])}/s against ${Math.round(native.get(k))}/s (${(wasm[k] / native.get(k)).toFixed(2)})`;
    });
    console.log(`round ${r + 1}: ${cells.join('; ')}`);
  }
  const medians = Object.fromEntries(Object.keys(HOT_PATH).map((k) => [k, median(ratios[k])]));
  console.log(`${label}/native, median of ${rounds} rounds: ` +
    Object.keys(HOT_PATH).map((k) => `${HOT_PATH[k]} ${medians[k].toFixed(2)}`).join('; ') +
    `; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  return medians;
}
