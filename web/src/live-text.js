// A live number written with more significant digits than the engine's formatter gives (a
// chapter's `digits="4"`): the number as it is, then its unit as the engine's own `format` writes
// it after a number, which is not at all for a ratio or a count ("32", never "32 ratio" or
// "8 count"). Shared by the build's prerendering (build/content.mjs) and the page's refresh
// (src/chapter.ts), so both write the same text.
// A million or more is scaled as the engine scales it: the digits in front of what the engine writes
// after a "1" of that size ("13.02B params", "4.096 GB"), never "13020000000 params".
export function digitsText(value, unit, digits, format) {
  // a share (0.933) reads as the labs' percentage, to those digits: "93 %"
  if (unit === 'share') return `${Number((value * 100).toPrecision(Number(digits)))}\u00a0%`;
  const number = Number(value.toPrecision(Number(digits)));
  const group = Math.floor(Math.log10(Math.abs(number)) / 3);
  if (group >= 2) {
    const one = format(10 ** (3 * group), unit);
    if (/^1(?![\d.,])/.test(one)) return `${Number((number / 10 ** (3 * group)).toPrecision(Number(digits)))}${one.slice(1)}`;
  }
  const bare = !unit || format(1, unit) === '1';
  return bare ? String(number) : `${number} ${unit}`;
}

// `:verdict{…}`: an engine verdict ("memory", "compute", "comms"; fits true/false) as the words a
// sentence needs. words="memory:waits on memory|compute:…" or words="fits|does not fit" (for a
// true/false output) overrides these.
export const VERDICT_WORDS = {
  memory: 'memory-bound', compute: 'compute-bound', comms: 'comms-bound', latency: 'latency-bound',
  bandwidth: 'bandwidth-bound', true: 'fits', false: 'does not fit',
};
export function verdictText(value, words) {
  if (typeof value !== 'string' && typeof value !== 'boolean') return null;
  const own = {};
  if (words) {
    const parts = String(words).split('|');
    if (typeof value === 'boolean' && parts.length === 2 && !parts.some((p) => p.includes(':'))) return value ? parts[0] : parts[1];
    for (const p of parts) { const i = p.indexOf(':'); if (i > 0) own[p.slice(0, i).trim()] = p.slice(i + 1).trim(); }
  }
  return own[String(value)] ?? VERDICT_WORDS[String(value)] ?? String(value);
}

// `:compare{…}`: how one engine output stands to another, in words that follow the numbers.
//   form="times" (default): "about twice", "about a quarter", "1.6×", "about the same as"
//   form="more": "1.6× more", "2.5× less", "about as much"; for an output counted in things (its unit
//     sequences, tokens, chips, requests per second …) "2.5× fewer" and "about as many"
//   form="ratio": "1.62×"
//   words="lower|same|higher": the author's three words for a < b, a ≈ b (within 3%), a > b
const NICE = [[1 / 8, 'an eighth'], [1 / 4, 'a quarter'], [1 / 3, 'a third'], [1 / 2, 'half'], [2 / 3, 'two thirds'], [3 / 4, 'three quarters'],
  [1.5, 'one and a half times'], [2, 'twice'], [3, 'three times'], [4, 'four times'], [8, 'eight times'], [16, 'sixteen times']];
const SAME = 0.03, NEAR = 0.06;
const times = (r) => (r >= 9.95 ? String(Math.round(r)) : String(Number(r.toPrecision(2))));
/** Units of outputs that count things (a count, or a count per second): "fewer", not "less". */
const COUNTED = /^(count|1|(sequences?|tokens?|chips?|devices?|GPUs?|requests?|runs?|steps?|layers?|experts?|users?|cards?))(\/s)?$|^1\/s$/;
export const isCounted = (unit) => typeof unit === 'string' && COUNTED.test(unit.trim());
export function compareText(a, b, form, words, unit) {
  if (typeof a !== 'number' || typeof b !== 'number' || !Number.isFinite(a) || !Number.isFinite(b) || b === 0 || a === 0) return null;
  const r = a / b;
  if (words) {
    const [lower, same, higher] = String(words).split('|');
    return Math.abs(r - 1) <= SAME ? same : r < 1 ? lower : higher;
  }
  if (form === 'ratio') return `${Number(r.toPrecision(3))}×`;
  if (form === 'more') {
    const counted = isCounted(unit);
    return Math.abs(r - 1) <= SAME ? (counted ? 'about as many' : 'about as much') : r > 1 ? `${times(r)}× more` : `${times(1 / r)}× ${counted ? 'fewer' : 'less'}`;
  }
  if (Math.abs(r - 1) <= SAME) return 'about the same as';
  const nice = NICE.find(([v]) => Math.abs(r / v - 1) <= NEAR);
  return nice ? `about ${nice[1]}` : `${times(r)}×`;
}

// A chapter's chip_needs (web/content/FORMAT.md): the note at its top on a chip without one of the
// figures its arithmetic needs, and what each of its numbers says there instead of "n/a".
export function chipNeedsText(chip, labels) {
  return `The catalog has no ${labels.join(' or ')} figure for the ${chip}, and this chapter's arithmetic needs it, so its numbers here say so instead of a value. Pick another chip at the top, or give the figure as a custom chip (Chip → Custom chip…).`;
}
export const chipNeedsShort = (labels) => `(no ${labels.join(' or ')} figure)`;

// An output that is a list of numbers (a local shape, [2, 1024]) reads as the shape it is, not "—".
export const isNumberList = (v) => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number' && Number.isFinite(x));
export const numberListText = (v) => `[${v.join(', ')}]`;
