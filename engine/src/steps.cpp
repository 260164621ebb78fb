#include "result.hpp"

namespace scalelab {

Expr Steps::step(std::string_view label, std::string_view lhs, const Expr& expr,
                 std::string_view unit) const {
  if (!on()) return Expr::bare(expr.value());
  // "B^* \approx" states an approximation; the name is what precedes the relation.
  std::string relation = " = ";
  constexpr std::string_view approx = " \\approx";
  if (lhs.size() > approx.size() && lhs.substr(lhs.size() - approx.size()) == approx) {
    lhs.remove_suffix(approx.size());
    relation = " \\approx ";
  }
  std::string formula = expr.tex();
  if (!lhs.empty()) formula = std::string(lhs) + relation + formula;
  sink_->push_back({{"label", prefix_ + std::string(label)},
                    {"formula", formula},
                    {"substituted", expr.substituted()},
                    {"value", expr.value()},
                    {"unit", unit}});
  return lhs.empty() ? expr : Expr::symbol(std::string(lhs), expr.value());
}

double Steps::record_text(std::string_view label, std::string_view formula, std::string_view substituted,
                          double value, std::string_view unit) const {
  if (on()) {
    sink_->push_back({{"label", prefix_ + std::string(label)},
                      {"formula", formula},
                      {"substituted", substituted},
                      {"value", value},
                      {"unit", unit}});
  }
  return value;
}

Steps Steps::prefixed(std::string_view prefix) const {
  Steps s = *this;
  if (on()) s.prefix_ += prefix;
  return s;
}

}  // namespace scalelab
