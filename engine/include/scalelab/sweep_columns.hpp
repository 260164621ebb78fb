// A sweep with its columns of numbers as doubles: what the browser's sweep calls (wasm
// `sweepColumns`), which would otherwise write every number as text and parse it again.
#pragma once
#include <string_view>
#include <vector>

#include "scalelab/engine.hpp"

namespace scalelab {

// The sweep of scalelab::sweep (engine.hpp), its columns of numbers as doubles. `header.json` is sweep()'s JSON, except that
// an output whose values are all numbers or null is the integer c in place of its array: its
// values are values[c × P] to values[c × P + P - 1], P the number of points (the length of
// "errors"), NaN where sweep() has null, each the double its JSON text reads as. Outputs of
// words, verdicts or structures stay arrays. On an error the header is sweep()'s error and
// `values` is empty. Never throws.
struct SweepColumns {
  Evaluation header;
  std::vector<double> values;
};
SweepColumns sweep_columns(std::string_view name, std::string_view params_json, std::string_view spec_json);

}  // namespace scalelab
