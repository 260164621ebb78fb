// The engine's public entry points. Every front (CLI, server, WebAssembly) calls only these.
#pragma once
#include <string>
#include <string_view>

namespace scalelab {

enum class Status { ok, bad_input, unknown_calculator };

struct Evaluation {
  Status status = Status::ok;
  std::string json;     // the result, or {"error": {"param": ..., "message": ...}}
  std::string param;    // on error: the offending parameter ("" when none)
  std::string message;  // on error: what was wrong and what is allowed
};

// Evaluates calculator `name` on a JSON object given as text. Never throws.
Evaluation evaluate(std::string_view name, std::string_view input_json);

// The registry as JSON: every calculator with its schema (units, defaults, ranges, docs).
std::string calculators_json();
// The catalogs as JSON, and the schema of a chip or model object.
std::string chips_json();
std::string models_json();
// The weight/KV-cache formats (data/formats.json) and the published measurements
// (data/measurements.json: {about, band, measurements}) as JSON.
std::string formats_json();
std::string measurements_json();

// Human formatting of a quantity, e.g. (1.39e-3, "s") -> "1.39 ms". The one formatter.
std::string format_quantity(double value, std::string_view unit);
// The unit of an output, read from its name's suffix (API.md): "t_s" -> "s",
// "hbm_bytes_per_s" -> "bytes/s", "train_flops" -> "FLOPs", "cost_usd" -> "usd"; else "".
std::string output_unit(std::string_view output_name);

}  // namespace scalelab
