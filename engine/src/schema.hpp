// Calculator schemas: the single source of truth for every parameter's type, unit,
// default, range and doc. Validation, the CLI's help, the API's /calculators and the
// web labs' controls are all built from these.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json.hpp"

namespace scalelab {

// Two names equal: their sizes and first letters first, so that nearly every comparison of a
// parameter's or an output's name that fails is one or two tests and no call of memcmp (8 % of
// a native numbers-only serving evaluation went to memcmp on names of equal length). (libc++'s
// string_view == goes through compare() and a std::min that the shipped -Oz WebAssembly build
// keeps as calls: 4 % of a numbers-only decode evaluation there.)
[[gnu::always_inline]] inline bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && (a.empty() || (a[0] == b[0] &&
         std::char_traits<char>::compare(a.data() + 1, b.data() + 1, a.size() - 1) == 0));
}

enum class Type {
  number,        // finite real within [min, max]
  integer,       // whole number within [min, max]
  boolean,
  choice,        // one of `choices`
  text,          // free text (an einsum, a sharding spec)
  chip,          // catalog id or chip object
  model,         // catalog id or model object
  object,        // fixed keys, described by `fields`
  map,           // free keys (dimension or axis names) -> values described by `fields[0]`
  list,          // list of values described by `fields[0]`
  bool_or_list,  // a boolean, or a list of booleans
  overrides,     // chip_overrides / model_overrides: partial object of catalog fields
};

enum class Scale { linear, log, choice };

struct Param {
  std::string name;
  std::string label;           // for people: "bytes per parameter" for bytes_per_param
  Type type = Type::number;
  std::string unit;            // "bytes", "s", "FLOP/s", "count", "" ...
  json default_value;          // null: no default (optional, or required if `required`)
  double min = 0;
  double max = 1e20;
  bool min_exclusive = false;  // (min, max] instead of [min, max]
  Scale scale = Scale::linear;
  std::vector<std::string> choices;
  std::vector<std::string> choice_titles;  // for people, one per choice (or none)
  std::string doc;
  std::vector<Param> fields;   // object: its fields; map/list: one entry describing values
  bool required = false;
  std::string group;           // exclusive input forms, e.g. "flops" vs "matmul" vs "einsum"
  std::string overrides_of;    // for Type::overrides: "chip" or "model"
};

// One output of a calculator. Results are written from these declarations: an output the
// calculator emits without declaring it, or leaves out (or null) when it is not nullable,
// is an engine fault.
// Constant data (outputs.cpp): the text lives in the module's data, not in strings built at
// first use.
struct Output {
  std::string_view name;
  std::string_view unit;   // "s", "bytes", "FLOP/s", "tokens", "ratio", "" for words, verdicts and objects
  std::string_view label;  // for people: "time to first token"
  std::string_view doc;    // one line: what it is
  bool nullable = false;   // null where the inputs or the chip leave it undefined
};

struct Result;
class Args;

struct Calculator {
  std::string name;
  std::string title;
  std::vector<int> chapters;
  std::string doc;
  std::vector<Param> params;
  std::function<void(const Args&, Result&)> compute;
  std::vector<Output> outputs = {};  // filled by the registry from outputs.cpp
};

// The schemas as JSON text are the engine's calculators_json, calculator_json and
// object_fields_json (scalelab/engine.hpp), written in schema.cpp.

}  // namespace scalelab
