// Builders for parameter schemas, shared by the catalogs and every calculator.
#pragma once
#include <string>
#include <vector>

#include "catalog.hpp"
#include "schema.hpp"

namespace scalelab::params {

// Largest size of one named dimension (einsum and sharded-matmul dims): 10^15 elements is
// 2 PB in bf16, more than the HBM of a whole TPU v5p pod (8,960 × 95 GB ≈ 0.85 PB), so no
// physical array is refused, while the book's 2^30-element vectors are far inside.
inline constexpr double kMaxDimensionSize = 1e15;

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

inline Param choice(std::string name, std::vector<std::string> choices, json def, std::string doc,
                    std::vector<std::string> titles = {}) {
  Param p;
  p.name = std::move(name);
  p.type = Type::choice;
  p.choices = std::move(choices);
  p.choice_titles = std::move(titles);
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
  return choice(std::move(name), dtype_names(), std::move(def), std::move(doc), dtype_titles());
}

// A weight or KV-cache format: a plain dtype or a quantized format of data/formats.json.
inline Param weight_format(std::string name, std::string doc, json def = "bf16") {
  return choice(std::move(name), weight_format_names(), std::move(def), std::move(doc),
                weight_format_titles());
}

inline Param kv_format(std::string name, std::string doc, json def = "bf16") {
  return choice(std::move(name), kv_format_names(), std::move(def), std::move(doc),
                kv_format_titles());
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

// ---- Shared parameters: one definition each, reused by every calculator that takes them. ----
namespace scalelab::params {

// Chips in one configuration: 1e7 is beyond any cluster built (the largest are ~1e5–1e6),
// and keeps every product of chips and per-chip figures far from overflow.
inline constexpr double kMaxChips = 1e7;
inline constexpr double kMaxBatch = 1e6;
inline constexpr double kMaxBatchTokens = 1e12;
inline constexpr double kMaxParams = 1e16;

inline Param chips(json def, std::string doc) {
  return integer("chips", "chips", 1, kMaxChips, std::move(def), std::move(doc));
}

inline Param batch(json def, std::string doc) {
  return integer("batch", "sequences", 1, kMaxBatch, std::move(def), std::move(doc));
}

// Global batch in tokens. `zero_means_no_activations` admits 0 for the memory calculators,
// where it asks for the training state alone (weights, gradients, optimizer), no activations.
inline Param batch_tokens(json def, std::string doc, bool zero_means_no_activations = false) {
  double min = zero_means_no_activations ? 0 : 1;
  if (zero_means_no_activations) doc += " (0: the state alone, no activations)";
  return integer("batch_tokens", "tokens", min, kMaxBatchTokens, std::move(def), std::move(doc));
}

// A parameter count. At least 1: a model has whole parameters, and a count below one would
// only push every per-parameter time towards zero and every rate towards overflow.
inline Param param_count(std::string name, json def, std::string doc) {
  return number(std::move(name), "params", 1, kMaxParams, std::move(def), std::move(doc) + " (1 to 1e16)");
}

// A FLOP utilisation. At least 0.001: a run below 0.1% of peak is not using the accelerator,
// and smaller values only stretch times past any meaningful horizon.
inline Param utilisation(std::string name, json def, std::string doc) {
  return number(std::move(name), "ratio", 1e-3, 1, std::move(def), std::move(doc) + " (0.001 to 1)",
                Scale::linear);
}

// A rate (FLOP/s, bytes/s) given instead of a chip's. At least 1 per second: below that no
// device computes or moves anything, and times divided by it would overflow.
inline Param rate(std::string name, std::string unit, double max, std::string doc) {
  return number(std::move(name), std::move(unit), 1, max, nullptr, std::move(doc) + " (at least 1 per second)");
}

// A decode speed the reader measured (all sequences together). Above zero; at most 1e9
// tokens/s, a thousand times beyond the fastest published serving systems.
inline Param measured_tokens_per_s(std::string doc) {
  return positive("measured_tokens_per_s", "tokens/s", 1e9, nullptr, std::move(doc));
}

}  // namespace scalelab::params
