// The WGSL of the measured decode run (issue 38). Weights and activations are stored in `wt`
// (float16 where the adapter has shader-f16, else float32); every product and sum is float32.
// One weight matrix is [N, K] ("out × in"), so one output's K weights are contiguous.
//
//   skinny  B ≤ 8: a step at small batch is a stream of weights. A workgroup of 8 × 32 invocations
//           computes 8 outputs; the 32 lanes of one output read its weight row as consecutive
//           4-wide vectors (coalesced), each keeping the partial sums of every sequence, then
//           one invocation per output adds the 32 partials (workgroup memory, padded against bank
//           conflicts). Reads each weight once; ceil(N / 8) workgroups keep many reads in flight.
//   tiled   B > 8: a classic tiled matmul. A 16 × 16 workgroup computes a BM × 64 block of outputs
//           (4 columns and BM/16 sequences each, in registers), staging 16-wide slices of the
//           activations and the weights in workgroup memory.
//   fill    the weights and inputs, from the value stream of values.js, on the GPU itself.
//   copy    the bandwidth ceiling: one buffer copied to another.
//
// Loop bounds and barriers depend only on uniforms and constants, so control flow stays uniform.
import type { Precision } from './protocol';

export const SKINNY_MAX_BATCH = 8;
export const SKINNY_ROWS = 8;
export const TILE_N = 64;
/** the tiled kernel's sequences per workgroup, by batch */
export const tileRows = (batch: number) => (batch <= 16 ? 16 : batch <= 32 ? 32 : 64);
/** the skinny kernel's partial sums per invocation, by batch (a power of two ≥ batch) */
export const skinnyWidth = (batch: number) => 2 ** Math.ceil(Math.log2(Math.max(1, batch)));

/** Bytes of one op's uniform block (Params), at 256-byte offsets (minUniformBufferOffsetAlignment). */
export const PARAMS_BYTES = 32;
export const PARAMS_STRIDE = 256;

const header = (p: Precision) => `${p === 'f16' ? 'enable f16;\n' : ''}alias wt = ${p};
struct Params { B: u32, K: u32, N: u32, ldx: u32, ldy: u32, y0: u32, scale: f32, pad: u32 }
@group(0) @binding(0) var<storage, read> w: array<vec4<wt>>;
@group(0) @binding(1) var<storage, read> x: array<vec4<wt>>;
@group(0) @binding(2) var<storage, read_write> y: array<wt>;
@group(0) @binding(3) var<uniform> p: Params;
`;

/** `f(i)` for i = 0 … n−1, one line each: the shaders' loops over registers are written out, so
 *  that every partial sum stays in a register whatever the compiler unrolls. */
const each = (n: number, f: (i: number) => string, sep = '\n') => Array.from({ length: n }, (_, i) => f(i)).join(sep);

export function skinnyShader(precision: Precision, width: number): string {
  const rows = SKINNY_ROWS, lanes = 32, stride = lanes + 1;
  return `${header(precision)}
const ROWS: u32 = ${rows}u;
const LANES: u32 = ${lanes}u;
const STRIDE: u32 = ${stride}u;
var<workgroup> partial: array<f32, ${width * rows * stride}>;

@compute @workgroup_size(${lanes}, ${rows}, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let n = wg.x * ROWS + lid.y;
  let k4 = p.K / 4u;
  let ldx4 = p.ldx / 4u;
${each(width, (b) => `  var acc${b} = 0.0;`)}
  if (n < p.N) {
    let row = n * k4;
    for (var k = lid.x; k < k4; k = k + LANES) {
      let wv = vec4<f32>(w[row + k]);
${each(width, (b) => `      ${b ? `if (${b}u < p.B) { ` : ''}acc${b} = acc${b} + dot(vec4<f32>(x[${b}u * ldx4 + k]), wv);${b ? ' }' : ''}`)}
    }
  }
${each(width, (b) => `  partial[(${b}u * ROWS + lid.y) * STRIDE + lid.x] = acc${b};`)}
  workgroupBarrier();
  if (li < ROWS * ${width}u) {
    let b = li / ROWS;
    let r = li % ROWS;
    let out = wg.x * ROWS + r;
    if (b < p.B && out < p.N) {
      var s = 0.0;
      for (var l = 0u; l < LANES; l = l + 1u) { s = s + partial[(b * ROWS + r) * STRIDE + l]; }
      y[b * p.ldy + p.y0 + out] = wt(s * p.scale);
    }
  }
}
`;
}

export function tiledShader(precision: Precision, bm: number): string {
  const tm = bm / 16;
  const stage = (buf: string, rows: string, limit: string, src: string) => `    for (var i = li; i < ${rows} * 4u; i = i + 256u) {
      let r = i / 4u;
      let c = i % 4u;
      var v = vec4<f32>(0.0);
      if (${limit}) { v = vec4<f32>(${src}); }
${each(4, (q) => `      ${buf}[(c * 4u + ${q}u) * ${rows} + r] = v.${'xyzw'[q]};`)}
    }`;
  return `${header(precision)}
const BM: u32 = ${bm}u;
const BN: u32 = ${TILE_N}u;
var<workgroup> xs: array<f32, ${16 * bm}>;
var<workgroup> ws: array<f32, ${16 * TILE_N}>;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let m0 = wg.y * BM;
  let n0 = wg.x * BN;
  let k4 = p.K / 4u;
  let ldx4 = p.ldx / 4u;
${each(tm, (i) => each(4, (j) => `  var acc${i}${j} = 0.0;`))}
  for (var k0 = 0u; k0 < k4; k0 = k0 + 4u) {
${stage('xs', 'BM', 'm0 + r < p.B', 'x[(m0 + r) * ldx4 + k0 + c]')}
${stage('ws', 'BN', 'n0 + r < p.N', 'w[(n0 + r) * k4 + k0 + c]')}
    workgroupBarrier();
    for (var k = 0u; k < 16u; k = k + 1u) {
${each(4, (j) => `      let b${j} = ws[k * BN + lid.x + ${16 * j}u];`)}
${each(tm, (i) => `      let a${i} = xs[k * BM + lid.y + ${16 * i}u];
${each(4, (j) => `      acc${i}${j} = fma(a${i}, b${j}, acc${i}${j});`)}`)}
    }
    workgroupBarrier();
  }
${each(tm, (i) => `  if (m0 + lid.y + ${16 * i}u < p.B) {
    let row = (m0 + lid.y + ${16 * i}u) * p.ldy + p.y0 + n0 + lid.x;
${each(4, (j) => `    if (n0 + lid.x + ${16 * j}u < p.N) { y[row + ${16 * j}u] = wt(acc${i}${j} * p.scale); }`)}
  }`)}
}
`;
}

export const FILL_PARAMS_BYTES = 16;
export function fillShader(precision: Precision): string {
  return `${precision === 'f16' ? 'enable f16;\n' : ''}
struct Fill { count: u32, seed: u32, first: u32, pad: u32 }
@group(0) @binding(0) var<storage, read_write> dst: array<${precision}>;
@group(0) @binding(1) var<uniform> f: Fill;

fn mix(v: u32) -> u32 {
  var h = v;
  h = h ^ (h >> 16u);
  h = h * 0x7feb352du;
  h = h ^ (h >> 15u);
  h = h * 0x846ca68bu;
  return h ^ (h >> 16u);
}

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let stride = groups.x * 256u;
  for (var i = gid.x; i < f.count; i = i + stride) {
    let h = mix((f.first + i) * 0x9e3779b1u + f.seed);
    dst[i] = ${precision}(f32(i32(h >> 21u) * 2 - 2047) / 2048.0);
  }
}
`;
}

export const COPY_WGSL = /* wgsl */ `
@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let stride = groups.x * 256u;
  for (var i = gid.x; i < arrayLength(&src); i = i + stride) { dst[i] = src[i]; }
}`;
