#include <cmath>
#include <string>

#include "json_text.hpp"
#include "pipeline.hpp"
#include "result.hpp"

namespace scalelab {
namespace {

// A step's label as written: its prefix ("AllGather A: ") and its own words, escaped as one string.
void append_label(std::string_view prefix, std::string_view label, std::string& out) {
  if (prefix.empty()) {
    append_string(label, out);
    return;
  }
  thread_local std::string whole;
  whole.assign(prefix);
  whole += label;
  append_string(whole, out);
}

}  // namespace

void StepList::open(std::string_view prefix, std::string_view label) {
  text_ += count_ > 0 ? ",{\"label\":" : "{\"label\":";
  append_label(prefix, label, text_);
  text_ += ",\"formula\":\"";
}

void StepList::close(std::string_view prefix, std::string_view label, double value, std::string_view unit) {
  text_ += "\",\"value\":";
  if (std::isfinite(value)) {
    static const std::string unnamed;  // a finite value is never refused: no name is needed
    append_canonical_number(value, text_, unnamed, "");
  } else {
    if (!fault_) fault_ = std::string(prefix) + std::string(label);
    text_ += "null";  // never written out: append_steps reports the fault instead
  }
  text_ += ",\"unit\":";
  append_string(unit, text_);
  text_ += '}';
  ++count_;
}

std::string_view StepText::view() const {
  return size_ == kUnmeasured ? std::string_view(data_) : std::string_view(data_, size_);
}

Expr Steps::symbol(StepText tex, double value) { return Expr::symbol(tex.view(), value); }

Expr Steps::record(StepText label_text, StepText lhs_text, const Expr& expr, StepText unit_text) const {
  std::string_view label = label_text.view(), lhs = lhs_text.view(), unit = unit_text.view();
  // "B^* \approx" states an approximation; the name is what precedes the relation.
  std::string_view relation = escaped<" = ">;
  constexpr std::string_view approx = " \\approx";
  if (lhs.size() > approx.size() && lhs.substr(lhs.size() - approx.size()) == approx) {
    lhs.remove_suffix(approx.size());
    relation = escaped<" \\approx ">;
  }
  // The named result, made first: its symbol is the left-hand side escaped once, for both.
  Expr named = lhs.empty() ? expr : Expr::symbol(lhs, expr.value());
  sink_->add(
      prefix_, label,
      [&](std::string& out) {
        if (!lhs.empty()) {
          named.append_json_tex(out);
          out += relation;
        }
        expr.append_json_tex(out);
      },
      [&](std::string& out) { expr.append_json_substituted(out); }, expr.value(), unit);
  return named;
}

double Steps::record_text(std::string_view label, std::string_view formula, std::string_view substituted,
                          double value, std::string_view unit) const {
  if (on()) {
    sink_->add(
        prefix_, label, [&](std::string& out) { append_escaped(formula, out); },
        [&](std::string& out) { append_escaped(substituted, out); }, value, unit);
  }
  return value;
}

Steps Steps::prefixed(std::string_view prefix) const {
  Steps s = *this;
  if (on()) s.prefix_ += prefix;
  return s;
}

}  // namespace scalelab
