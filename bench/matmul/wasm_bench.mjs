// GFLOP/s of the experiment's matmul compiled to WebAssembly SIMD128 (build-wasm/node/matmul.cjs,
// the same matmul/ code as the native bench/matmul/matmul_bench), and of a plain
// JavaScript triple loop, in Node.
//
//   node bench/matmul/wasm_bench.mjs [--wasm DIR] [--sizes 256,512,1024] [--js-max 1024]
//
// DIR holds matmul.cjs + matmul.wasm (default build-wasm/node). Inputs: uniform in [-1, 1) from
// the same xorshift32 as the native bench. Each size: an untimed warm-up, then repetitions of
// one whole C = A·B; best and median are printed. 2·n³ floating-point operations per multiply.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const dir = path.resolve(opt('--wasm', 'build-wasm/node'));
const sizes = opt('--sizes', '256,512,1024').split(',').map(Number);
const jsMax = Number(opt('--js-max', '1024'));

function randomMatrix(count, seed) {
  const out = new Float32Array(count);
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    out[i] = (s >>> 8) / 8388608 - 1;
  }
  return out;
}

/** The plain JavaScript triple loop: i, j, k; a Number (double) accumulator. */
function jsTripleLoop(a, b, c, n) {
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += a[i * n + k] * b[k * n + j];
      c[i * n + j] = s;
    }
  }
}

const stats = (ts) => { const s = [...ts].sort((x, y) => x - y); return { best: s[0], median: s[Math.floor(s.length / 2)] }; };
const gf = (n, ms) => (2 * n ** 3) / (ms * 1e6);

const require = createRequire(import.meta.url);
const createMatmul = require(path.join(dir, 'matmul.cjs'));
const mod = await createMatmul({ wasmBinary: fs.readFileSync(path.join(dir, 'matmul.wasm')) });
console.log(`node ${process.version}, module ${dir} (simd=${mod._sl_matmul_simd()})`);
console.log('    n   wasm best   wasm median   JS loop (one run)   max|wasm−JS|');
for (const n of sizes) {
  const a = randomMatrix(n * n, 0x9e3779b9), b = randomMatrix(n * n, 0x85ebca6b);
  const pa = mod._sl_matmul_alloc(n * n), pb = mod._sl_matmul_alloc(n * n), pc = mod._sl_matmul_alloc(n * n);
  mod.HEAPF32.set(a, pa >> 2); mod.HEAPF32.set(b, pb >> 2);
  for (let r = 0; r < 2; r++) mod._sl_matmul_rows(pa, pb, pc, n, n, n, 0, n); // warm-up (tier-up)
  const reps = Math.max(3, Math.min(20, Math.round(2e9 / (2 * n ** 3))));
  const ts = [];
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    mod._sl_matmul_rows(pa, pb, pc, n, n, n, 0, n);
    ts.push(performance.now() - t);
  }
  const w = stats(ts);
  const cw = mod.HEAPF32.slice(pc >> 2, (pc >> 2) + n * n);
  mod._sl_matmul_free(pa); mod._sl_matmul_free(pb); mod._sl_matmul_free(pc);
  let js = '—', diff = '—';
  if (n <= jsMax) {
    const c = new Float32Array(n * n);
    if (n <= 256) jsTripleLoop(a, b, c, n); // warm-up for small sizes only
    const t = performance.now();
    jsTripleLoop(a, b, c, n);
    js = gf(n, performance.now() - t).toFixed(2);
    let m = 0;
    for (let i = 0; i < c.length; i++) m = Math.max(m, Math.abs(c[i] - cw[i]));
    diff = m.toExponential(2);
  }
  console.log(`${String(n).padStart(5)} ${gf(n, w.best).toFixed(2).padStart(11)} ${gf(n, w.median).toFixed(2).padStart(13)} ${js.padStart(19)} ${diff.padStart(14)}`);
}
