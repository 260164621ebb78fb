// What the reader chose, remembered in this browser (localStorage only; nothing leaves it).
import { CHIP_INDEX } from './generated/catalog-index';

export const DEFAULT_CHIP = 'tpu-v5e';
const K = {
  chip: 'scalelab.chip',
  custom: 'scalelab.customChip',
  mode: 'scalelab.mode',
  theme: 'scalelab.theme',
  progress: (key: string) => `scalelab.progress.${key}`,
};

function read(key: string): string | null {
  try { return localStorage.getItem(key); } catch { return null; }
}
function write(key: string, value: string | null) {
  try { if (value === null) localStorage.removeItem(key); else localStorage.setItem(key, value); } catch { /* private mode */ }
}

// ---- chip
// The page's chip is the reader's choice, kept in this browser; a link's ?chip= sets it for the
// view it opens (every lab and live number on the page follows it) without changing the choice
// kept, until the reader picks a chip.
export type ChipChoice = string | Record<string, unknown>;
export function customChip(): Record<string, unknown> | null {
  try { const c = JSON.parse(read(K.custom) || 'null'); return c && typeof c === 'object' ? c : null; } catch { return null; }
}
const linked = typeof location === 'undefined' ? null : new URLSearchParams(location.search).get('chip');
let viewChip: string | null = linked !== null && (CHIP_INDEX.some((c) => c.id === linked) || (linked === 'custom' && customChip())) ? linked : null;
/** A link's chip= that names no chip: what the page says about it (the shell shows it), else ''. */
export const linkedChipProblem = linked !== null && viewChip === null
  ? `The link asks for a chip “${linked}” that is not in the catalog${linked === 'custom' ? ' (a custom chip lives in the browser that made it)' : ''}; the page uses your chip.` : '';
export function chipId(): string { return viewChip ?? (read(K.chip) || DEFAULT_CHIP); }
/** Whether the page's chip came from the link (chip=) rather than the reader's kept choice. */
export function chipFromLink(): boolean { return viewChip !== null; }
/** The value to pass as "chip" to the engine: a catalog id or the custom chip object. */
export function chipParam(): ChipChoice {
  const id = chipId();
  if (id === 'custom') return customChip() ?? DEFAULT_CHIP;
  return id;
}
export function setChip(id: string, custom?: Record<string, unknown>) {
  viewChip = null;
  if (custom) write(K.custom, JSON.stringify(custom));
  write(K.chip, id);
  window.dispatchEvent(new CustomEvent('sl-chip-change', { detail: { id } }));
}

// ---- Plain / Technical
export type Mode = 'plain' | 'technical';
export function mode(): Mode { return read(K.mode) === 'technical' ? 'technical' : 'plain'; }
export function setMode(m: Mode) {
  write(K.mode, m);
  window.dispatchEvent(new CustomEvent('sl-mode-change', { detail: { mode: m } }));
}

// ---- theme
export type Theme = 'auto' | 'light' | 'dark';
export function theme(): Theme { const t = read(K.theme); return t === 'light' || t === 'dark' ? t : 'auto'; }
export function setTheme(t: Theme) { write(K.theme, t === 'auto' ? null : t); }

// ---- progress per chapter
export interface Progress { step: number; visited: number[]; total: number; done: boolean; tryit?: Record<string, TryitRecord> }
/** A Try-it block's state (web/src/tryit.ts): the prediction locked in, whether the paired lab was
 *  operated since, and the last check (the engine's answer, on which chip, how close). */
export interface TryitRecord {
  calc: string; out: string;
  text: string; prediction: number | null; locked: boolean; operated: boolean;
  check?: { answer: number; chip: string; ratio: number; within: boolean };
}
export function progress(key: string): Progress | null {
  try {
    const p = JSON.parse(read(K.progress(key)) || 'null');
    if (!p || typeof p.step !== 'number' || !Array.isArray(p.visited)) return null;
    return p;
  } catch { return null; }
}
/** Saves the step progress; the Try-it records stored with it are kept (saveTryit owns them). */
export function saveProgress(key: string, p: Progress) {
  const { tryit: _ignored, ...steps } = p;
  write(K.progress(key), JSON.stringify({ ...steps, tryit: progress(key)?.tryit }));
}
export function tryitRecord(key: string, id: string): TryitRecord | null {
  const r = progress(key)?.tryit?.[id];
  // a record edited or damaged in storage is dropped, not shown half-read
  const ok = r && typeof r === 'object' && typeof r.text === 'string' && typeof r.locked === 'boolean' &&
    typeof r.operated === 'boolean' && (r.prediction === null || Number.isFinite(r.prediction)) &&
    (!r.locked || Number.isFinite(r.prediction));
  return ok ? r : null;
}
export function saveTryit(key: string, id: string, r: TryitRecord | null) {
  const p = progress(key) ?? { step: 1, visited: [], total: 0, done: false };
  const all = { ...(p.tryit ?? {}) };
  if (r) all[id] = r; else delete all[id];
  write(K.progress(key), JSON.stringify({ ...p, tryit: all }));
}
