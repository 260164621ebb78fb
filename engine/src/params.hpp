// Builders for parameter schemas, shared by the catalogs and every calculator.
#pragma once
#include <string>
#include <vector>

#include "catalog.hpp"
#include "schema.hpp"

namespace scalelab::params {

inline Param number(std::string name, std::string unit, double min, double max, json def,
                    std::string doc, Scale scale = Scale::log) {
  Param p;
  p.name = std::move(name);
  p.type = Type::number;
  p.unit = std::move(unit);
  p.min = min;
  p.max = max;
  p.default_value = std::move(def);
  p.scale = scale;
  p.doc = std::move(doc);
  return p;
}

inline Param positive(std::string name, std::string unit, double max, json def, std::string doc,
                      Scale scale = Scale::log) {
  Param p = number(std::move(name), std::move(unit), 0, max, std::move(def), std::move(doc), scale);
  p.min_exclusive = true;
  return p;
}

inline Param integer(std::string name, std::string unit, double min, double max, json def,
                     std::string doc, Scale scale = Scale::log) {
  Param p = number(std::move(name), std::move(unit), min, max, std::move(def), std::move(doc), scale);
  p.type = Type::integer;
  return p;
}

inline Param boolean(std::string name, json def, std::string doc) {
  Param p;
  p.name = std::move(name);
  p.type = Type::boolean;
  p.default_value = std::move(def);
  p.scale = Scale::choice;
  p.doc = std::move(doc);
  return p;
}

inline Param choice(std::string name, std::vector<std::string> choices, json def, std::string doc) {
  Param p;
  p.name = std::move(name);
  p.type = Type::choice;
  p.choices = std::move(choices);
  p.default_value = std::move(def);
  p.scale = Scale::choice;
  p.doc = std::move(doc);
  return p;
}

inline Param text(std::string name, json def, std::string doc) {
  Param p;
  p.name = std::move(name);
  p.type = Type::text;
  p.default_value = std::move(def);
  p.doc = std::move(doc);
  return p;
}

inline Param dtype(std::string name, std::string doc, json def = "bf16") {
  return choice(std::move(name), dtype_names(), std::move(def), std::move(doc));
}

// A weight or KV-cache format: a plain dtype or a quantized format of data/formats.json.
inline Param weight_format(std::string name, std::string doc, json def = "bf16") {
  return choice(std::move(name), weight_format_names(), std::move(def), std::move(doc));
}

inline Param kv_format(std::string name, std::string doc, json def = "bf16") {
  return choice(std::move(name), kv_format_names(), std::move(def), std::move(doc));
}

inline Param chip(json def = nullptr) {
  Param p;
  p.name = "chip";
  p.type = Type::chip;
  p.default_value = std::move(def);
  p.scale = Scale::choice;
  p.doc = "catalog id (scalelab chips) or a chip object";
  return p;
}

inline Param chip_overrides() {
  Param p;
  p.name = "chip_overrides";
  p.type = Type::overrides;
  p.overrides_of = "chip";
  p.doc = "chip fields to replace for this call (flops_per_s merges per dtype)";
  return p;
}

inline Param model(json def = nullptr) {
  Param p;
  p.name = "model";
  p.type = Type::model;
  p.default_value = std::move(def);
  p.scale = Scale::choice;
  p.doc = "catalog id (scalelab models) or a model object {L, D, F, N, K, H, V, …}";
  return p;
}

inline Param model_overrides() {
  Param p;
  p.name = "model_overrides";
  p.type = Type::overrides;
  p.overrides_of = "model";
  p.doc = "model fields to replace for this call";
  return p;
}

inline Param object(std::string name, std::vector<Param> fields, std::string doc) {
  Param p;
  p.name = std::move(name);
  p.type = Type::object;
  p.fields = std::move(fields);
  p.doc = std::move(doc);
  return p;
}

// Free keys (dimension or mesh-axis names) → values of `value`.
inline Param map(std::string name, Param value, std::string doc) {
  Param p;
  p.name = std::move(name);
  p.type = Type::map;
  p.fields = {std::move(value)};
  p.doc = std::move(doc);
  return p;
}

inline Param list(std::string name, Param item, double min_len, double max_len, json def,
                  std::string doc) {
  Param p;
  p.name = std::move(name);
  p.type = Type::list;
  p.fields = {std::move(item)};
  p.min = min_len;
  p.max = max_len;
  p.default_value = std::move(def);
  p.doc = std::move(doc);
  return p;
}

inline Param required(Param p) {
  p.required = true;
  return p;
}

}  // namespace scalelab::params
