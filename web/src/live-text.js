// A live number written with more significant digits than the engine's formatter gives (a
// chapter's `digits="4"`): the number as it is, then its unit as the engine's own `format` writes
// it after a number, which is not at all for a ratio or a count ("32", never "32 ratio" or
// "8 count"). Shared by the build's prerendering (build/content.mjs) and the page's refresh
// (src/chapter.ts), so both write the same text.
// A million or more is scaled as the engine scales it: the digits in front of what the engine writes
// after a "1" of that size ("13.02B params", "4.096 GB"), never "13020000000 params".
export function digitsText(value, unit, digits, format) {
  const number = Number(value.toPrecision(Number(digits)));
  const group = Math.floor(Math.log10(Math.abs(number)) / 3);
  if (group >= 2) {
    const one = format(10 ** (3 * group), unit);
    if (/^1(?![\d.,])/.test(one)) return `${Number((number / 10 ** (3 * group)).toPrecision(Number(digits)))}${one.slice(1)}`;
  }
  const bare = !unit || format(1, unit) === '1';
  return bare ? String(number) : `${number} ${unit}`;
}
