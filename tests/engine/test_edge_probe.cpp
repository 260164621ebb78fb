// Edge probe: every numeric parameter of every calculator at the ends of its declared range
// (and, for a real range from 0, at the smallest positive number),
// alone and in pairs, on top of valid base inputs (the calculator's defaults and its book
// cases). A refusal (bad_input) is fine; an engine fault (status internal) never is.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::testing::json;

// One numeric parameter: where it sits in the input ("matmul" "B" for matmul.B) and its ends.
struct Knob {
  std::vector<std::string> path;
  double low, high;
  // For a real range that includes 0: the smallest positive double, where divisions blow up.
  std::optional<double> least_positive;
  std::string name() const {
    std::string n;
    for (const auto& p : path) n += (n.empty() ? "" : ".") + p;
    return n;
  }
};

double lowest(const json& p) {
  double min = p.at("min").get<double>();
  if (!p.value("min_exclusive", false)) return min;
  // The smallest value the range admits: the next double above an exclusive minimum.
  double next = std::nextafter(min, std::numeric_limits<double>::infinity());
  return p.at("type") == "integer" ? std::floor(min) + 1 : next;
}

void collect(const json& params, std::vector<std::string> prefix, std::vector<Knob>& out) {
  for (const json& p : params) {
    std::vector<std::string> path = prefix;
    path.push_back(p.at("name").get<std::string>());
    std::string type = p.at("type").get<std::string>();
    if (type == "number" || type == "integer") {
      Knob k{path, lowest(p), p.at("max").get<double>(), std::nullopt};
      if (type == "number" && k.low == 0) k.least_positive = std::numeric_limits<double>::denorm_min();
      out.push_back(k);
    } else if (type == "object" && p.contains("fields")) {
      collect(p["fields"], path, out);
    }
  }
}

void set(json& input, const Knob& k, double value) {
  json* at = &input;
  for (size_t i = 0; i + 1 < k.path.size(); ++i) {
    if (!at->contains(k.path[i]) || !(*at)[k.path[i]].is_object()) (*at)[k.path[i]] = json::object();
    at = &(*at)[k.path[i]];
  }
  (*at)[k.path.back()] = value;
}

struct Probe {
  std::string calculator;
  json input;
};

// Valid bases: the defaults ({}), then each book case of the calculator.
std::map<std::string, std::vector<json>> bases() {
  std::map<std::string, std::vector<json>> out;
  for (const std::string& name : scalelab::testing::registered_calculators()) {
    if (scalelab::evaluate(name, "{}").status == scalelab::Status::ok) out[name].push_back(json::object());
  }
  for (const auto& c : scalelab::testing::cases()) {
    if (scalelab::evaluate(c.calculator, c.raw["params"].dump()).status == scalelab::Status::ok) {
      out[c.calculator].push_back(c.raw["params"]);
    }
  }
  return out;
}

std::map<std::string, std::vector<Knob>> knobs() {
  std::map<std::string, std::vector<Knob>> out;
  json all = json::parse(scalelab::calculators_json());
  for (const json& c : all["calculators"]) collect(c["params"], {}, out[c["name"].get<std::string>()]);
  return out;
}

constexpr int kShown = 100000;

// Under AddressSanitizer an evaluation costs about eight times what it costs in the release
// build, and the pairs below were 213 of the sanitizer run's 756 test-seconds. The release run
// probes every pair; the sanitizer run probes one pair in four (another quarter on the second
// base), and every range end alone (the test above) under the sanitizer.
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kPairStride = 4;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr size_t kPairStride = 4;
#else
constexpr size_t kPairStride = 1;
#endif
#else
constexpr size_t kPairStride = 1;
#endif

class EdgeProbe : public ::testing::Test {
 protected:
  int evaluations = 0, refusals = 0, internal = 0;
  std::vector<std::string> faults;

  void probe(const std::string& calculator, const json& input, const std::string& knobs) {
    ++evaluations;
    scalelab::Evaluation e = scalelab::evaluate(calculator, input.dump());
    if (e.status == scalelab::Status::internal && ++internal <= kShown) {
      faults.push_back(calculator + " [" + knobs + "] " + input.dump() + "\n    -> " + e.message);
    }
    if (e.status == scalelab::Status::bad_input) ++refusals;
  }
};

TEST_F(EdgeProbe, EveryRangeEndAloneOnEveryBase) {
  auto all_knobs = knobs();
  for (const auto& [calculator, list] : bases()) {
    for (const json& base : list) {
      for (const Knob& k : all_knobs[calculator]) {
        std::vector<double> ends = {k.low, k.high};
        if (k.least_positive) ends.push_back(*k.least_positive);
        for (double v : ends) {
          json input = base;
          set(input, k, v);
          probe(calculator, input, k.name() + "=" + std::to_string(v));
        }
      }
    }
  }
  EXPECT_GT(evaluations, refusals) << "the probe should mostly reach the arithmetic";
  std::string report;
  for (const auto& f : faults) report += "  " + f + "\n";
  EXPECT_EQ(internal, 0) << internal << " engine faults (first 40 shown) in " << evaluations
                              << " evaluations:\n" << report;
}

TEST_F(EdgeProbe, EveryPairOfRangeEndsOnTheFirstBase) {
  auto all_knobs = knobs();
  for (const auto& [calculator, list] : bases()) {
    const auto& ks = all_knobs[calculator];
    // The defaults, and the first book case when it differs (it often picks another input form).
    for (size_t b = 0; b < std::min<size_t>(2, list.size()); ++b) {
      size_t pair = b;
      for (size_t i = 0; i < ks.size(); ++i) {
        for (size_t j = i + 1; j < ks.size(); ++j) {
          if (pair++ % kPairStride != 0) continue;
          for (double vi : {ks[i].low, ks[i].high}) {
            for (double vj : {ks[j].low, ks[j].high}) {
              json input = list[b];
              set(input, ks[i], vi);
              set(input, ks[j], vj);
              probe(calculator, input, ks[i].name() + "=" + std::to_string(vi) + " " + ks[j].name() + "=" + std::to_string(vj));
            }
          }
        }
      }
    }
  }
  std::string report;
  for (const auto& f : faults) report += "  " + f + "\n";
  EXPECT_EQ(internal, 0) << internal << " engine faults (first 40 shown) in "
                              << evaluations << " evaluations:\n" << report;
}

}  // namespace
