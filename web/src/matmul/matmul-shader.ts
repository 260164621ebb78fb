// The WGSL compute shader: C = A·B, row-major float32, tiled through workgroup memory.
// Each 16×16 workgroup computes a 16×16 tile of C; per step it loads a 16×16 tile of A and of
// B into workgroup memory, synchronises, and each invocation accumulates 16 products.
// Deliberately simple (one output per invocation): the experiment is about correctness and
// honest timing, not a tuned GPU kernel. A dispatch may cover a band of rows from dims.row0.
// Loop bounds and barriers depend only on uniforms, so control flow stays uniform.
export const TILE = 16;

export const MATMUL_WGSL = /* wgsl */ `
struct Dims { m: u32, n: u32, k: u32, row0: u32 }  // row0: first row of this dispatch

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

const TILE: u32 = ${TILE}u;
var<workgroup> tileA: array<array<f32, ${TILE}>, ${TILE}>;
var<workgroup> tileB: array<array<f32, ${TILE}>, ${TILE}>;

@compute @workgroup_size(${TILE}, ${TILE}, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
  let row = gid.y + dims.row0;
  let col = gid.x;
  var acc: f32 = 0.0;
  let steps = (dims.k + TILE - 1u) / TILE;
  for (var t: u32 = 0u; t < steps; t = t + 1u) {
    let ka = t * TILE + lid.x;
    let kb = t * TILE + lid.y;
    var va: f32 = 0.0;
    if (row < dims.m && ka < dims.k) { va = a[row * dims.k + ka]; }
    var vb: f32 = 0.0;
    if (kb < dims.k && col < dims.n) { vb = b[kb * dims.n + col]; }
    tileA[lid.y][lid.x] = va;
    tileB[lid.y][lid.x] = vb;
    workgroupBarrier();
    for (var q: u32 = 0u; q < TILE; q = q + 1u) {
      acc = acc + tileA[lid.y][q] * tileB[q][lid.x];
    }
    workgroupBarrier();
  }
  if (row < dims.m && col < dims.n) {
    c[row * dims.n + col] = acc;
  }
}
`;
