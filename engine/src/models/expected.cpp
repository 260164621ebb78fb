#include "models/expected.hpp"

#include <algorithm>
#include <cstdio>

#include "core/format.hpp"

namespace scalelab {
namespace {

Band read_band(const json& j) {
  Band b;
  b.regime = j.at("regime");
  b.title = j.at("title");
  b.low = j.at("low");
  b.high = j.at("high");
  b.runs = j.at("runs");
  const json& covers = j.at("covers");
  for (auto it = covers.begin(); it != covers.end(); ++it) {
    const json& v = it.value();
    if (v.is_array() && v.size() == 2 && v[0].is_number()) {
      b.ranges.push_back({it.key(), {v[0].get<double>(), v[1].get<double>()}});
    }
  }
  for (const json& k : j.at("chip_kinds")) b.chip_kinds.push_back(k);
  for (const json& a : j.at("applies_to")) {
    std::vector<std::string> outputs;
    for (const json& o : a.at("outputs")) outputs.push_back(o);
    b.applies_to.push_back({a.at("calculator"), std::move(outputs)});
  }
  return b;
}

const std::vector<Band>& bands() {
  static const std::vector<Band> all = [] {
    std::vector<Band> out;
    for (const json& j : band_catalog().at("bands")) {
      if (j.contains("low")) out.push_back(read_band(j));  // a regime of too few runs has no band
    }
    return out;
  }();
  return all;
}

std::string two_digits(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

// "published runs of decode on datacenter chips reach 0.25–0.93 of the bound, 18 runs"
std::string band_words(const Band& b) {
  return "published runs of " + b.title + " reach " + two_digits(b.low) + "–" + two_digits(b.high) +
         " of the bound, " + std::to_string(b.runs) + " runs";
}

}  // namespace

bool Band::calibrates(std::string_view calculator, std::string_view output) const {
  for (const auto& [calc, outputs] : applies_to) {
    if (calc == calculator && std::find(outputs.begin(), outputs.end(), output) != outputs.end()) return true;
  }
  return false;
}

const Band* band_for(std::string_view calculator, std::string_view output, ChipKind kind) {
  const std::string& kind_name = chip_kind_names()[std::size_t(kind)];
  for (const Band& b : bands()) {
    if (b.calibrates(calculator, output) &&
        std::find(b.chip_kinds.begin(), b.chip_kinds.end(), kind_name) != b.chip_kinds.end()) {
      return &b;
    }
  }
  return nullptr;
}

void out_expected(const Band* band, const ExpectedOutput& o, double bound, Result& r) {
  if (!band) {
    r.out_null(o.low);
    r.out_null(o.high);
    return;
  }
  const bool time = o.unit == "s";
  std::string label_low, label_high;
  if (r.record_steps) {
    const std::string words(o.words), why = " (" + band_words(*band) + ")";
    label_low = "Expected " + words + (time ? ", shortest" : ", lowest") + why;
    label_high = "Expected " + words + (time ? ", longest" : ", highest") + why;
  }
  Expr b = r.sym("\\text{bound}", bound), lo = r.sym("s_{lo}", band->low), hi = r.sym("s_{hi}", band->high);
  r.out(o.low, r.step(label_low, "", time ? b / hi : lo * b, o.unit));
  r.out(o.high, r.step(label_high, "", time ? b / lo : hi * b, o.unit));
}

void out_band(const Band* band, const Setup& setup, Result& r) {
  if (!band) {
    for (const char* name : {"expected_runs", "expected_share_low", "expected_share_high", "expected_covered"}) {
      r.out_null(name);
    }
    return;
  }
  r.out("expected_runs", double(band->runs));
  r.out("expected_share_low", band->low);
  r.out("expected_share_high", band->high);
  bool covered = true;
  for (const auto& [name, value] : setup) {
    for (const auto& [key, range] : band->ranges) {
      if (key != name || (value >= range.first && value <= range.second)) continue;
      covered = false;
      r.warn("The expected range comes from published runs of " + band->title + " with " + std::string(name) +
             " from " + format_quantity(range.first, "count") + " to " + format_quantity(range.second, "count") +
             "; this setup's " + std::string(name) + " (" + format_quantity(value, "count") +
             ") lies outside them, so the range is carried beyond what was measured.");
    }
  }
  r.out("expected_covered", covered);
}

}  // namespace scalelab
