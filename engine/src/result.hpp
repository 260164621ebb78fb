// What a calculator produces: named outputs, the derivation steps, warnings.
#pragma once
#include <string>
#include <string_view>
#include <type_traits>

#include "expr.hpp"
#include "json.hpp"

namespace scalelab {

// The one step sink. Each step is one Expr: its formula, substituted formula and value all come
// from it. A sink without an array is numbers-only: it records nothing and hands out bare
// Exprs, so no TeX is ever built (the labs' hot path, and sweep points inside a calculator).
class Steps {
 public:
  Steps() = default;  // numbers-only, and warnings dropped (sweep points)
  // `sink` null: numbers-only. `warnings` null: warnings dropped.
  Steps(json* sink, json* warnings) : sink_(sink), warnings_(warnings) {}

  bool on() const { return sink_ != nullptr; }
  // A named input of a formula: `tex` when steps are on, a bare value otherwise.
  Expr sym(std::string_view tex, double value) const {
    return on() ? Expr::symbol(std::string(tex), value) : Expr::bare(value);
  }
  // Records "label: lhs = expr" and returns its value named `lhs`, for the steps that follow.
  // An empty lhs records the bare expression (and returns it unnamed).
  Expr step(std::string_view label, std::string_view lhs, const Expr& expr, std::string_view unit) const;
  // TRANSITIONAL: a step whose formula and substitution are written out by hand, for the
  // calculators not yet built from Expr (see the module note in expr.hpp). Same JSON shape.
  double record_text(std::string_view label, std::string_view formula, std::string_view substituted,
                     double value, std::string_view unit) const;
  // The same sink, each label prefixed (e.g. "AllGather A: ").
  Steps prefixed(std::string_view prefix) const;
  // A warning about this configuration (kept in numbers-only mode too).
  void warn(const std::string& message) const {
    if (warnings_) warnings_->push_back(message);
  }

 private:
  json* sink_ = nullptr;
  json* warnings_ = nullptr;
  std::string prefix_;
};

struct Result {
  json outputs = json::object();
  json steps = json::array();
  json warnings = json::array();
  json extra = json::object();  // top-level fields beside "outputs" (e.g. the resolved chip)
  bool record_steps = true;     // false: numbers-only evaluation

  // Appended without looking for an earlier value of the same name (a search per output made
  // building the outputs quadratic); declared() keeps the last value of a name written twice.
  template <typename T>
    requires(!std::is_same_v<std::remove_cvref_t<T>, Expr>)
  void out(const std::string& name, T&& value) {
    outputs.get_ref<json::object_t&>().emplace_back(name, std::forward<T>(value));
  }
  void out(const std::string& name, const Expr& value) { out(name, value.value()); }
  void out_null(const std::string& name) { out(name, nullptr); }
  // This result's step sink (numbers-only when record_steps is false).
  Steps log() { return Steps(record_steps ? &steps : nullptr, &warnings); }
  Expr sym(std::string_view tex, double value) { return log().sym(tex, value); }
  Expr step(std::string_view label, std::string_view lhs, const Expr& expr, std::string_view unit) {
    return log().step(label, lhs, expr, unit);
  }
  // TRANSITIONAL, see Steps::record_text.
  double step(const std::string& label, const std::string& formula, const std::string& substituted,
              double value, const std::string& unit) {
    return log().record_text(label, formula, substituted, value, unit);
  }
  void warn(const std::string& message) { warnings.push_back(message); }
};

}  // namespace scalelab
