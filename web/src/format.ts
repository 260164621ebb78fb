// Reading numbers people type: "240", "2.4e11", "1,024", "240k", "1.4 ms", "578 MB".
const PREFIX: Record<string, number> = { k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, m: 1e-3, u: 1e-6, 'µ': 1e-6, n: 1e-9 };

export function parseNumber(text: string): number | null {
  const t = text.trim().replace(/[,_\u2009\u202f]/g, '').replace(/\u2212/g, '-').replace(/[×x]\s*10\^?\s*([-+]?\d+)/, 'e$1');
  if (!t) return null;
  const m = /^([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*(.*)$/i.exec(t);
  if (!m) return null;
  let v = Number(m[1]);
  const rest = m[2].trim();
  if (rest) {
    const p = rest[0];
    // a prefix followed by a unit word ("ms", "GB", "TFLOP/s") or alone ("240k")
    if (p in PREFIX && (rest.length === 1 || /^[a-zA-Z/]/.test(rest.slice(1)))) {
      // "bytes", "s", "tokens", "FLOPs" without a prefix must not be read as one
      const word = rest.toLowerCase();
      const isBareUnit = /^(s|sec|seconds?|bytes?|b|tokens?|flops?(\/s|\/byte)?|count)$/.test(word);
      if (!isBareUnit) v *= PREFIX[p];
    }
  }
  return Number.isFinite(v) ? v : null;
}

/** A relative difference as a short percentage: 0.034 → "3.4%". */
export function percent(x: number): string {
  const p = Math.abs(x) * 100;
  return `${p < 10 ? p.toPrecision(2) : Math.round(p)}%`;
}

/** A number for an input field, exact and in the shorter of its two spellings:
 *  820000000000 → "8.2e11", 4194304 → "4194304" (not "4.194304e6"), 512 → "512". */
export function fieldText(v: unknown): string {
  if (typeof v !== 'number' || !Number.isFinite(v)) return v == null ? '' : String(v);
  const plain = String(Number(v.toPrecision(12)));
  if (v === 0 || (Math.abs(v) < 1e6 && Math.abs(v) >= 1e-3)) return plain;
  const sci = v.toExponential().replace('e+', 'e').replace(/\.?0+e/, 'e');
  return !plain.includes('e') && plain.length <= sci.length ? plain : sci;
}

/** The value to hand the engine for a typed field: a number if it reads as one, else the raw text (the engine refuses it with its own message). */
export function typedValue(text: string): unknown {
  const v = parseNumber(text);
  return v === null ? text : v;
}
