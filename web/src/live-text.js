// A live number written with more significant digits than the engine's formatter gives (a
// chapter's `digits="4"`): the number as it is, then its unit as the engine's own `format` writes
// it after a number, which is not at all for a ratio or a count ("32", never "32 ratio" or
// "8 count"). Shared by the build's prerendering (build/content.mjs) and the page's refresh
// (src/chapter.ts), so both write the same text.
export function digitsText(value, unit, digits, format) {
  const number = Number(value.toPrecision(Number(digits)));
  const bare = !unit || format(1, unit) === '1';
  return bare ? String(number) : `${number} ${unit}`;
}
