// The JSON entry point: parse, validate, compute, canonicalise, serialise. Never throws.
#include <cmath>
#include <exception>

#include "args.hpp"
#include "calculators/topology.hpp"
#include "catalog.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "registry.hpp"
#include "result.hpp"
#include "scalelab/engine.hpp"
#include "scalelab/limits.hpp"

namespace scalelab {
namespace {

// Deeply nested input would only waste the parser's time: refuse it before parsing.
bool too_deep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') {
      if (++depth > kMaxInputDepth) return true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return false;
}

// Every number leaves the engine finite and rounded to 15 significant digits; whole numbers
// print as integers. A non-finite value is an engine bug and is reported as one.
void canonicalise(json& j, const std::string& calculator, const std::string& where = "") {
  if (j.is_number_float()) {
    double v = j.get<double>();
    if (!std::isfinite(v)) {
      throw std::logic_error("non-finite result in " + calculator + (where.empty() ? "" : " (" + where + ")"));
    }
    if (std::floor(v) != v || std::fabs(v) >= 1e15) v = canonical(v);
    if (std::floor(v) == v && std::fabs(v) < 1e15) {
      j = static_cast<std::int64_t>(v);
    } else {
      j = v;
    }
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      canonicalise(it.value(), calculator, it.key() == "value" && j.contains("label") ? j["label"].get<std::string>() : it.key());
    }
  } else if (j.is_array()) {
    for (auto& item : j) canonicalise(item, calculator, where);
  }
}

Evaluation error(Status status, const std::string& param, const std::string& message) {
  Evaluation e;
  e.status = status;
  e.param = param;
  e.message = message;
  json body = {{"error", {{"status", status_name(status)},
                          {"param", param.empty() ? json(nullptr) : json(param)},
                          {"message", message}}}};
  // The message may quote input that is not valid UTF-8: replace such bytes, never throw.
  e.json = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return e;
}

// The outputs as declared, in declaration order. An output emitted without a declaration, or a
// declared one left out or null without being nullable, is an engine fault.
json declared(const Calculator& calc, json emitted) {
  json out = json::object();
  for (const Output& o : calc.outputs) {
    auto it = emitted.find(o.name);
    bool present = it != emitted.end() && !it->is_null();
    if (!present && !o.nullable) {
      throw std::logic_error(calc.name + " left out its output " + o.name + ", which is not nullable");
    }
    out[o.name] = present ? std::move(*it) : json(nullptr);
    if (it != emitted.end()) emitted.erase(it);
  }
  if (!emitted.empty()) {
    std::string names;
    for (auto it = emitted.begin(); it != emitted.end(); ++it) names += (names.empty() ? "" : ", ") + it.key();
    throw std::logic_error(calc.name + " emitted undeclared outputs: " + names);
  }
  return out;
}

std::string compute_result(const Calculator& calc, const json& input, const EvalOptions& options) {
  Args args(calc, input);
  Result result;
  result.record_steps = options.steps;
  calc.compute(args, result);
  json out = json::object();
  out["calculator"] = calc.name;
  out["inputs"] = args.values();  // as given (already validated), not rounded
  canonicalise(result.extra, calc.name);
  for (auto it = result.extra.begin(); it != result.extra.end(); ++it) out[it.key()] = it.value();
  canonicalise(result.outputs, calc.name);
  canonicalise(result.steps, calc.name);
  out["outputs"] = declared(calc, std::move(result.outputs));
  out["steps"] = std::move(result.steps);
  out["warnings"] = std::move(result.warnings);
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
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
  if (!calc) {
    std::string list;
    for (const Calculator& c : calculators()) list += (list.empty() ? "" : ", ") + c.name;
    return error(Status::unknown_calculator, "",
                 "unknown calculator \"" + std::string(name.substr(0, 40)) + "\"; available: " + list);
  }
  if (input_json.size() > kMaxInputBytes) {
    return error(Status::bad_input, "", "the input is larger than 64 KiB");
  }
  if (too_deep(input_json)) {
    return error(Status::bad_input, "", "the input nests deeper than 32 levels");
  }
  json input;
  try {
    input = input_json.find_first_not_of(" \t\r\n") == std::string_view::npos ? json::object()
                                                                            : json::parse(input_json);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    auto colon = what.find("syntax error");
    return error(Status::bad_input, "",
                 "malformed JSON: " + (colon == std::string::npos ? what : what.substr(colon)));
  } catch (const json::out_of_range&) {
    return error(Status::bad_input, "", "a number in the input is too large to represent "
                                        "(beyond ±1.8e308); every parameter has a far smaller maximum");
  } catch (const std::exception& e) {
    return error(Status::bad_input, "", std::string("invalid JSON input: ") + e.what());
  }
  // Past parsing, only an InputError is the caller's doing; anything else is an engine fault.
  try {
    Evaluation ok;
    ok.json = compute_result(*calc, input, options);
    return ok;
  } catch (const InputError& e) {
    return error(Status::bad_input, e.param, e.what());
  } catch (const std::exception& e) {
    return error(Status::internal, "", std::string("internal error (an engine fault, not your input): ") + e.what());
  } catch (...) {
    return error(Status::internal, "", "internal error (an engine fault, not your input)");
  }
}

std::string calculators_json() {
  json list = json::array();
  for (const Calculator& c : calculators()) list.push_back(calculator_schema_json(c));
  json chip_schema = json::array();
  for (const Param& p : chip_fields()) chip_schema.push_back(param_schema_json(p));
  json model_schema = json::array();
  for (const Param& p : model_fields()) model_schema.push_back(param_schema_json(p));
  return json{{"version", 1}, {"calculators", list}, {"chip_fields", chip_schema},
              {"model_fields", model_schema}}
      .dump();
}

std::string output_unit(std::string_view calculator, std::string_view output) {
  const Calculator* calc = find_calculator(calculator);
  if (!calc) return "";
  std::string_view top = output.substr(0, output.find_first_of(".["));
  for (const Output& o : calc->outputs) {
    if (o.name == top) return o.unit;
  }
  return "";
}

// The catalog as data/chips.json has it, each chip with its network facts added (`topology`).
std::string chips_json() {
  json chips = chip_catalog();
  for (auto& c : chips) c["topology"] = topology_facts(Chip(c));
  return chips.dump();
}
std::string models_json() { return model_catalog().dump(); }
std::string formats_json() { return format_catalog().dump(); }
std::string measurements_json() { return measurement_catalog().dump(); }

}  // namespace scalelab
