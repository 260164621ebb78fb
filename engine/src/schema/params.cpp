// The parameter builders declared in params.hpp. Out of line, and taking names, units and docs as
// string_views, so that a calculator's schema costs a call per parameter and no std::string
// built (and destroyed) at every call site.
#include "schema/params.hpp"

namespace scalelab::params {

namespace {

// A parameter's name, type and one-line doc; the builders below add the rest.
Param described(std::string_view name, Type type, std::string_view doc) {
  Param p;
  p.name = name;
  p.type = type;
  p.doc = doc;
  return p;
}

// A parameter that takes one of a set of values (a choice, true or false, a catalog id or object).
Param one_of(std::string_view name, Type type, json def, std::string_view doc) {
  Param p = described(name, type, doc);
  p.default_value = std::move(def);
  p.scale = Scale::choice;
  return p;
}

// Fields of a chip or a model to replace for one call.
Param overrides_of(std::string_view of, std::string_view doc) {
  Param p = described(std::string(of) + "_overrides", Type::overrides, doc);
  p.overrides_of = of;
  return p;
}

}  // namespace

Param number(std::string_view name, std::string_view unit, double min, double max, json def, std::string_view doc, Scale scale) {
  Param p = described(name, Type::number, doc);
  p.unit = unit;
  p.min = min;
  p.max = max;
  p.default_value = std::move(def);
  p.scale = scale;
  return p;
}

Param positive(std::string_view name, std::string_view unit, double max, json def, std::string_view doc, Scale scale) {
  Param p = number(name, unit, 0, max, std::move(def), doc, scale);
  p.min_exclusive = true;
  return p;
}

Param integer(std::string_view name, std::string_view unit, double min, double max, json def, std::string_view doc, Scale scale) {
  Param p = number(name, unit, min, max, std::move(def), doc, scale);
  p.type = Type::integer;
  return p;
}

Param boolean(std::string_view name, json def, std::string_view doc) {
  return one_of(name, Type::boolean, std::move(def), doc);
}

Param choice(std::string_view name, std::vector<std::string> choices, json def, std::string_view doc, std::vector<std::string> titles) {
  Param p = one_of(name, Type::choice, std::move(def), doc);
  p.choices = std::move(choices);
  p.choice_titles = std::move(titles);
  return p;
}

Param text(std::string_view name, json def, std::string_view doc) {
  Param p = described(name, Type::text, doc);
  p.default_value = std::move(def);
  return p;
}

Param dtype(std::string_view name, std::string_view doc, json def) {
  return choice(name, dtype_names(), std::move(def), doc, dtype_titles());
}

Param weight_format(std::string_view name, std::string_view doc, json def) {
  return choice(name, weight_format_names(), std::move(def), doc,
                weight_format_titles());
}

Param kv_format(std::string_view name, std::string_view doc, json def) {
  return choice(name, kv_format_names(), std::move(def), doc,
                kv_format_titles());
}

Param chip(json def) {
  return one_of("chip", Type::chip, std::move(def), "catalog id (scalelab chips) or a chip object");
}

Param chip_overrides() {
  return overrides_of("chip", "chip fields to replace for this call (flops_per_s merges per dtype)");
}

Param model(json def) {
  return one_of("model", Type::model, std::move(def),
                "catalog id (scalelab models) or a model object {L, D, F, N, K, H, V, …}");
}

Param model_overrides() { return overrides_of("model", "model fields to replace for this call"); }

Param object(std::string_view name, std::vector<Param> fields, std::string_view doc) {
  Param p = described(name, Type::object, doc);
  p.fields = std::move(fields);
  return p;
}

Param map(std::string_view name, Param value, std::string_view doc) {
  Param p = described(name, Type::map, doc);
  p.fields = {std::move(value)};
  return p;
}

Param list(std::string_view name, Param item, double min_len, double max_len, json def, std::string_view doc) {
  Param p = described(name, Type::list, doc);
  p.fields = {std::move(item)};
  p.min = min_len;
  p.max = max_len;
  p.default_value = std::move(def);
  return p;
}

Param required(Param p) {
  p.required = true;
  return p;
}

Param labelled(std::string_view label, Param p) {
  p.label = label;
  return p;
}

Param chips(json def, std::string_view doc) {
  return integer("chips", "chips", 1, kMaxChips, std::move(def), doc);
}

Param batch(json def, std::string_view doc) {
  return integer("batch", "sequences", 1, kMaxBatch, std::move(def), doc);
}

Param batch_tokens(json def, std::string_view doc, bool zero_means_no_activations) {
  double min = zero_means_no_activations ? 0 : 1;
  std::string words(doc);
  if (zero_means_no_activations) words += " (0: the state alone, no activations)";
  return integer("batch_tokens", "tokens", min, kMaxBatchTokens, std::move(def), words);
}

Param param_count(std::string_view name, json def, std::string_view doc) {
  return number(name, "params", 1, kMaxParams, std::move(def), std::string(doc) + " (1 to 10¹⁶)");
}

Param utilisation(std::string_view name, json def, std::string_view doc) {
  return number(name, "ratio", 1e-3, 1, std::move(def), std::string(doc) + " (0.001 to 1)",
                Scale::linear);
}

Param rate(std::string_view name, std::string_view unit, double max, std::string_view doc) {
  return number(name, unit, 1, max, nullptr, std::string(doc) + " (at least 1 per second)");
}

Param measured_tokens_per_s(std::string_view doc) {
  return positive("measured_tokens_per_s", "tokens/s", 1e9, nullptr, doc);
}

}  // namespace scalelab::params
