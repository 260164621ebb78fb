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
void canonicalise(json& j, const std::string& calculator) {
  if (j.is_number_float()) {
    double v = j.get<double>();
    if (!std::isfinite(v)) throw std::logic_error("non-finite result in " + calculator);
    if (std::floor(v) != v || std::fabs(v) >= 1e15) v = canonical(v);
    if (std::floor(v) == v && std::fabs(v) < 1e15) {
      j = static_cast<std::int64_t>(v);
    } else {
      j = v;
    }
  } else if (j.is_object()) {
    for (auto& item : j) canonicalise(item, calculator);
  } else if (j.is_array()) {
    for (auto& item : j) canonicalise(item, calculator);
  }
}

Evaluation error(Status status, const std::string& param, const std::string& message) {
  Evaluation e;
  e.status = status;
  e.param = param;
  e.message = message;
  json body = {{"error", {{"param", param.empty() ? json(nullptr) : json(param)},
                          {"message", message}}}};
  // The message may quote input that is not valid UTF-8: replace such bytes, never throw.
  e.json = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return e;
}

}  // namespace

double Result::step(const std::string& label, const std::string& formula,
                    const std::string& substituted, double value, const std::string& unit) {
  steps.push_back({{"label", label}, {"formula", formula}, {"substituted", substituted},
                   {"value", value}, {"unit", unit}});
  return value;
}

Evaluation evaluate(std::string_view name, std::string_view input_json) {
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
  try {
    json input = input_json.find_first_not_of(" \t\r\n") == std::string_view::npos
                     ? json::object()
                     : json::parse(input_json);
    Args args(*calc, input);
    Result result;
    calc->compute(args, result);
    json out = json::object();
    out["calculator"] = calc->name;
    out["inputs"] = args.values();  // as given (already validated), not rounded
    canonicalise(result.extra, calc->name);
    for (auto it = result.extra.begin(); it != result.extra.end(); ++it) out[it.key()] = it.value();
    canonicalise(result.outputs, calc->name);
    canonicalise(result.steps, calc->name);
    out["outputs"] = std::move(result.outputs);
    out["steps"] = std::move(result.steps);
    out["warnings"] = std::move(result.warnings);
    Evaluation ok;
    ok.json = out.dump(-1, ' ', false, json::error_handler_t::replace);
    return ok;
  } catch (const InputError& e) {
    return error(Status::bad_input, e.param, e.what());
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    auto colon = what.find("syntax error");
    return error(Status::bad_input, "",
                 "malformed JSON: " + (colon == std::string::npos ? what : what.substr(colon)));
  } catch (const json::out_of_range&) {
    return error(Status::bad_input, "", "a number in the input is too large to represent "
                                        "(beyond ±1.8e308); every parameter has a far smaller maximum");
  } catch (const json::exception& e) {
    return error(Status::bad_input, "", std::string("invalid JSON input: ") + e.what());
  } catch (const std::exception& e) {
    return error(Status::bad_input, "", std::string("internal error: ") + e.what());
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
