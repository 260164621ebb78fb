// Every derivation step adds up: its substituted formula, read back as arithmetic, gives the
// value printed beside it. The reader here is independent of the engine's expression type: it
// parses the TeX subset the engine emits (numbers, + − × · /, \frac, powers, \sqrt, \min, \max,
// \lceil\rceil, \lfloor\rfloor, \log_2, parentheses and braces).
//
// Tolerance: a substituted formula prints each number to 4 significant digits, so a printed
// number p stands for some value within 5e-4·|p| of it. The reader evaluates in interval
// arithmetic with every number widened by that much, and the step's value must lie inside the
// resulting interval (widened by 1e-9 for the 15-digit rounding of the value itself). This is
// exact where the formula is well conditioned and lenient only where the printed digits cannot
// decide, instead of one relative tolerance that either hides small errors or fails on
// cancellation. The exponents of 10^{n} and of a power are exact integers as printed.
//
// Also here: an evaluation without steps gives the same outputs and warnings as one with.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::testing::json;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPrintedRel = 5e-4;

struct Interval {
  double lo = 0, hi = 0;
  static Interval exact(double v) { return {v, v}; }
  static Interval printed(double v) {
    double h = std::fabs(v) * kPrintedRel;
    return {v - h, v + h};
  }
};

Interval hull(std::initializer_list<double> xs) {
  Interval r{kInf, -kInf};
  for (double x : xs) {
    if (std::isnan(x)) return {-kInf, kInf};
    r.lo = std::min(r.lo, x);
    r.hi = std::max(r.hi, x);
  }
  return r;
}

Interval operator+(Interval a, Interval b) { return {a.lo + b.lo, a.hi + b.hi}; }
Interval operator-(Interval a, Interval b) { return {a.lo - b.hi, a.hi - b.lo}; }
Interval operator*(Interval a, Interval b) {
  return hull({a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi});
}
Interval operator/(Interval a, Interval b) {
  if (b.lo <= 0 && b.hi >= 0) return {-kInf, kInf};
  return hull({a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi});
}
Interval power(Interval a, Interval b) {
  return hull({std::pow(a.lo, b.lo), std::pow(a.lo, b.hi), std::pow(a.hi, b.lo), std::pow(a.hi, b.hi)});
}

// Recursive descent over the emitted subset. Throws std::runtime_error on anything else.
class TexReader {
 public:
  explicit TexReader(std::string text) : s_(std::move(text)) {}

  Interval read() {
    Interval v = sum();
    skip();
    if (i_ != s_.size()) fail("unexpected text");
    return v;
  }

 private:
  std::string s_;
  size_t i_ = 0;

  [[noreturn]] void fail(const std::string& why) {
    throw std::runtime_error(why + " at " + std::to_string(i_) + ": \"" + s_.substr(i_, 20) + "\"");
  }
  void skip() {
    for (;;) {
      while (i_ < s_.size() && s_[i_] == ' ') ++i_;
      if (s_.compare(i_, 2, "\\,") == 0 || s_.compare(i_, 2, "\\;") == 0 || s_.compare(i_, 2, "\\!") == 0) {
        i_ += 2;
        continue;
      }
      if (s_.compare(i_, 5, "\\left") == 0) { i_ += 5; continue; }
      if (s_.compare(i_, 6, "\\right") == 0) { i_ += 6; continue; }
      return;
    }
  }
  bool eat(const std::string& token) {
    skip();
    if (s_.compare(i_, token.size(), token) != 0) return false;
    // a command must not run on into letters: \max is not \maxwell
    if (token[0] == '\\' && std::isalpha(static_cast<unsigned char>(token.back())) && i_ + token.size() < s_.size() &&
        std::isalpha(static_cast<unsigned char>(s_[i_ + token.size()]))) {
      return false;
    }
    i_ += token.size();
    return true;
  }
  void expect(const std::string& token) {
    if (!eat(token)) fail("expected \"" + token + "\"");
  }

  Interval sum() {
    Interval v = product();
    for (;;) {
      if (eat("+")) v = v + product();
      else if (eat("-")) v = v - product();
      else return v;
    }
  }
  bool starts_factor() {
    skip();
    if (i_ >= s_.size()) return false;
    char c = s_[i_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '(' || c == '{') return true;
    for (const char* cmd : {"\\frac", "\\sqrt", "\\max", "\\min", "\\lceil", "\\lfloor", "\\log"}) {
      if (s_.compare(i_, std::string(cmd).size(), cmd) == 0) return true;
    }
    return false;
  }
  Interval product() {
    Interval v = unary();
    for (;;) {
      if (eat("\\times") || eat("\\cdot")) v = v * unary();
      else if (eat("/")) v = v / unary();
      else if (starts_factor()) v = v * unary();  // juxtaposition
      else return v;
    }
  }
  Interval unary() {
    if (eat("-")) {
      Interval v = unary();
      return {-v.hi, -v.lo};
    }
    return powered();
  }
  // The exponent of a power, as printed: an integer is exact.
  Interval exponent() {
    skip();
    if (eat("{")) {
      size_t start = i_;
      Interval v = sum();
      std::string text = s_.substr(start, i_ - start);
      expect("}");
      char* end = nullptr;
      double n = std::strtod(text.c_str(), &end);
      if (end && *end == '\0' && std::floor(n) == n) return Interval::exact(n);
      return v;
    }
    if (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) return Interval::exact(s_[i_++] - '0');
    fail("expected an exponent");
  }
  Interval powered() {
    skip();
    // 1.97\times10^{14} and {10^{14}}: a mantissa as printed times an exact power of ten
    Interval base = primary();
    if (eat("^")) base = power(base, exponent());
    return base;
  }
  Interval number() {
    size_t start = i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) ++i_;
    double mantissa = std::strtod(s_.substr(start, i_ - start).c_str(), nullptr);
    size_t save = i_;
    if (eat("\\times") && (skip(), s_.compare(i_, 4, "10^{") == 0)) {
      i_ += 4;
      double e = integer();
      expect("}");
      Interval m = Interval::printed(mantissa);
      double scale = std::pow(10.0, e);
      return {m.lo * scale, m.hi * scale};
    }
    i_ = save;
    if (mantissa == 10 && s_.compare(i_, 2, "^{") == 0) {  // 10^{n}: exact up to its mantissa 1
      i_ += 2;
      double e = integer();
      expect("}");
      return Interval::printed(std::pow(10.0, e));
    }
    return Interval::printed(mantissa);
  }
  double integer() {
    size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (start == i_) fail("expected an integer");
    return std::strtod(s_.substr(start, i_ - start).c_str(), nullptr);
  }
  Interval group(const std::string& open, const std::string& close) {
    expect(open);
    Interval v = sum();
    expect(close);
    return v;
  }
  Interval extremum(bool is_max) {
    expect("(");
    Interval v = sum();
    while (eat(",")) {
      Interval w = sum();
      v = is_max ? Interval{std::max(v.lo, w.lo), std::max(v.hi, w.hi)}
                 : Interval{std::min(v.lo, w.lo), std::min(v.hi, w.hi)};
    }
    expect(")");
    return v;
  }
  Interval primary() {
    skip();
    if (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) return number();
    if (s_.compare(i_, 1, "(") == 0) return group("(", ")");
    if (s_.compare(i_, 1, "{") == 0) return group("{", "}");
    if (eat("\\frac")) {
      Interval a = group("{", "}");
      return a / group("{", "}");
    }
    if (eat("\\sqrt")) {
      Interval a = group("{", "}");
      return {std::sqrt(a.lo), std::sqrt(a.hi)};
    }
    if (eat("\\max")) return extremum(true);
    if (eat("\\min")) return extremum(false);
    if (eat("\\lceil")) {
      Interval a = sum();
      expect("\\rceil");
      return {std::ceil(a.lo), std::ceil(a.hi)};
    }
    if (eat("\\lfloor")) {
      Interval a = sum();
      expect("\\rfloor");
      return {std::floor(a.lo), std::floor(a.hi)};
    }
    if (eat("\\log_2")) {
      Interval a = powered();
      return {std::log2(a.lo), std::log2(a.hi)};
    }
    fail("not a number or known command");
  }
};

struct Mismatch {
  std::string where, why;
};

// Checks every step of one result; returns what does not add up.
std::vector<Mismatch> check_steps(const std::string& where, const json& result, int& checked) {
  std::vector<Mismatch> bad;
  for (const json& step : result["steps"]) {
    ++checked;
    std::string sub = step["substituted"].get<std::string>();
    std::string at = where + " · " + step["label"].get<std::string>();
    if (!step["value"].is_number()) {
      bad.push_back({at, "value is not a number"});
      continue;
    }
    double value = step["value"].get<double>();
    try {
      Interval v = TexReader(sub).read();
      double slack = 1e-9 * std::max({std::fabs(v.lo), std::fabs(v.hi), std::fabs(value)}) + 1e-300;
      if (!(value >= v.lo - slack && value <= v.hi + slack)) {
        std::ostringstream why;
        why.precision(6);
        why << sub << " is in [" << v.lo << ", " << v.hi << "], the step says " << value;
        bad.push_back({at, why.str()});
      }
    } catch (const std::exception& e) {
      bad.push_back({at, std::string("unreadable substitution: ") + e.what() + "\n      " + sub});
    }
  }
  return bad;
}

std::string report(const std::vector<Mismatch>& bad) {
  std::string out;
  for (const Mismatch& m : bad) out += "  " + m.where + ": " + m.why + "\n";
  return out;
}

TEST(Steps, ReaderUnderstandsTheSubset) {
  auto mid = [](const std::string& tex) {
    Interval v = TexReader(tex).read();
    return (v.lo + v.hi) / 2;
  };
  EXPECT_NEAR(mid("2 \\times 3 + 4"), 10, 0.01);
  EXPECT_NEAR(mid("8 / (2 \\times 2)"), 2, 0.01);
  EXPECT_NEAR(mid("8 / 2 \\times 2"), 8, 0.01);
  EXPECT_NEAR(mid("{1.5\\times10^{3}} - {10^{3}}"), 500, 1);
  EXPECT_NEAR(mid("\\max(1, \\lceil 2.5 \\rceil, \\min(7, 9))"), 7, 0.01);
  EXPECT_NEAR(mid("\\frac{9}{\\sqrt{9}} + 2^{\\lceil \\log_2(3) \\rceil}"), 7, 0.01);
  EXPECT_THROW(TexReader("\\text{oops}").read(), std::runtime_error);
}

TEST(Steps, EveryBookCaseStepAddsUp) {
  std::vector<Mismatch> bad;
  int checked = 0;
  for (const auto& c : scalelab::testing::cases()) {
    scalelab::Evaluation e = scalelab::evaluate(c.calculator, c.raw["params"].dump());
    if (e.status != scalelab::Status::ok) continue;  // test_cases reports it
    auto more = check_steps(c.id, json::parse(e.json), checked);
    bad.insert(bad.end(), more.begin(), more.end());
  }
  EXPECT_GT(checked, 1000);
  EXPECT_TRUE(bad.empty()) << bad.size() << " of " << checked << " steps do not add up:\n" << report(bad);
}

// The bad-input matrix is mostly refusals; any row the engine accepts must add up too.
TEST(Steps, EveryAcceptedBadInputRowAddsUp) {
  std::vector<Mismatch> bad;
  int checked = 0;
  for (const auto& b : scalelab::testing::bad_inputs()) {
    scalelab::Evaluation e = scalelab::evaluate(b.calculator, b.input);
    if (e.status != scalelab::Status::ok) continue;
    auto more = check_steps(b.id, json::parse(e.json), checked);
    bad.insert(bad.end(), more.begin(), more.end());
  }
  EXPECT_TRUE(bad.empty()) << report(bad);
}

// Beyond the book: every catalog model on every calculator that takes a model, and every catalog
// chip on every calculator that takes a chip, on defaults otherwise. A refusal is fine here (the
// bad-input tests own the messages); a step that does not add up, or one left unsubstituted, is not.
std::vector<std::string> catalog_ids(const std::string& catalog_json) {
  std::vector<std::string> ids;
  for (const json& entry : json::parse(catalog_json)) ids.push_back(entry["id"].get<std::string>());
  return ids;
}

std::vector<std::string> calculators_taking(const std::string& kind) {
  std::vector<std::string> names;
  const json all = json::parse(scalelab::calculators_json());
  for (const json& calc : all["calculators"]) {
    for (const json& param : calc["params"]) {
      if (param["name"] == kind && param["type"] == kind) names.push_back(calc["name"].get<std::string>());
    }
  }
  return names;
}

TEST(Steps, EveryCatalogModelAndChipStepAddsUp) {
  std::vector<Mismatch> bad;
  int checked = 0, evaluated = 0;
  std::set<std::string> evaluated_models;  // models some calculator evaluated, their steps checked
  for (const std::string kind : {"model", "chip"}) {
    auto ids = catalog_ids(kind == "model" ? scalelab::models_json() : scalelab::chips_json());
    auto calculators = calculators_taking(kind);
    ASSERT_FALSE(ids.empty()) << kind;
    ASSERT_FALSE(calculators.empty()) << kind;
    for (const std::string& calc : calculators) {
      for (const std::string& id : ids) {
        scalelab::Evaluation e = scalelab::evaluate(calc, json{{kind, id}}.dump());
        ASSERT_NE(e.status, scalelab::Status::internal) << calc << " " << kind << " " << id << ": " << e.json;
        if (e.status != scalelab::Status::ok) continue;
        ++evaluated;
        if (kind == "model") evaluated_models.insert(id);
        auto more = check_steps(calc + " " + id, json::parse(e.json), checked);
        bad.insert(bad.end(), more.begin(), more.end());
      }
    }
  }
  EXPECT_GT(evaluated, 500);
  EXPECT_GT(checked, 5000);
  // No book case is MoE or MLA: the catalog's are, and their steps are read here (DeepSeek-V3 both).
  for (const char* id : {"deepseek-v3", "mixtral-8x7b", "qwen3-30b-a3b", "gpt-oss-20b", "gpt-oss-120b"}) {
    EXPECT_TRUE(evaluated_models.count(id)) << id << " was evaluated by no calculator that takes a model";
  }
  EXPECT_TRUE(bad.empty()) << bad.size() << " of " << checked << " steps do not add up:\n" << report(bad);
}

// The MoE reads and several devices of issue 35 away from the defaults: every catalog model decoded
// at batches where part of its experts are read, run locally with its experts placed last, and
// split by rows over two RTX 3090s.
TEST(Steps, EveryCatalogModelsExpertReadsAddUp) {
  std::vector<Mismatch> bad;
  int checked = 0;
  for (const std::string& id : catalog_ids(scalelab::models_json())) {
    std::vector<std::pair<std::string, json>> runs = {
        {"decode", {{"model", id}, {"chip", "h100"}, {"chips", 16}, {"batch", 3}}},
        {"serving", {{"model", id}, {"chip", "h100"}, {"chips", 16}, {"batch", 5}}},
        {"local_inference", {{"model", id}, {"users", 2}, {"expert_placement", "experts_last"}}},
        {"local_inference", {{"model", id}, {"chip", "rtx-3090"}, {"devices", 2}, {"split", "row"}}}};
    for (const auto& [calc, in] : runs) {
      scalelab::Evaluation e = scalelab::evaluate(calc, in.dump());
      ASSERT_NE(e.status, scalelab::Status::internal) << calc << " " << id << ": " << e.json;
      if (e.status != scalelab::Status::ok) continue;
      auto more = check_steps(calc + " " + id, json::parse(e.json), checked);
      bad.insert(bad.end(), more.begin(), more.end());
    }
  }
  EXPECT_GT(checked, 1000);
  EXPECT_TRUE(bad.empty()) << bad.size() << " of " << checked << " steps do not add up:\n" << report(bad);
}

TEST(Steps, NumbersOnlyGivesTheSameOutputs) {
  for (const auto& c : scalelab::testing::cases()) {
    std::string input = c.raw["params"].dump();
    scalelab::Evaluation with = scalelab::evaluate(c.calculator, input);
    scalelab::Evaluation without = scalelab::evaluate(c.calculator, input, scalelab::EvalOptions{.steps = false});
    ASSERT_EQ(with.status, without.status) << c.id;
    if (with.status != scalelab::Status::ok) continue;
    json a = json::parse(with.json), b = json::parse(without.json);
    EXPECT_EQ(b["steps"], json::array()) << c.id;
    a.erase("steps");
    b.erase("steps");
    EXPECT_EQ(a, b) << c.id;
  }
}

}  // namespace
