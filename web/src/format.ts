// Reading numbers people type: "240", "2.4e11", "1,024", "240k", "100M", "70B", "15T tokens",
// "1.4 ms", "578 MB". A letter after the number is a scale (k, M, B for billion, G, T, P, E; m, µ,
// n below one), unless the words after it are a unit alone ("5 s", "3 tokens", "2 bytes").
const PREFIX: Record<string, number> = { k: 1e3, K: 1e3, M: 1e6, B: 1e9, G: 1e9, T: 1e12, P: 1e15, E: 1e18, m: 1e-3, u: 1e-6, 'µ': 1e-6, n: 1e-9 };
const BARE_UNIT = /^(s|sec|seconds?|min|minutes?|h|hours?|days?|bytes?|tokens?|flops?(\/s|\/byte)?|count|params|parameters|chips?|gpus?|sequences?|users?|%)$/i;

export function parseNumber(text: string): number | null {
  const t = text.trim().replace(/[,_\u2009\u202f]/g, '').replace(/\u2212/g, '-').replace(/[×x]\s*10\^?\s*([-+]?\d+)/, 'e$1');
  if (!t) return null;
  const m = /^([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*(.*)$/i.exec(t);
  if (!m) return null;
  let v = Number(m[1]);
  const rest = m[2].trim();
  if (rest && (rest === 'B' || !BARE_UNIT.test(rest))) {
    // a binary scale before bytes ("24 GiB", "64 KiB/s"): powers of 1,024 (as a decimal "G" it read 24 GB)
    const binary = /^([KMGTPE])i\s*(B|B\/s|bytes?|bytes?\/s)?$/.exec(rest);
    if (binary) { v *= 1024 ** ('KMGTPE'.indexOf(binary[1]) + 1); return Number.isFinite(v) ? v : null; }
    // a scale, alone ("240k", "70B") or before a unit ("1.4 ms", "578 MB", "15T tokens")
    const scaled = /^([kKMBGTPEmuµn])\s*([a-zA-Z/%]*)$/.exec(rest);
    if (!scaled) return null;
    if (scaled[1] === 'B' && scaled[2]) return null; // "B" is billion alone, never a unit's prefix
    v *= PREFIX[scaled[1]];
  }
  return Number.isFinite(v) ? v : null;
}

/** Words for people for the schema's unit ids that are not words (the engine says "usd" for a
 *  price, "params" for a count of parameters, "ratio" for a share written 0 to 1; a count needs
 *  none): the custom chip form's and the labs' fields both read them here. */
export const UNIT_WORDS: Record<string, string> = { usd: 'US dollars', params: 'parameters', count: '', ratio: '0 to 1', s: 'seconds' };

/** A relative difference as a short percentage: 0.034 → "3.4%". */
export function percent(x: number): string {
  const p = Math.abs(x) * 100;
  return `${p < 10 ? p.toPrecision(2) : Math.round(p)}%`;
}

/** The scales a field writes a large number with, as people write them: "100M", "70B", "15T"; a
 *  number of bytes in decimal units instead, "1 GB" (a bare "1B" reads as a billion, or one byte). */
const FIELD_SCALES: [number, string][] = [[1e12, 'T'], [1e9, 'B'], [1e6, 'M'], [1e3, 'k']];
const BYTE_SCALES: [number, string][] = [[1e12, ' TB'], [1e9, ' GB'], [1e6, ' MB'], [1e3, ' kB']];
/** memory sold in binary units, where no decimal form is exact: 25769803776 → "24 GiB" */
const BINARY_SCALES: [number, string][] = [[2 ** 40, ' TiB'], [2 ** 30, ' GiB'], [2 ** 20, ' MiB'], [2 ** 10, ' KiB']];

/** Units a field writes in their own scaled form (the number then carries its unit, which the
 *  reader may type back: "1.5 GHz", "197 TFLOP/s", "1 µs"). Seconds only below a millisecond, where
 *  the plain figure would need e-notation ("1e-6"). */
const UNIT_SCALES: Record<string, [number, string][]> = {
  Hz: [[1e9, ' GHz'], [1e6, ' MHz'], [1e3, ' kHz']],
  'FLOP/s': [[1e12, ' TFLOP/s'], [1e9, ' GFLOP/s'], [1e6, ' MFLOP/s']],
  'OP/s': [[1e12, ' TOP/s'], [1e9, ' GOP/s'], [1e6, ' MOP/s']],
  s: [[1e-3, ' ms'], [1e-6, ' µs'], [1e-9, ' ns']],
};
/** a number with its thousands grouped, as typed back it reads the same ("1,321.2") */
const groupedText = (y: number) => y.toLocaleString('en-US', { maximumFractionDigits: 12 });

/** A number for an input field, exact and as people write it: 100000000 → "100M", 7e10 → "70B",
 *  1.5e13 → "15T", 4194304 → "4,194,304" (no shorter exact form: grouped), 512 → "512", 1e24 → "1e24";
 *  with unit "bytes", 1e9 → "1 GB" and 25769803776 → "24 GiB"; with "bytes/s", 4e11 → "400 GB/s". */
export function fieldText(v: unknown, unit?: string): string {
  if (typeof v !== 'number' || !Number.isFinite(v)) return v == null ? '' : String(v);
  const plain = String(Number(v.toPrecision(12)));
  const a = Math.abs(v);
  // bytes and bytes per second in their units ("80 GB", "400 GB/s": a bare "400B" read as bytes)
  const bytes = unit === 'bytes' || unit === 'bytes/s';
  const per = unit === 'bytes/s' ? '/s' : '';
  // a clock in GHz, a FLOP rate in TFLOP/s, a hop latency in µs: the unit the catalog's sources write
  const unitScales = UNIT_SCALES[unit ?? ''];
  if (unitScales && v > 0) {
    const [scale, suffix] = unitScales.find(([sc]) => a >= sc) ?? unitScales[unitScales.length - 1];
    const x = v / scale, y = Number(x.toPrecision(5));
    if (unit === 's' ? a < 1e-3 && a >= 1e-12 : a >= unitScales[unitScales.length - 1][0]) {
      return `${Math.abs(y - x) <= 1e-12 * x ? groupedText(y) : groupedText(Number(x.toPrecision(4)))}${suffix}`;
    }
  }
  if (a >= (bytes ? 1e3 : 1e4) && a < 1e16) {
    for (const scales of bytes ? [BYTE_SCALES, BINARY_SCALES] : [FIELD_SCALES]) {
      for (const [scale, suffix] of scales) {
        const x: number = v / scale;
        // four digits, or five where the fifth is one decimal ("1321.2T"), exact to the double's rounding
        const y = Number(x.toPrecision(Math.abs(x) >= 1e3 ? 5 : 4));
        if (Math.abs(x) >= 1 && Math.abs(x) < 1e4 && Math.abs(y * scale - v) <= 1e-12 * Math.abs(v)) return `${y}${suffix}${per}`;
      }
    }
    // memory or a bandwidth with no exact form in any unit (a PCIe link's 31,507,692,307.7 bytes/s):
    // four figures in the largest decimal unit, "31.51 GB/s" (the custom chip form keeps the exact
    // figure while its field is left as shown)
    if (bytes && !Number.isInteger(v)) {
      const [scale, suffix] = BYTE_SCALES.find(([sc]) => a >= sc)!;
      return `${Number((v / scale).toPrecision(4))}${suffix}${per}`;
    }
  }
  // a whole number with no exact scale, in groups of three as people write it ("4,194,304")
  if (Number.isInteger(v) && a >= 1e3 && a < 1e16) return v.toLocaleString('en-US');
  if (v === 0 || (a < 1e16 && a >= 1e-3)) return plain;
  const sci = v.toExponential().replace('e+', 'e').replace(/\.?0+e/, 'e');
  return !plain.includes('e') && plain.length <= sci.length ? plain : sci;
}

/** The value to hand the engine for a typed field: a number if it reads as one, else the raw text (the engine refuses it with its own message). */
export function typedValue(text: string): unknown {
  const v = parseNumber(text);
  return v === null ? text : v;
}
