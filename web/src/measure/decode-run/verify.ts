// A sample of a batch's outputs checked against a reference in float64 (both backends).
//
// Each checked output is y = s · Σ_k x_k · w_k over K products, with x the device's own input row
// (read back from it, so that each matmul is checked alone) and w regenerated from its stream
// (values.js). The device adds float32 products in some order, so its sum differs from the exact
// one by at most γ_K · Σ|x_k||w_k| with γ_K = K·u / (1 − K·u), u = 2⁻²⁴ (the classical bound for
// any summation order, with or without fused multiply-add); s is a power of two (exact); storing
// the result as float16 adds at most one float16 unit in the last place, 2⁻¹⁰ relative. An output
// outside that is wrong, not rounded.
import { value } from './values.js';
import type { Op } from './plan';
import type { Verification } from './protocol';

const U32 = 2 ** -24;

/** the outputs checked per sequence and matmul */
export const SAMPLE_OUTPUTS = 16;

/** The sequences sampled at a batch: the first, the middle and the last. */
export const sampledRows = (batch: number) => [...new Set([0, Math.floor((batch - 1) / 2), batch - 1])];

/** The outputs sampled among `rows`: the first, the last, and others spread between, by a fixed stream. */
export function sampledOutputs(rows: number, seed: number): number[] {
  const out = new Set([0, rows - 1]);
  for (let i = 0; out.size < Math.min(rows, SAMPLE_OUTPUTS); i++) out.add(Math.floor(((value(seed, i) + 1) / 2) * rows));
  return [...out];
}

/** float16 bits → number */
export function halfToNumber(h: number): number {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

export interface CheckedMatmul {
  op: Op;
  /** the output columns the device wrote for this op's rows 0 … (row of the weights + y0 offset) */
  y0: number;
  /** for each sampled sequence: its input row (K values) and its output row (as the device stored it) */
  rows: { input: ArrayLike<number>; output: ArrayLike<number> }[];
  /** the outputs sampled (rows of the weights) */
  outputs: number[];
}

export interface Tally { checked: number; mismatches: number; worstShare: number }

/** Adds one matmul's sample to the tally. outBits: 0 for float32 outputs, 11 for float16. */
export function checkMatmul(c: CheckedMatmul, float16: boolean, t: Tally, perturb = 0): void {
  const { op } = c, K = op.K;
  const gamma = (K * U32) / (1 - K * U32);
  const stored = float16 ? 2 ** -10 : 0;
  const w = new Float64Array(K);
  for (const n of c.outputs) {
    for (let k = 0; k < K; k++) w[k] = value(op.seed, n * K + k);
    for (const row of c.rows) {
      let sum = 0, abs = 0;
      for (let k = 0; k < K; k++) { const p = row.input[k] * w[k]; sum += p; abs += Math.abs(p); }
      const ref = op.scale * sum;
      let got = row.output[c.y0 + n];
      if (perturb && t.checked === 0) got += perturb;
      const allowed = op.scale * gamma * abs + stored * Math.abs(ref) + 1e-30;
      const d = Math.abs(got - ref);
      t.checked++;
      if (!(d <= allowed)) t.mismatches++; // NaN counts as a mismatch
      const share = Number.isNaN(d) ? Infinity : d / allowed;
      if (!(share <= t.worstShare)) t.worstShare = share;
    }
  }
}

export const verification = (t: Tally, what: string): Verification => ({ ...t, what });
