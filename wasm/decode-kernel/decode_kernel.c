// The CPU kernel of the measured decode run (issue 38; web/src/measure/decode-run/): the weight
// matmuls of one decode step, y = scale · x · wᵀ, on every core through WebAssembly SIMD and threads.
//
// A freestanding module (no libc, no allocator): it imports one shared memory, and the page lays
// the weights, activations and each thread's stack out in it (decode-run-cpu.ts). Each thread is a
// Worker with its own instance of this module over that memory; it sets its own __stack_pointer.
//
// Layout, as serving engines store a linear layer: x is [B, K] with row stride ldx, the weights w
// are [N, K] (one output's weights contiguous: "out × in"), y is [B, N] with row stride ldy. A call
// computes the outputs n0 ≤ n < n1, so threads split N.
#include <stdint.h>
#include <wasm_simd128.h>

#define EXPORT(name) __attribute__((export_name(name)))

// The run's numbers, made where they are used (here, in the WGSL shader and in JavaScript for the
// reference, decode-run-values.js): lowbias32 of i·φ + seed, its top 11 bits as an odd multiple of
// 1/2048 in (−1, 1). Every value is exact in float16 and float32, none is subnormal.
static inline uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
static inline float value(uint32_t seed, uint32_t i) {
  uint32_t h = mix(i * 0x9E3779B1U + seed);
  return (float)((int32_t)(h >> 21) * 2 - 2047) * (1.0f / 2048.0f);
}

EXPORT("sl_fill") void sl_fill(float* dst, uint32_t count, uint32_t seed, uint32_t first) {
  for (uint32_t i = 0; i < count; i++) dst[i] = value(seed, first + i);
}

// The sums of four vectors' lanes, as one vector: [Σa, Σb, Σc, Σd].
static inline v128_t sums4(v128_t a, v128_t b, v128_t c, v128_t d) {
  v128_t ab = wasm_f32x4_add(wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), wasm_i32x4_shuffle(a, b, 2, 6, 3, 7));
  v128_t cd = wasm_f32x4_add(wasm_i32x4_shuffle(c, d, 0, 4, 1, 5), wasm_i32x4_shuffle(c, d, 2, 6, 3, 7));
  return wasm_f32x4_add(wasm_i32x4_shuffle(ab, cd, 0, 1, 4, 5), wasm_i32x4_shuffle(ab, cd, 2, 3, 6, 7));
}
static inline float sum1(v128_t a) {
  return (wasm_f32x4_extract_lane(a, 0) + wasm_f32x4_extract_lane(a, 2)) +
         (wasm_f32x4_extract_lane(a, 1) + wasm_f32x4_extract_lane(a, 3));
}

#define MUL_ADD(acc, u, v) acc = wasm_f32x4_add(acc, wasm_f32x4_mul(u, v))

// Four outputs (n .. n+3) for two sequences (rows b, b+1) at once: each 4-wide step of k loads four
// weight vectors and two activation vectors for 8 multiply-adds (WebAssembly SIMD has no fused
// multiply-add). 14 vectors live: within the 16 registers a 128-bit SIMD unit has on x86-64.
static void four_by_two(const float* xa, const float* xb, const float* w, uint32_t K, float* ya, float* yb, v128_t s) {
  const float *w0 = w, *w1 = w + K, *w2 = w + 2 * K, *w3 = w + 3 * K;
  v128_t a0 = wasm_f32x4_splat(0), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
  for (uint32_t k = 0; k < K; k += 4) {
    v128_t u = wasm_v128_load(xa + k), v = wasm_v128_load(xb + k);
    v128_t p = wasm_v128_load(w0 + k);
    MUL_ADD(a0, u, p);
    MUL_ADD(b0, v, p);
    p = wasm_v128_load(w1 + k);
    MUL_ADD(a1, u, p);
    MUL_ADD(b1, v, p);
    p = wasm_v128_load(w2 + k);
    MUL_ADD(a2, u, p);
    MUL_ADD(b2, v, p);
    p = wasm_v128_load(w3 + k);
    MUL_ADD(a3, u, p);
    MUL_ADD(b3, v, p);
  }
  wasm_v128_store(ya, wasm_f32x4_mul(s, sums4(a0, a1, a2, a3)));
  wasm_v128_store(yb, wasm_f32x4_mul(s, sums4(b0, b1, b2, b3)));
}

// Four outputs for one sequence: the batch-1 case, streaming four weight rows at once.
static void four_by_one(const float* xa, const float* w, uint32_t K, float* ya, v128_t s) {
  const float *w0 = w, *w1 = w + K, *w2 = w + 2 * K, *w3 = w + 3 * K;
  v128_t a0 = wasm_f32x4_splat(0), a1 = a0, a2 = a0, a3 = a0;
  for (uint32_t k = 0; k < K; k += 4) {
    v128_t u = wasm_v128_load(xa + k);
    MUL_ADD(a0, u, wasm_v128_load(w0 + k));
    MUL_ADD(a1, u, wasm_v128_load(w1 + k));
    MUL_ADD(a2, u, wasm_v128_load(w2 + k));
    MUL_ADD(a3, u, wasm_v128_load(w3 + k));
  }
  wasm_v128_store(ya, wasm_f32x4_mul(s, sums4(a0, a1, a2, a3)));
}

static float one(const float* xa, const float* w, uint32_t K) {
  v128_t a = wasm_f32x4_splat(0);
  for (uint32_t k = 0; k < K; k += 4) MUL_ADD(a, wasm_v128_load(xa + k), wasm_v128_load(w + k));
  return sum1(a);
}

// y[b·ldy + n] = scale · Σ_k x[b·ldx + k] · w[n·K + k] for b < B and n0 ≤ n < n1. K must be a
// multiple of 4. For each group of four weight rows (64 KiB at K = 4096: in the core's L2 cache)
// every sequence of the batch passes before the next group, so the weights are read from memory
// once per call however large the batch.
EXPORT("sl_matmul_nt")
void sl_matmul_nt(const float* x, uint32_t ldx, const float* w, uint32_t K, float* y, uint32_t ldy, uint32_t B,
                  uint32_t n0, uint32_t n1, float scale) {
  v128_t s = wasm_f32x4_splat(scale);
  uint32_t n = n0;
  for (; n + 4 <= n1; n += 4) {
    const float* wn = w + (uint64_t)n * K;
    uint32_t b = 0;
    for (; b + 2 <= B; b += 2) {
      four_by_two(x + b * ldx, x + (b + 1) * ldx, wn, K, y + b * ldy + n, y + (b + 1) * ldy + n, s);
    }
    if (b < B) four_by_one(x + b * ldx, wn, K, y + b * ldy + n, s);
  }
  for (; n < n1; n++) {
    for (uint32_t b = 0; b < B; b++) y[b * ldy + n] = scale * one(x + b * ldx, w + (uint64_t)n * K, K);
  }
}

// Reads [p, p + count) (count a multiple of 16 floats) with 16-byte loads into four sums, and
// returns their total, so that no load can be left out: the bandwidth ceiling's stream.
EXPORT("sl_stream") float sl_stream(const float* p, uint32_t count) {
  v128_t a = wasm_f32x4_splat(0), b = a, c = a, d = a;
  for (uint32_t i = 0; i < count; i += 16) {
    a = wasm_f32x4_add(a, wasm_v128_load(p + i));
    b = wasm_f32x4_add(b, wasm_v128_load(p + i + 4));
    c = wasm_f32x4_add(c, wasm_v128_load(p + i + 8));
    d = wasm_f32x4_add(d, wasm_v128_load(p + i + 12));
  }
  return sum1(wasm_f32x4_add(wasm_f32x4_add(a, b), wasm_f32x4_add(c, d)));
}
