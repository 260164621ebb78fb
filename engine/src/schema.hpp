// Calculator schemas: the single source of truth for every parameter's type, unit,
// default, range and doc. Validation, the CLI's help, the API's /calculators and the
// web labs' controls are all built from these.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "json.hpp"

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
  Type type = Type::number;
  std::string unit;            // "bytes", "s", "FLOP/s", "count", "" ...
  json default_value;          // null: no default (optional, or required if `required`)
  double min = 0;
  double max = 1e20;
  bool min_exclusive = false;  // (min, max] instead of [min, max]
  Scale scale = Scale::linear;
  std::vector<std::string> choices;
  std::string doc;
  std::vector<Param> fields;   // object: its fields; map/list: one entry describing values
  bool required = false;
  std::string group;           // exclusive input forms, e.g. "flops" vs "matmul" vs "einsum"
  std::string overrides_of;    // for Type::overrides: "chip" or "model"
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
};

json param_schema_json(const Param& p);
json calculator_schema_json(const Calculator& c);

}  // namespace scalelab
