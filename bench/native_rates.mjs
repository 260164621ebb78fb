// The native engine's rates, from one run of bench/bench_evaluate.cpp's binary (scalelab_bench)
// with --benchmark_format=json: a Map from the benchmark's name (evaluate/ dropped: "decode" is
// decode with steps; "numbers/decode", "sweep/decode_2048" keep theirs) to items per second.
// wallTime: items per wall second (Google Benchmark's items/s are per CPU second), which is what
// a JavaScript timer compares with.
import fs from 'node:fs';
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
