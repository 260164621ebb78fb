// The engine's public entry points. Every front (CLI, server, WebAssembly) calls only these.
#pragma once
#include <string>
#include <string_view>

namespace scalelab {

// bad_input and unknown_calculator are the caller's to fix (CLI exit 2, HTTP 400/404);
// internal is an engine fault, never the caller's doing (CLI exit 3, HTTP 500).
enum class Status { ok, bad_input, unknown_calculator, internal };

// The status as it appears in an error's JSON: "bad_input", "unknown_calculator", "internal".
const char* status_name(Status status);

struct Evaluation {
  Status status = Status::ok;
  std::string json;     // the result, or {"error": {"status": ..., "param": ..., "message": ...}}
  std::string param;    // on error: the offending parameter ("" when none)
  std::string message;  // on error: what was wrong and what is allowed
};

struct EvalOptions {
  // false: numbers only. The result's "steps" is an empty array and no TeX is built (the
  // labs' hot path); outputs and warnings are identical to an evaluation with steps.
  bool steps = true;
};

// Evaluates calculator `name` on a JSON object given as text. Never throws.
Evaluation evaluate(std::string_view name, std::string_view input_json);
Evaluation evaluate(std::string_view name, std::string_view input_json, const EvalOptions& options);

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
// The declared unit of output `output` of calculator `calculator` (a nested path such as
// "flops_per_s.bf16" takes its top-level output's unit); "" for words, verdicts, plain numbers
// and names the schema does not declare.
std::string output_unit(std::string_view calculator, std::string_view output);

}  // namespace scalelab
