// Element-wise check of the GPU result against the CPU reference.
//
// Both sides compute each C_ij = Σ_k A_ik·B_kj in float32. The CPU kernel adds the products
// in k order with every product and sum rounded (WebAssembly SIMD has no fused multiply-add);
// the shader also walks k in order, but a GPU may fuse multiply-adds and its compiler may
// reorder, so the results may differ by rounding (or agree exactly, as they do on SwiftShader).
// The standard bound for any summation order is
// |fl(C_ij) − C_ij| ≤ γ_K Σ_k |A_ik||B_kj|, with γ_K = K·u/(1 − K·u) and u = 2⁻²⁴ (binary32
// unit roundoff), so two such results differ by at most 2·γ_K Σ_k |A_ik||B_kj|
// ≤ 2·γ_K ‖A_i,:‖₂ ‖B_:,j‖₂ (Cauchy–Schwarz: row and column norms cost O(n²), not another
// matmul). An element outside that bound is not a rounding difference: it is wrong.
import type { CompareResult } from './matmul-protocol';

const U = 2 ** -24;

export function gammaFactor(k: number): number {
  return (2 * k * U) / (1 - k * U);
}

/** a: m×k, b: k×n, cpu and gpu: m×n, all row-major. */
export function compareResults(a: Float32Array, b: Float32Array, cpu: Float32Array, gpu: Float32Array,
  m: number, n: number, k: number): CompareResult {
  const rowNorm = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    let s = 0;
    for (let p = 0; p < k; p++) { const x = a[i * k + p]; s += x * x; }
    rowNorm[i] = Math.sqrt(s);
  }
  const colNorm = new Float64Array(n);
  for (let p = 0; p < k; p++) {
    for (let j = 0; j < n; j++) { const x = b[p * n + j]; colNorm[j] += x * x; }
  }
  for (let j = 0; j < n; j++) colNorm[j] = Math.sqrt(colNorm[j]);

  const g2 = gammaFactor(k);
  const relFloor = 1e-3;
  let mismatches = 0, maxAbs = 0, maxRel = 0, maxRatio = 0;
  let worst: CompareResult['worst'] = null;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      const c = cpu[i * n + j], g = gpu[i * n + j];
      const d = Math.abs(g - c);
      // Tiny absolute floor: the bound is exactly 0 for an all-zero row or column.
      const bound = g2 * rowNorm[i] * colNorm[j] + 1e-30;
      if (!(d <= bound)) mismatches++; // NaN counts as a mismatch
      const ratio = Number.isNaN(d) ? Infinity : d / bound;
      if (!(ratio <= maxRatio)) { maxRatio = ratio; worst = { row: i, col: j, cpu: c, gpu: g, bound }; }
      if (!(d <= maxAbs)) maxAbs = Number.isNaN(d) ? Infinity : d;
      if (Math.abs(c) >= relFloor) { const r = d / Math.abs(c); if (!(r <= maxRel)) maxRel = Number.isNaN(r) ? Infinity : r; }
    }
  }
  return { elements: m * n, mismatches, allMatched: mismatches === 0, maxAbs, maxRel, relFloor,
    maxBoundRatio: maxRatio, gammaFactor: g2, worst };
}
