// The measured decode run's numbers (weights and inputs), made where they are used: on the GPU by the
// fill shader (shaders.ts), on the CPU by the WebAssembly kernel (wasm/decode-kernel/decode_kernel.c,
// sl_fill), and here, for the reference a sample of outputs is checked against. All three compute
// lowbias32(i·0x9E3779B1 + seed) and keep its top 11 bits as an odd multiple of 1/2048 in (−1, 1):
// every value is exact in float16 and float32 and none is subnormal, so the three agree bit for bit.
// Plain JavaScript with a .d.ts, so that the Node tests check it against the kernel as it ships.

/** lowbias32 (Chris Wellons' integer hash), on 32-bit unsigned integers */
export function mix(x) {
  x = (x ^ (x >>> 16)) >>> 0;
  x = Math.imul(x, 0x7feb352d) >>> 0;
  x = (x ^ (x >>> 15)) >>> 0;
  x = Math.imul(x, 0x846ca68b) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

/** The value at index i of the stream `seed`. */
export function value(seed, i) {
  const h = mix((Math.imul(i >>> 0, 0x9e3779b1) + seed) >>> 0);
  return ((h >>> 21) * 2 - 2047) / 2048;
}

/** count values of the stream from index first, into a Float64Array */
export function values(seed, first, count) {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) out[i] = value(seed, first + i);
  return out;
}
