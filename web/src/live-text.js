// A live number written with more significant digits than the engine's formatter gives (a
// chapter's `digits="4"`): the number as it is, then its unit — but a ratio bare, as the engine's
// own format writes it ("32", never "32 ratio"). Shared by the build's prerendering
// (build/content.mjs) and the page's refresh (src/chapter.ts), so both write the same text.
export function digitsText(value, unit, digits) {
  const shown = unit === 'ratio' ? '' : unit;
  return `${Number(value.toPrecision(Number(digits)))}${shown ? ' ' + shown : ''}`;
}
