// How a calculator declares one of its outputs: in core because a result (result.hpp) keeps its
// outputs' values by their declared positions. The schema (schema/schema.hpp) lists a
// calculator's outputs with these; each calculator declares its own beside it (core/output_rows.hpp).
#pragma once
#include <string_view>

#include "core/name.hpp"

namespace scalelab {

// One output of a calculator. Results are written from these declarations: an output the
// calculator emits without declaring it, or leaves out (or null) when it is not nullable,
// is an engine fault.
// Constant data (each calculator's kOutputs): the text lives in the module's data, not in strings built at
// first use.
struct Output {
  std::string_view name;
  std::string_view unit;   // "s", "bytes", "FLOP/s", "tokens", "ratio", "" for words, verdicts and objects
  std::string_view label;  // for people: "time to first token"
  std::string_view doc;    // one line: what it is
  bool nullable = false;   // null where the inputs or the chip leave it undefined
  // Made by training_run's layout search (its ranked and refused layouts, their counts, the named
  // layout's check): the schema says so ("layout_search": true), and a lab that keeps a search
  // puts these outputs into a run evaluated without it while only parameters it does not read move.
  bool layout_search = false;
};

}  // namespace scalelab
