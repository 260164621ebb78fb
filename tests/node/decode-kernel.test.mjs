// The measured decode run's CPU kernel (wasm/decode-kernel/, built into build-wasm/web/), as it
// ships: its value stream is the reference's (web/src/measure/decode-run/values.js) bit for bit;
// its matmul is the float64 sum of the same inputs within float32 rounding, at every batch, output
// range, stride and scale the run uses, with the batch-1 and two-sequence paths and the tail past
// the last group of four outputs; and the threaded build computes the same on two threads
// (worker_threads) sharing one memory, each with its own stack. Its stream reads what it is given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { wasmDir } from './lib.mjs';
import { value } from '../../web/src/measure/decode-run/values.js';

const file = (name) => {
  const p = path.join(wasmDir, 'web', name);
  if (!fs.existsSync(p)) throw new Error(`no kernel at ${p} (build it: cmake --build build-wasm --target decode_kernel)`);
  return fs.readFileSync(p);
};
const single = new WebAssembly.Module(file('decode_kernel.wasm'));
const threaded = new WebAssembly.Module(file('decode_kernel_threads.wasm'));
const U = 2 ** -24;

function instance(module, pages, shared) {
  const memory = shared ? new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true }) : new WebAssembly.Memory({ initial: pages });
  return { k: new WebAssembly.Instance(module, { env: { memory } }).exports, memory };
}

test('the kernel exports what the run calls, and the threaded build imports a shared memory', () => {
  for (const m of [single, threaded]) {
    const names = WebAssembly.Module.exports(m).map((e) => e.name).sort();
    assert.deepEqual(names, ['__heap_base', '__stack_pointer', 'sl_fill', 'sl_matmul_nt', 'sl_stream']);
    assert.deepEqual(WebAssembly.Module.imports(m).map((i) => `${i.module}.${i.name}:${i.kind}`), ['env.memory:memory']);
  }
  assert.throws(() => new WebAssembly.Instance(threaded, { env: { memory: new WebAssembly.Memory({ initial: 4 }) } }), /shared|memory/i);
});

test('sl_fill makes the reference stream, bit for bit, across the 2^32 wrap', () => {
  const { k, memory } = instance(single, 8, false);
  const at = 65536 * 2, n = 50_000;
  for (const [seed, first] of [[0, 0], [0x5ca1ab1e, 12345], [7, 2 ** 32 - 20_000]]) {
    k.sl_fill(at, n, seed, first);
    const got = new Float32Array(memory.buffer, at, n);
    for (let i = 0; i < n; i++) if (got[i] !== value(seed, (first + i) >>> 0)) assert.fail(`seed ${seed}, index ${first + i}: ${got[i]} != ${value(seed, (first + i) >>> 0)}`);
    assert.ok(got.every((v) => Math.abs(v) >= 2 ** -11 && Math.abs(v) < 1), 'odd multiples of 1/2048 in (-1, 1)');
  }
});

/** y = scale · x · wᵀ through the kernel, checked against float64 within γ_K·Σ|x||w| per output. */
function checkMatmul(k, memory, { B, K, N, ldx, ldy, n0, n1, scale, y0 = 0 }) {
  const heap = 65536 * 2;
  const xAt = heap, wAt = xAt + 4 * B * ldx, yAt = wAt + 4 * N * K;
  k.sl_fill(xAt, B * ldx, 11, 0);
  k.sl_fill(wAt, N * K, 23, 0);
  new Float32Array(memory.buffer, yAt, B * ldy).fill(NaN);
  k.sl_matmul_nt(xAt, ldx, wAt, K, yAt + 4 * y0, ldy, B, n0, n1, scale);
  const x = new Float32Array(memory.buffer, xAt, B * ldx), w = new Float32Array(memory.buffer, wAt, N * K), y = new Float32Array(memory.buffer, yAt, B * ldy);
  const gamma = (K * U) / (1 - K * U);
  for (let b = 0; b < B; b++) {
    for (let n = 0; n < N; n++) {
      const got = y[b * ldy + y0 + n];
      if (n < n0 || n >= n1) { assert.ok(Number.isNaN(got), `output ${n} outside [${n0}, ${n1}) was written`); continue; }
      let sum = 0, abs = 0;
      for (let kk = 0; kk < K; kk++) { const p = x[b * ldx + kk] * w[n * K + kk]; sum += p; abs += Math.abs(p); }
      assert.ok(Math.abs(got - scale * sum) <= scale * gamma * abs, `B=${B} K=${K} b=${b} n=${n}: ${got} vs ${scale * sum}`);
    }
  }
}

test('sl_matmul_nt: the float64 sum within float32 rounding, at the run\'s batches, ranges and strides', () => {
  const { k, memory } = instance(single, 64, false);
  for (const B of [1, 2, 3, 8, 9]) {
    checkMatmul(k, memory, { B, K: 64, N: 23, ldx: 64, ldy: 23, n0: 0, n1: 23, scale: 1 / 4 });
  }
  // a strided input (O reads the first Nq of qkv's columns), a range of outputs in the middle (one
  // thread's share: its last group of four cut short), and outputs written at a column offset
  checkMatmul(k, memory, { B: 5, K: 48, N: 40, ldx: 80, ldy: 64, n0: 6, n1: 33, scale: 1 / 8, y0: 16 });
  checkMatmul(k, memory, { B: 4, K: 1024, N: 12, ldx: 1024, ldy: 12, n0: 0, n1: 12, scale: 1 / 16 });
});

test('sl_stream reads every float it is given', () => {
  const { k, memory } = instance(single, 8, false);
  const at = 65536 * 2, n = 4096;
  new Float32Array(memory.buffer, at, n).fill(0.5);
  assert.equal(k.sl_stream(at, n), n / 2);
});

test('the threaded build: two threads over one shared memory, each its share of the outputs, compute one matmul', async () => {
  const pages = 64;
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
  const main = new WebAssembly.Instance(threaded, { env: { memory } }).exports;
  const base = Math.ceil(main.__heap_base.value / 65536) * 65536 + 2 * 65536; // two 64 KiB stacks below
  const B = 3, K = 256, N = 37;
  const xAt = base, wAt = xAt + 4 * B * K, yAt = wAt + 4 * N * K;
  main.sl_fill(xAt, B * K, 5, 0);
  main.sl_fill(wAt, N * K, 6, 0);
  const source = `
    const { workerData, parentPort } = require('node:worker_threads');
    const { module, memory, stackTop, args } = workerData;
    const k = new WebAssembly.Instance(module, { env: { memory } }).exports;
    k.__stack_pointer.value = stackTop;
    k.sl_matmul_nt(...args);
    parentPort.postMessage('done');`;
  const halves = [[0, 20], [20, N]];
  await Promise.all(halves.map(([n0, n1], i) => new Promise((resolve, reject) => {
    const w = new Worker(source, { eval: true, workerData: { module: threaded, memory, stackTop: base - i * 65536, args: [xAt, K, wAt, K, yAt, N, B, n0, n1, 0.125] } });
    w.once('message', () => { w.terminate(); resolve(); });
    w.once('error', reject);
  })));
  const one = instance(single, pages, false);
  new Uint8Array(one.memory.buffer).set(new Uint8Array(memory.buffer));
  one.k.sl_matmul_nt(xAt, K, wAt, K, yAt + 4 * B * N, N, B, 0, N, 0.125);
  const threads = new Float32Array(memory.buffer, yAt, B * N), alone = new Float32Array(one.memory.buffer, yAt + 4 * B * N, B * N);
  assert.deepEqual([...threads], [...alone], 'the same sums, in the same order, split over two threads');
});
