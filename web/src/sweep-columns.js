// A sweep whose columns of numbers come as doubles (the engine's sweepColumns/sweepValues,
// engine/include/scalelab/sweep_columns.hpp), turned back into the sweep's JSON shape: in the
// header each such output is a column number c, its values `values[c * P .. c * P + P - 1]`
// (P points, the length of `errors`), NaN where the JSON sweep has null. Plain JavaScript so that
// the Node tests (tests/node/sweep.test.mjs) check the very code the course runs.

/** The sweep result of `headerText` (sweepColumns' JSON) and `values` (sweepValues' Float64Array,
 *  read before any other call into the engine): the same object JSON.parse of sweep() gives. */
export function sweepFromColumns(headerText, values) {
  const result = JSON.parse(headerText);
  if (result.error) return result;
  const points = result.errors.length;
  for (const [name, column] of Object.entries(result.outputs)) {
    if (typeof column !== 'number') continue;
    const at = column * points;
    const out = new Array(points);
    for (let i = 0; i < points; i++) {
      const v = values[at + i];
      out[i] = v === v ? v : null; // NaN (a null point or output) is null, as in the JSON
    }
    result.outputs[name] = out;
  }
  return result;
}
