// `:::when{…}` blocks (web/content/FORMAT.md): text shown only for the chips where it is true — by
// chip kind (kind="tpu", not-kind="tpu") or by an engine output (calc, out, params and one of is,
// not, above, below, or `computes`/`refused`: shown where the engine gives that output a value, or
// where it refuses it or has none — the chip lacks a figure it needs). Shared by the course build (build/content.mjs renders each block for the
// page's chip; build/chip-gate.mjs checks what is inside only where it is shown) and the page
// (src/chapter.ts shows and hides the blocks when the reader changes the chip).

const list = (s) => (s === undefined ? null : String(s).split(/[,\s]+/).filter(Boolean));

/** The condition a `:::when` directive's attributes state; throws on one that states none. */
export function whenCondition(attrs, params) {
  const w = { kinds: list(attrs.kind), notKinds: list(attrs['not-kind']) };
  if (attrs.calc || attrs.out) {
    Object.assign(w, { calc: attrs.calc, out: attrs.out, params: params ?? {}, chip: attrs.chip });
    for (const k of ['is', 'not', 'above', 'below']) if (attrs[k] !== undefined) w[k] = attrs[k];
    if ('computes' in attrs) w.computes = true;
    if ('refused' in attrs) w.refused = true;
    if (!w.calc || !w.out) throw new Error(':::when needs both calc and out');
    if (['is', 'not', 'above', 'below', 'computes', 'refused'].every((k) => w[k] === undefined)) throw new Error(':::when{calc out} needs one of is, not, above, below, computes, refused');
    for (const k of ['above', 'below']) if (w[k] !== undefined && !Number.isFinite(Number(w[k]))) throw new Error(`:::when ${k}="${w[k]}" is not a number`);
  }
  if (!w.kinds && !w.notKinds && !w.calc) throw new Error(':::when needs kind="…", not-kind="…" or calc/out with is, not, above or below');
  return w;
}

/** Whether a block with condition `w` shows on a chip of `kind`, where the engine gave `value`
 *  ({ value } or { error }) for the condition's output. A refusal or a missing value hides it. */
export function whenHolds(w, { kind, value }) {
  if (w.kinds && !w.kinds.includes(kind)) return false;
  if (w.notKinds && w.notKinds.includes(kind)) return false;
  if (!w.calc) return true;
  const none = !value || value.error || value.value === undefined || value.value === null || (typeof value.value === 'number' && !Number.isFinite(value.value));
  if (w.refused) return Boolean(none);
  if (none) return false;
  if (w.computes) return true;
  const v = value.value;
  if (w.is !== undefined && String(v) !== w.is) return false;
  if (w.not !== undefined && String(v) === w.not) return false;
  if (w.above !== undefined && !(typeof v === 'number' && v > Number(w.above))) return false;
  if (w.below !== undefined && !(typeof v === 'number' && v < Number(w.below))) return false;
  return true;
}
