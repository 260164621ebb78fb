#include "result.hpp"

#include <string>

namespace scalelab {
namespace {

// A step appended to `sink`, its label prefixed; the caller writes its formulas in place.
Step& new_step(StepList& sink, const std::string& prefix, std::string_view label, double value,
               std::string_view unit) {
  Step& s = sink.emplace_back();
  s.label.reserve(prefix.size() + label.size());
  s.label += prefix;
  s.label += label;
  s.value = value;
  s.unit = unit;
  return s;
}

}  // namespace

Expr Steps::record(std::string_view label, std::string_view lhs, const Expr& expr,
                   std::string_view unit) const {
  // "B^* \approx" states an approximation; the name is what precedes the relation.
  std::string_view relation = " = ";
  constexpr std::string_view approx = " \\approx";
  if (lhs.size() > approx.size() && lhs.substr(lhs.size() - approx.size()) == approx) {
    lhs.remove_suffix(approx.size());
    relation = " \\approx ";
  }
  Step& s = new_step(*sink_, prefix_, label, expr.value(), unit);
  // Rendered into one scratch buffer that keeps its room, then copied once at its size.
  thread_local std::string scratch;
  scratch.clear();
  if (!lhs.empty()) {
    scratch += lhs;
    scratch += relation;
  }
  expr.append_tex(scratch);
  s.formula = scratch;
  scratch.clear();
  expr.append_substituted(scratch);
  s.substituted = scratch;
  return lhs.empty() ? expr : Expr::symbol(std::string(lhs), expr.value());
}

double Steps::record_text(std::string_view label, std::string_view formula, std::string_view substituted,
                          double value, std::string_view unit) const {
  if (on()) {
    Step& s = new_step(*sink_, prefix_, label, value, unit);
    s.formula = formula;
    s.substituted = substituted;
  }
  return value;
}

Steps Steps::prefixed(std::string_view prefix) const {
  Steps s = *this;
  if (on()) s.prefix_ += prefix;
  return s;
}

}  // namespace scalelab
