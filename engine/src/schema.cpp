#include "schema.hpp"

#include "registry.hpp"
#include "scalelab/engine.hpp"

namespace scalelab {
namespace {

const char* type_name(Type t) {
  switch (t) {
    case Type::number: return "number";
    case Type::integer: return "integer";
    case Type::boolean: return "boolean";
    case Type::choice: return "choice";
    case Type::text: return "text";
    case Type::chip: return "chip";
    case Type::model: return "model";
    case Type::object: return "object";
    case Type::map: return "map";
    case Type::list: return "list";
    case Type::bool_or_list: return "bool_or_list";
    case Type::overrides: return "overrides";
  }
  return "unknown";
}

const char* scale_name(Scale s) {
  switch (s) {
    case Scale::linear: return "linear";
    case Scale::log: return "log";
    case Scale::choice: return "choice";
  }
  return "linear";
}

}  // namespace

json param_schema_json(const Param& p) {
  json j = json::object();
  j["name"] = p.name;
  j["label"] = p.label;
  j["type"] = type_name(p.type);
  j["unit"] = p.unit;
  j["default"] = p.default_value;
  if (p.type == Type::number || p.type == Type::integer) {
    j["min"] = p.min;
    j["max"] = p.max;
    j["min_exclusive"] = p.min_exclusive;
  }
  if (p.type == Type::list) {
    j["min_items"] = p.min;
    j["max_items"] = p.max;
  }
  j["scale"] = scale_name(p.scale);
  if (!p.choices.empty()) j["choices"] = p.choices;
  if (!p.choice_titles.empty()) j["choice_titles"] = p.choice_titles;
  j["doc"] = p.doc;
  j["required"] = p.required;
  if (!p.overrides_of.empty()) j["overrides_of"] = p.overrides_of;
  if (!p.fields.empty()) {
    json fields = json::array();
    for (const Param& f : p.fields) fields.push_back(param_schema_json(f));
    j["fields"] = fields;
  }
  return j;
}

json output_schema_json(const Output& o) {
  return {{"name", o.name}, {"unit", o.unit}, {"label", o.label}, {"doc", o.doc}, {"nullable", o.nullable}};
}

json calculator_schema_json(const Calculator& c) {
  json params = json::array();
  for (const Param& p : c.params) params.push_back(param_schema_json(p));
  json outputs = json::array();
  for (const Output& o : c.outputs) outputs.push_back(output_schema_json(o));
  return {{"name", c.name}, {"title", c.title}, {"chapters", c.chapters}, {"doc", c.doc},
          {"params", params}, {"outputs", outputs}};
}

std::string calculator_json(std::string_view name) {
  const Calculator* c = find_calculator(name);
  return c ? calculator_schema_json(*c).dump() : "null";
}

}  // namespace scalelab
