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
  std::string json;     // the result, or {"error": {"status": ..., "param": ..., "message": ...}}, with
                        // "field" naming the chip's figure when a calculator needs one the chip lacks
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

// Evaluates calculator `name`, numbers only, at every point of a sweep over one or two numeric
// parameters of `params_json` (the base, checked once). `spec_json` is
//   {"x": AXIS, "y": AXIS (optional), "outputs": ["step_s", ...] (optional)}
// with AXIS {"param": "batch", "values": [1, 2, 4]} or {"param": "batch", "from": 1, "to": 4096,
// "points": 2048, "scale": "log" | "linear" (default: the parameter's own scale)}; a nested
// parameter is named with dots ("matmul.B"); whole-number parameters take rounded, distinct
// values; at most 4096 points in all. The result is
//   {"calculator", "x": {"param", "values"}, "y" (if given), "outputs": {name: [...]},
//    "errors": [null | {"status", "param", "message"}, ...], "warnings": [...]}
// with one entry per point, row-major (x, then y): a refused point is null in every output
// and its error says why; the outputs default to every output that comes out as a number.
// "warnings" holds the first 16 distinct warnings in point order and, if there are more,
// "… and N more distinct warnings at other points". Past the 16th, a warning made from numbers
// (decode's "does not fit" along the context) is told apart by those numbers without its text
// being written, so two points whose numbers differ but print alike count twice in N.
// A bad base or spec is one ordinary error. Never throws.
Evaluation sweep(std::string_view name, std::string_view params_json, std::string_view spec_json);
// The same, from one JSON object {"params": {...} (default {}), "sweep": {...}}: the body of
// POST /api/v1/sweep/NAME.
Evaluation sweep_request(std::string_view name, std::string_view request_json);

// The registry as JSON: every calculator with its schema (units, defaults, ranges, docs).
std::string calculators_json();
// One calculator's schema, the entry calculators_json lists for it; "null" for an unknown name.
// A page that shows one calculator asks for this instead of building every schema.
std::string calculator_json(std::string_view name);
// The schema of a chip or a model object (`kind` "chip" or "model"), as calculators_json lists it
// under chip_fields / model_fields; "null" for any other kind.
std::string object_fields_json(std::string_view kind);
// The catalogs as JSON, and the schema of a chip or model object.
std::string chips_json();
std::string models_json();
// The weight/KV-cache formats (data/formats.json) and the published runs (data/measurements.json:
// {about, how_to_add, regimes, runs, decode_steps}) as JSON. The browser fetches the runs as a
// static file instead (web/src/published-runs.ts): they are not in the WebAssembly build.
std::string formats_json();
std::string measurements_json();
// The expected-range bands (data/bands.json: per regime of the published runs, the band of shares
// of the bound a run reaches, its runs and the setups they cover), as embedded.
std::string bands_json();
// The same bands fitted afresh from the published runs with this engine's bounds, indented: the
// text `scalelab calibrate` prints and data/bands.json holds. Throws std::runtime_error naming a
// published run that does not evaluate.
std::string calibrate_json();

// Human formatting of a quantity, e.g. (1.39e-3, "s") -> "1.39 ms". The one formatter.
std::string format_quantity(double value, std::string_view unit);
// A double as the engine's JSON writes one: 0.1, 6.62813333333333e+16 (the shortest digits that
// read back as it, where nlohmann's dump can write 6.6281333333333296e+16).
std::string number_text(double value);
// The declared unit of output `output` of calculator `calculator` (a nested path such as
// "flops_per_s.bf16" takes its top-level output's unit); "" for words, verdicts, plain numbers
// and names the schema does not declare.
std::string output_unit(std::string_view calculator, std::string_view output);

}  // namespace scalelab
