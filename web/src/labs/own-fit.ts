// What would load on the reader's own device when the model chosen does not: a lab that prices a
// model's speed (decode, serving) gives no speed for a model whose weights cannot be held, and
// offers instead the settings that would load, each one asked of the engine at that setting (the
// pattern of memory-budget's own-device fixes). Presentation only: the engine says what fits.
import { isError, type Engine } from '../engine';

/** One setting that loads: the parameters to change, in words for a button. */
export interface FitChoice { set: Record<string, unknown>; words: string }

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Whether a result of decode or serving holds at least one sequence (the model loads). */
export function loads(outputs: Record<string, unknown>): boolean {
  const m = num(outputs.max_batch);
  return m === null || m >= 1;
}

/**
 * The settings that would load on this device, at most three: the weight formats of the most bits
 * that this device runs (`formats`, the chip's weight_formats) and that fit, then the largest
 * catalog model that fits in the format chosen. `calculator` is evaluated at each candidate with
 * `params` changed by it; a candidate loads where `loads` says so.
 */
export function whatFits(engine: Engine, calculator: string, params: Record<string, unknown>, formats: readonly string[] | null | undefined,
  formatWords: (id: string) => string, first: FitChoice[] = []): FitChoice[] {
  const at = (change: Record<string, unknown>) => {
    const r = engine.evaluate(calculator, { ...params, ...change }, { steps: false });
    return !isError(r) && loads(r.outputs as Record<string, unknown>);
  };
  const bits = new Map(engine.formats.map((f) => [f.id, f.bits]));
  const current = String(params.weight_dtype ?? 'bf16');
  const now = bits.get(current) ?? 16;
  // (settings the lab names first, e.g. the chips a slice needs, where they load)
  const out: FitChoice[] = first.filter((c) => at(c.set));
  // formats with fewer bits per weight than the one chosen, most bits first: the two of best quality that load
  const fewer = [...(formats ?? [])].filter((f) => (bits.get(f) ?? now) < now).sort((a, b) => (bits.get(b) ?? 0) - (bits.get(a) ?? 0));
  const formatsTo = out.length + 2;
  for (const f of fewer) {
    if (out.length >= formatsTo) break;
    if (at({ weight_dtype: f })) out.push({ set: { weight_dtype: f }, words: `${formatWords(f)} weights` });
  }
  // the largest catalog model that loads in this format (its weight bytes from the decode calculator)
  let best: { id: string; bytes: number } | null = null;
  for (const m of engine.modelIndex) {
    if (m.id === params.model) continue;
    const d = engine.evaluate('decode', { model: m.id, chip: params.chip, weight_dtype: current, chips: 1, batch: 1 }, { steps: false });
    const bytes = isError(d) ? null : num(d.outputs.weight_bytes);
    if (bytes === null || (best && bytes <= best.bytes)) continue;
    if (at({ model: m.id })) best = { id: m.id, bytes };
  }
  if (best) out.push({ set: { model: best.id }, words: `${engine.modelName(best.id) || best.id} (a smaller model, ${engine.format(best.bytes, 'bytes')} of weights)` });
  return out;
}
