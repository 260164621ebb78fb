#include "pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

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
    // A step's value is named by its label in the fault message; anything else by its key.
    auto label = j.find("label");
    bool step = label != j.end() && label->is_string();
    for (auto it = j.begin(); it != j.end(); ++it) {
      bool named_by_label = step && it.key() == "value";
      canonicalise(it.value(), calculator, named_by_label ? label->get_ref<const std::string&>() : it.key());
    }
  } else if (j.is_array()) {
    for (auto& item : j) canonicalise(item, calculator, where);
  }
}

namespace {

// The emitted value (moved out), or null where the output may be null; otherwise a fault.
json present_or_null(const Calculator& calc, const Output& o, json* value) {
  bool present = value && !value->is_null();
  if (!present && !o.nullable) {
    throw std::logic_error(calc.name + " left out its output " + o.name + ", which is not nullable");
  }
  return present ? std::move(*value) : json(nullptr);
}

// The same, when some name was emitted twice (the last value counts) or not declared at all.
json declared_slowly(const Calculator& calc, json emitted) {
  auto& given = emitted.get_ref<json::object_t&>();
  std::string undeclared;
  for (const auto& member : given) {
    const std::string& key = member.first;
    bool known = std::any_of(calc.outputs.begin(), calc.outputs.end(), [&](const Output& o) { return o.name == key; });
    if (!known) undeclared += (undeclared.empty() ? "" : ", ") + key;
  }
  if (!undeclared.empty()) throw std::logic_error(calc.name + " emitted undeclared outputs: " + undeclared);
  json out = json::object();
  auto& members = out.get_ref<json::object_t&>();
  for (const Output& o : calc.outputs) {
    auto last = std::find_if(given.rbegin(), given.rend(), [&](const auto& member) { return member.first == o.name; });
    members.emplace_back(o.name, present_or_null(calc, o, last == given.rend() ? nullptr : &last->second));
  }
  return out;
}

}  // namespace

json declared(const Calculator& calc, json emitted) {
  auto& given = emitted.get_ref<json::object_t&>();
  // Calculators emit mostly in declaration order: look from after the last match, then wrap.
  std::vector<json*> found(calc.outputs.size(), nullptr);
  std::size_t cursor = 0, matched = 0;
  for (std::size_t i = 0; i < calc.outputs.size(); ++i) {
    for (std::size_t k = 0; k < given.size() && !found[i]; ++k) {
      std::size_t at = (cursor + k) % given.size();
      auto& entry = *(given.begin() + static_cast<std::ptrdiff_t>(at));
      if (entry.first == calc.outputs[i].name) {
        found[i] = &entry.second;
        cursor = at + 1;
      }
    }
    matched += found[i] ? 1 : 0;
  }
  if (matched != given.size()) return declared_slowly(calc, std::move(emitted));
  json out = json::object();
  auto& members = out.get_ref<json::object_t&>();
  members.reserve(calc.outputs.size());
  for (std::size_t i = 0; i < calc.outputs.size(); ++i) {
    members.emplace_back(calc.outputs[i].name, present_or_null(calc, calc.outputs[i], found[i]));
  }
  return out;
}

}  // namespace scalelab
