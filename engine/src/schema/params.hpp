// Builders for parameter schemas, shared by the catalogs and every calculator (params.cpp).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.hpp"
#include "schema/schema.hpp"

namespace scalelab::params {

// Largest size of one named dimension (einsum and sharded-matmul dims): 10^15 elements is
// 2 PB in bf16, more than the HBM of a whole TPU v5p pod (8,960 × 95 GB ≈ 0.85 PB), so no
// physical array is refused, while the book's 2^30-element vectors are far inside.
inline constexpr double kMaxDimensionSize = 1e15;

Param number(std::string_view name, std::string_view unit, double min, double max, json def, std::string_view doc, Scale scale = Scale::log);

Param positive(std::string_view name, std::string_view unit, double max, json def, std::string_view doc, Scale scale = Scale::log);

Param integer(std::string_view name, std::string_view unit, double min, double max, json def, std::string_view doc, Scale scale = Scale::log);

Param boolean(std::string_view name, json def, std::string_view doc);

Param choice(std::string_view name, std::vector<std::string> choices, json def, std::string_view doc, std::vector<std::string> titles = {});

Param text(std::string_view name, json def, std::string_view doc);

Param dtype(std::string_view name, std::string_view doc, json def = "bf16");

// A weight or KV-cache format: a plain dtype or a quantized format of data/formats.json.
Param weight_format(std::string_view name, std::string_view doc, json def = "bf16");

Param kv_format(std::string_view name, std::string_view doc, json def = "bf16");

Param chip(json def = nullptr);

Param chip_overrides();

Param model(json def = nullptr);

Param model_overrides();

Param object(std::string_view name, std::vector<Param> fields, std::string_view doc);

// Free keys (dimension or mesh-axis names) → values of `value`.
Param map(std::string_view name, Param value, std::string_view doc);

Param list(std::string_view name, Param item, double min_len, double max_len, json def, std::string_view doc);

Param required(Param p);

// `p` with its label for people, for a parameter whose name has no shared label in schema/labels.cpp
// (a calculator's own new parameter says its words where it is declared).
Param labelled(std::string_view label, Param p);

}  // namespace scalelab::params

// ---- Shared parameters: one definition each, reused by every calculator that takes them. ----
namespace scalelab::params {

// Chips in one configuration: 1e7 is beyond any cluster built (the largest are ~1e5–1e6),
// and keeps every product of chips and per-chip figures far from overflow.
inline constexpr double kMaxChips = 1e7;
inline constexpr double kMaxBatch = 1e6;
inline constexpr double kMaxBatchTokens = 1e12;
inline constexpr double kMaxParams = 1e16;

Param chips(json def, std::string_view doc);

Param batch(json def, std::string_view doc);

// Global batch in tokens. `zero_means_no_activations` admits 0 for the memory calculators,
// where it asks for the training state alone (weights, gradients, optimizer), no activations.
Param batch_tokens(json def, std::string_view doc, bool zero_means_no_activations = false);

// A parameter count. At least 1: a model has whole parameters, and a count below one would
// only push every per-parameter time towards zero and every rate towards overflow.
Param param_count(std::string_view name, json def, std::string_view doc);

// A FLOP utilisation. At least 0.001: a run below 0.1% of peak is not using the accelerator,
// and smaller values only stretch times past any meaningful horizon.
Param utilisation(std::string_view name, json def, std::string_view doc);

// A rate (FLOP/s, bytes/s) given instead of a chip's. At least 1 per second: below that no
// device computes or moves anything, and times divided by it would overflow.
Param rate(std::string_view name, std::string_view unit, double max, std::string_view doc);

// A decode speed the reader measured (all sequences together). Above zero; at most 1e9
// tokens/s, a thousand times beyond the fastest published serving systems.
Param measured_tokens_per_s(std::string_view doc);

}  // namespace scalelab::params
