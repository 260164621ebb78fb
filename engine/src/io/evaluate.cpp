// The JSON entry point: parse, validate, compute, canonicalise, serialise. Never throws.
#include <exception>

#include "schema/args.hpp"
#include "models/topology.hpp"
#include "io/pipeline.hpp"
#include "catalog/catalog.hpp"
#include "core/errors.hpp"
#include "core/format.hpp"
#include "core/json_text.hpp"
#include "calculators/registry.hpp"
#include "core/result.hpp"
#include "scalelab/engine.hpp"
#include "scalelab/limits.hpp"

namespace scalelab {
namespace {
// {"calculator", "inputs", extra fields, "outputs", "steps", "warnings"}, written as text.
std::string compute_result(const Calculator& calc, json&& input, const EvalOptions& options) {
  Args args(calc, std::move(input));
  Result result(calc.outputs);
  result.record_steps = options.steps;
  if (options.steps) result.steps.reserve(8192);  // most derivations write fewer bytes
  calc.compute(args, result);
  std::string out;
  out.reserve(options.steps ? 16384 : 4096);  // the book cases: 1.3-2.2 KB numbers-only, 9 KB with steps
  out += "{\"calculator\":";
  append_string(calc.name, out);
  out += ",\"inputs\":";
  args.append_inputs(out);  // as given (already validated), not rounded
  for (auto it = result.extra.begin(); it != result.extra.end(); ++it) {
    out += ',';
    append_string(it.key(), out);
    out += ':';
    append_canonical(it.value(), out, calc.name, it.key());
  }
  out += ",\"outputs\":";
  append_outputs(result.outputs, out, calc.name);
  out += ",\"steps\":";
  append_steps(result.steps, out, calc.name);
  out += ",\"warnings\":";
  append_warnings(result.warnings, out);
  out += '}';
  return out;
}

}  // namespace

const char* status_name(Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::bad_input: return "bad_input";
    case Status::unknown_calculator: return "unknown_calculator";
    case Status::internal: return "internal";
  }
  return "internal";
}

Evaluation evaluate(std::string_view name, std::string_view input_json) {
  return evaluate(name, input_json, EvalOptions{});
}

Evaluation evaluate(std::string_view name, std::string_view input_json, const EvalOptions& options) {
  const Calculator* calc = find_calculator(name);
  if (!calc) return unknown_calculator(name);
  json input;
  if (auto refused = parse_input(input_json, input)) return *refused;
  // Past parsing, only an InputError is the caller's doing; anything else is an engine fault.
  return guarded([&] { return compute_result(*calc, std::move(input), options); });
}

std::string number_text(double value) {
  std::string out;
  append_double(value, out);
  return out;
}

std::string output_unit(std::string_view calculator, std::string_view output) {
  const Calculator* calc = find_calculator(calculator);
  if (!calc) return "";
  std::string_view top = output.substr(0, output.find_first_of(".["));
  for (const Output& o : calc->outputs) {
    if (o.name == top) return std::string(o.unit);
  }
  return "";
}

// The catalog as data/chips.json has it, each chip with its network facts added (`topology`).
// The listings are written by to_text: dump's bytes without its per-byte UTF-8 check on the
// catalogs' long plain-ASCII strings (sources, notes), which was half of chips_json's time.
std::string chips_json() {
  json chips = chip_catalog();
  for (auto& c : chips) c["topology"] = topology_facts(Chip(c));
  return to_text(chips);
}
std::string models_json() { return to_text(model_catalog()); }
std::string formats_json() { return to_text(format_catalog()); }
std::string measurements_json() { return to_text(measurement_catalog()); }

}  // namespace scalelab
