// The CPU kernels "Measure this device" runs on every core, each a small WebAssembly module
// assembled here byte by byte (no compiler, no download): a register-resident loop of fused
// multiply-adds on 4-lane float vectors (relaxed SIMD's f32x4.relaxed_madd where the browser has
// it, else a multiply and an add), an int8 dot product (relaxed SIMD's i8x16 dot, else 16-bit
// products with i32x4.dot_i16x8_s), and a read of a large buffer with 16-byte loads. Each
// exports one function of an iteration count (or a byte range) that returns a value depending on
// every operation, so that nothing can be skipped.

const uleb = (n: number): number[] => { const out: number[] = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const simd = (op: number) => [0xfd, ...uleb(op)];

// WebAssembly opcodes used below (the core and SIMD specifications, and relaxed SIMD's).
const LOCAL_GET = 0x20, LOCAL_SET = 0x21, I32_CONST = 0x41, F32_CONST = 0x43;
const BLOCK = 0x02, LOOP = 0x03, BR = 0x0c, BR_IF = 0x0d, END = 0x0b, I32_EQZ = 0x45, I32_SUB = 0x6b, I32_ADD = 0x6a, I32_GE_U = 0x4f;
const V128 = 0x7b, I32 = 0x7f, F32 = 0x7d;
const I8X16_SPLAT = 0x0f, I16X8_SPLAT = 0x10, F32X4_SPLAT = 0x13, I32X4_EXTRACT = 0x1b, F32X4_EXTRACT = 0x1f, V128_LOAD = 0x00;
const F32X4_ADD = 0xe4, F32X4_MUL = 0xe6, I32X4_ADD = 0xae, I32X4_DOT_I16X8_S = 0xba;
const F32X4_RELAXED_MADD = 0x105, I32X4_RELAXED_DOT_I8X16_I7X16_ADD_S = 0x113;

const f32 = (x: number) => [F32_CONST, ...new Uint8Array(new Float32Array([x]).buffer)];
const i32 = (x: number) => { const out: number[] = []; let v = x | 0; for (;;) { const b = v & 0x7f; v >>= 7; if ((v === 0 && !(b & 0x40)) || (v === -1 && (b & 0x40))) { out.push(b); return out; } out.push(b | 0x80); } };

/** A module exporting `run` of type (params) -> result, with `locals` extra locals and `body`. */
function module(params: number[], result: number, locals: [number, number][], body: number[], memory = false): Uint8Array {
  const type = [1, 0x60, params.length, ...params, 1, result];
  const imports = memory ? [1, 1, 0x6d, 3, 0x6d, 0x65, 0x6d, 0x02, 0x00, 1] : [0];
  const localDecl = [locals.length, ...locals.flatMap(([n, t]) => [...uleb(n), t])];
  const code = [...localDecl, ...body, END];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, type),
    ...(memory ? section(2, imports) : []),
    ...section(3, [1, 0]),
    ...section(7, [1, 3, 0x72, 0x75, 0x6e, 0x00, 0]), // export "run", function 0
    ...section(10, [1, ...uleb(code.length), ...code]),
  ]);
}

/** `count` down to zero: the loop's frame around `inner` (local 0 is the count). */
const countedLoop = (inner: number[]) => [
  BLOCK, 0x40, LOOP, 0x40,
  LOCAL_GET, 0, I32_EQZ, BR_IF, 1,
  ...inner,
  LOCAL_GET, 0, I32_CONST, 1, I32_SUB, LOCAL_SET, 0,
  BR, 0, END, END,
];

const CHAINS = 8; // independent accumulators: more than a multiply-add's latency times its units

/** fp32: acc_j = acc_j · a + b on CHAINS vectors of 4 lanes, `count` times; 8 FLOPs a chain a round. */
function fmaModule(relaxed: boolean): Uint8Array {
  // locals: 0 count (param), 1 a, 2 b, 3.. accumulators
  const A = 1, B = 2, acc = (j: number) => 3 + j;
  const init = [...f32(0.9999999), ...simd(F32X4_SPLAT), LOCAL_SET, A, ...f32(1e-7), ...simd(F32X4_SPLAT), LOCAL_SET, B,
    ...Array.from({ length: CHAINS }, (_, j) => [...f32(j), ...simd(F32X4_SPLAT), LOCAL_SET, acc(j)]).flat()];
  const step = (j: number) => relaxed
    ? [LOCAL_GET, acc(j), LOCAL_GET, A, LOCAL_GET, B, ...simd(F32X4_RELAXED_MADD), LOCAL_SET, acc(j)]
    : [LOCAL_GET, acc(j), LOCAL_GET, A, ...simd(F32X4_MUL), LOCAL_GET, B, ...simd(F32X4_ADD), LOCAL_SET, acc(j)];
  const sum = [LOCAL_GET, acc(0), ...Array.from({ length: CHAINS - 1 }, (_, j) => [LOCAL_GET, acc(j + 1), ...simd(F32X4_ADD)]).flat(), ...simd(F32X4_EXTRACT), 0];
  return module([I32], F32, [[2 + CHAINS, V128]], [...init, ...countedLoop(Array.from({ length: CHAINS }, (_, j) => step(j)).flat()), ...sum]);
}

/** int8: CHAINS accumulators of 4 int32 lanes, each round adding 16 byte products (relaxed) or 8
 *  16-bit products (i32x4.dot_i16x8_s on values widened from int8). */
function int8Module(relaxed: boolean): Uint8Array {
  const X = 1, Y = 2, acc = (j: number) => 3 + j;
  const splat = relaxed ? I8X16_SPLAT : I16X8_SPLAT;
  const init = [I32_CONST, ...i32(3), ...simd(splat), LOCAL_SET, X, I32_CONST, ...i32(-2), ...simd(splat), LOCAL_SET, Y,
    ...Array.from({ length: CHAINS }, (_, j) => [I32_CONST, ...i32(j), ...simd(0x11 /* i32x4.splat */), LOCAL_SET, acc(j)]).flat()];
  const step = (j: number) => relaxed
    ? [LOCAL_GET, X, LOCAL_GET, Y, LOCAL_GET, acc(j), ...simd(I32X4_RELAXED_DOT_I8X16_I7X16_ADD_S), LOCAL_SET, acc(j)]
    : [LOCAL_GET, acc(j), LOCAL_GET, X, LOCAL_GET, Y, ...simd(I32X4_DOT_I16X8_S), ...simd(I32X4_ADD), LOCAL_SET, acc(j)];
  const sum = [LOCAL_GET, acc(0), ...Array.from({ length: CHAINS - 1 }, (_, j) => [LOCAL_GET, acc(j + 1), ...simd(I32X4_ADD)]).flat(), ...simd(I32X4_EXTRACT), 0];
  return module([I32], I32, [[2 + CHAINS, V128]], [...init, ...countedLoop(Array.from({ length: CHAINS }, (_, j) => step(j)).flat()), ...sum]);
}

/** run(begin, end): reads [begin, end) with 16-byte loads into four accumulators (64 bytes a round). */
function streamModule(): Uint8Array {
  const load = (acc: number, offset: number) => [LOCAL_GET, acc, LOCAL_GET, 0, ...simd(V128_LOAD), 4, offset, ...simd(F32X4_ADD), LOCAL_SET, acc];
  const body = [
    BLOCK, 0x40, LOOP, 0x40,
    LOCAL_GET, 0, LOCAL_GET, 1, I32_GE_U, BR_IF, 1,
    ...load(2, 0), ...load(3, 16), ...load(4, 32), ...load(5, 48),
    LOCAL_GET, 0, I32_CONST, ...i32(64), I32_ADD, LOCAL_SET, 0,
    BR, 0, END, END,
    LOCAL_GET, 2, LOCAL_GET, 3, ...simd(F32X4_ADD), LOCAL_GET, 4, ...simd(F32X4_ADD), LOCAL_GET, 5, ...simd(F32X4_ADD), ...simd(F32X4_EXTRACT), 0,
  ];
  return module([I32, I32], F32, [[4, V128]], body, true);
}

export interface CpuKernel {
  /** what runs, in words */
  how: string;
  /** operations one iteration does (a multiply-add counts 2) */
  opsPerIteration: number;
  run: (iterations: number) => number;
}

const instantiate = (bytes: Uint8Array, imports: WebAssembly.Imports = {}) =>
  new WebAssembly.Instance(new WebAssembly.Module(bytes as BufferSource), imports).exports as { run: (...a: number[]) => number };

/** The fp32 multiply-add kernel, relaxed SIMD's fused form where this browser validates it. */
export function fmaKernel(): CpuKernel {
  const relaxed = WebAssembly.validate(fmaModule(true) as BufferSource);
  const { run } = instantiate(fmaModule(relaxed));
  return { how: relaxed ? 'f32x4.relaxed_madd (relaxed SIMD: a fused multiply-add where the CPU has one)' : 'f32x4.mul + f32x4.add (this browser has no relaxed SIMD)', opsPerIteration: CHAINS * 4 * 2, run };
}

/** The int8 dot-product kernel, relaxed SIMD's byte dot where this browser validates it. */
export function int8Kernel(): CpuKernel {
  const relaxed = WebAssembly.validate(int8Module(true) as BufferSource);
  const { run } = instantiate(int8Module(relaxed));
  return relaxed
    ? { how: 'i32x4.relaxed_dot_i8x16_i7x16_add_s (relaxed SIMD: 16 byte products an instruction)', opsPerIteration: CHAINS * 16 * 2, run }
    : { how: 'i32x4.dot_i16x8_s on bytes widened to 16 bits (this browser has no relaxed SIMD)', opsPerIteration: CHAINS * 8 * 2, run };
}

/** A reader of `bytes` of its own memory (touched before it is timed): run() returns the seconds of one pass. */
export function streamReader(bytes: number): { bytes: number; pass: () => number } {
  const size = Math.ceil(bytes / 65536) * 65536;
  const memory = new WebAssembly.Memory({ initial: size / 65536 });
  new Float32Array(memory.buffer).fill(1);
  const { run } = instantiate(streamModule(), { m: { mem: memory } });
  return { bytes: size, pass: () => { const t = performance.now(); run(0, size); return Math.max(performance.now() - t, 0.001) / 1e3; } };
}
