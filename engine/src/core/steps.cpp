#include <cmath>
#include <string>

#include "core/json_text.hpp"
#include "core/canonical.hpp"
#include "core/result.hpp"

namespace scalelab {
namespace {

// `text` as a JSON string, with its quotes (append_string for a StepText).
void append_quoted(StepText text, std::string& out) {
  out += '"';
  text.append_json(out);
  out += '"';
}

// A step's label as written: its prefix ("AllGather A: ") and its own words, escaped as one string.
void append_label(std::string_view prefix, StepText label, std::string& out) {
  if (prefix.empty()) {
    append_quoted(label, out);
    return;
  }
  thread_local std::string whole;
  whole.assign(prefix);
  whole += label.view();
  append_string(whole, out);
}

}  // namespace

void StepList::open(std::string_view prefix, StepText label) {
  text_ += count_ > 0 ? ",{\"label\":" : "{\"label\":";
  append_label(prefix, label, text_);
  text_ += ",\"formula\":\"";
}

void StepList::close(std::string_view prefix, StepText label, double value, StepText unit) {
  text_ += "\",\"value\":";
  if (std::isfinite(value)) {
    static const std::string unnamed;  // a finite value is never refused: no name is needed
    append_canonical_number(value, text_, unnamed, "");
  } else {
    if (!fault_) fault_ = std::string(prefix) + std::string(label.view());
    text_ += "null";  // never written out: append_steps reports the fault instead
  }
  text_ += ",\"unit\":";
  append_quoted(unit, text_);
  text_ += '}';
  ++count_;
}

// A literal keeps its view; other text is copied, escaped, into the symbol.
Expr Steps::symbol(StepText tex, double value) {
  return tex.lasting() ? Expr::symbol(tex.view(), tex.form(), value) : Expr::symbol(tex.view(), value);
}

Expr Steps::record(StepText label, StepText lhs, const Expr& expr, StepText unit) const {
  // "B^* \approx" states an approximation; the name is what precedes the relation.
  std::string_view relation = escaped<" = ">;
  constexpr std::string_view approx = " \\approx";
  if (const std::string_view v = lhs.view(); v.size() > approx.size() && v.substr(v.size() - approx.size()) == approx) {
    lhs = lhs.without_suffix(approx.size());
    relation = escaped<" \\approx ">;
  }
  // The named result, made first: its symbol is the left-hand side, for both.
  const bool named_result = !lhs.view().empty();
  Expr named = named_result ? symbol(lhs, expr.value()) : expr;
  sink_->add(
      prefix_, label,
      [&](std::string& out) {
        if (named_result) {
          named.append_json_tex(out);
          out += relation;
        }
        expr.append_json_tex(out);
      },
      [&](std::string& out) { expr.append_json_substituted(out); }, expr.value(), unit);
  return named;
}

Steps Steps::prefixed(std::string_view prefix) const {
  Steps s = *this;
  if (on()) s.prefix_ += prefix;
  return s;
}

}  // namespace scalelab
