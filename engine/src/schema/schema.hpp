// Calculator schemas: the single source of truth for every parameter's type, unit,
// default, range and doc. Validation, the CLI's help, the API's /calculators and the
// web labs' controls are all built from these. Types only: the schema's JSON text is written by
// io/schema_json.cpp, the parameters built by params.hpp, labelled by labels.hpp.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "core/output.hpp"

namespace scalelab {

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
  // A default that depends on the chip: {kind name: value} for every kind of chip_kind_names()
  // (null when the default is default_value). Filled in once the chip is resolved (Args).
  json default_by_chip_kind;
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
  // Omitted, a search tries every value (training_run's layout search over the micro-batch, ZeRO
  // stage, rematerialisation policy and pipeline schedule); given, it narrows the search to that
  // value. Its default is then null: a lab offers "any" for it from this flag.
  bool searched = false;
  // training_run's layout search reads it ("layout_search": true in the schema); the others set
  // the run's time, cost and expected range only, and moving one leaves every output the search
  // makes (Output::layout_search) as it was.
  bool layout_search = false;
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
  std::vector<Output> outputs = {};  // its declared outputs (the rows beside it, core/output_rows.hpp)
};

// The schemas as JSON text are the engine's calculators_json, calculator_json and
// object_fields_json (scalelab/engine.hpp), written in io/schema_json.cpp.

}  // namespace scalelab
