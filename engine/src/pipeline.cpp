#include "pipeline.hpp"

#include <cmath>
#include <stdexcept>

#include "format.hpp"
#include "registry.hpp"
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

}  // namespace

Evaluation error_result(Status status, const std::string& param, const std::string& message) {
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

Evaluation unknown_calculator(std::string_view name) {
  std::string list;
  for (const Calculator& c : calculators()) list += (list.empty() ? "" : ", ") + c.name;
  return error_result(Status::unknown_calculator, "",
                      "unknown calculator \"" + std::string(name.substr(0, 40)) + "\"; available: " + list);
}

std::optional<Evaluation> parse_input(std::string_view text, json& out, const std::string& param) {
  if (text.size() > kMaxInputBytes) {
    return error_result(Status::bad_input, param, "the input is larger than 64 KiB");
  }
  if (too_deep(text)) {
    return error_result(Status::bad_input, param, "the input nests deeper than 32 levels");
  }
  try {
    out = text.find_first_not_of(" \t\r\n") == std::string_view::npos ? json::object() : json::parse(text);
    return std::nullopt;
  } catch (const json::parse_error& e) {
    std::string message = e.what();
    auto colon = message.find("syntax error");
    return error_result(Status::bad_input, param,
                        "malformed JSON: " + (colon == std::string::npos ? message : message.substr(colon)));
  } catch (const json::out_of_range&) {
    return error_result(Status::bad_input, param,
                        "a number in the input is too large to represent "
                               "(beyond ±1.8e308); every parameter has a far smaller maximum");
  } catch (const std::exception& e) {
    return error_result(Status::bad_input, param, std::string("invalid JSON input: ") + e.what());
  }
}

void canonicalise(json& j, const std::string& calculator, const std::string& where) {
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

}  // namespace scalelab
