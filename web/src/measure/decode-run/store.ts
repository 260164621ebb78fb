// A finished run, kept: in this browser (localStorage, beside the measured device the page's chip
// menu keeps) and in a link (?device=<the chip>&decoderun=<the curve>, base64url JSON). Nothing is
// sent anywhere: a link carries the run in its own address. A kept or shared run is read back with
// every field checked; the chip is checked by the engine where it is shown (view.ts).
import type { Backend, Precision } from './protocol';

export const STORAGE_KEY = 'scalelab.decodeRun';
export const URL_PARAM = 'decoderun';
const MAX_POINTS = 64;

/** What a kept run holds: enough to draw it again and to say what it was. */
export interface KeptRun {
  v: 1;
  /** the measured device as a chip (measure-protocol's measuredChip) */
  chip: Record<string, unknown>;
  model: string;
  backend: Backend;
  precision: Precision;
  software: boolean;
  /** the device as named where it ran */
  device: string;
  /** matmul parameters the engine is asked for (the whole model's) */
  params: number;
  /** the batches and the whole model's measured step at each (seconds) */
  batches: number[];
  stepS: number[];
  /** every point's sample matched the reference */
  verified: boolean;
  /** when it ran (ISO date) */
  when: string;
}

const toB64 = (s: string) => btoa(String.fromCodePoint(...new TextEncoder().encode(s))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const fromB64 = (s: string) => new TextDecoder().decode(Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.codePointAt(0)!));

/** the run as a link's parameter: figures kept to 4 significant digits */
export function encodeRun(r: KeptRun): string {
  return toB64(JSON.stringify({ ...r, stepS: r.stepS.map((t) => Number(t.toPrecision(4))) }));
}

/** A run read back (from storage or a link), every field checked; an error says what is wrong. */
export function parseRun(text: string | null, from: 'link' | 'storage'): KeptRun | { error: string } | null {
  if (text === null || text === '') return null;
  const bad = (why: string) => ({ error: `The ${from === 'link' ? 'address’s measured decode run (decoderun=…)' : 'kept decode run'} ${why}.` });
  let r: Partial<KeptRun>;
  try { r = JSON.parse(from === 'link' ? fromB64(text) : text); } catch { return bad('is not readable'); }
  if (!r || typeof r !== 'object' || r.v !== 1) return bad('is not a run this page knows');
  if (!r.chip || typeof r.chip !== 'object' || Array.isArray(r.chip)) return bad('has no measured device');
  if (typeof r.model !== 'string' || typeof r.device !== 'string' || typeof r.when !== 'string') return bad('lacks its model or device');
  if (r.backend !== 'gpu' && r.backend !== 'cpu') return bad('names no GPU or CPU');
  if (r.precision !== 'f16' && r.precision !== 'f32') return bad('names no precision');
  if (typeof r.software !== 'boolean' || typeof r.verified !== 'boolean') return bad('lacks its checks');
  if (!(typeof r.params === 'number' && r.params >= 1 && r.params < 1e14)) return bad('has no parameter count');
  const b = r.batches, t = r.stepS;
  if (!Array.isArray(b) || !Array.isArray(t) || b.length !== t.length || b.length < 2 || b.length > MAX_POINTS) return bad('has no curve');
  if (!b.every((x, i) => Number.isInteger(x) && x >= 1 && x <= 65536 && (i === 0 || x > b[i - 1]))) return bad('has batches out of order or range');
  if (!t.every((x) => typeof x === 'number' && Number.isFinite(x) && x > 0 && x < 3600)) return bad('has a step time that is not a positive number of seconds');
  return r as KeptRun;
}

export function keptRun(): KeptRun | { error: string } | null {
  let text: string | null = null;
  try { text = localStorage.getItem(STORAGE_KEY); } catch { /* private mode */ }
  return parseRun(text, 'storage');
}
export function keepRun(r: KeptRun): void {
  try { localStorage.setItem(STORAGE_KEY, JSON.stringify(r)); } catch { /* private mode: not kept */ }
}
export function runFromAddress(): KeptRun | { error: string } | null {
  return parseRun(new URLSearchParams(location.search).get(URL_PARAM), 'link');
}
