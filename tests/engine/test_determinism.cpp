// Same input, same bytes: across calls, across threads, and whatever the key order.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::testing::json;

std::vector<std::pair<std::string, std::string>> inputs() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& c : scalelab::testing::cases()) {
    if (scalelab::testing::registered_calculators().count(c.calculator)) {
      out.emplace_back(c.calculator, c.raw["params"].dump());
    }
  }
  out.emplace_back("roofline", R"({"flops": NaN})");
  out.emplace_back("transfer", R"({"chips": 0})");
  return out;
}

// The top-level keys in reverse order. (Free-key maps such as "dims" are echoed in the
// caller's order, so only the schema-ordered top level is reversed.)
json reversed(const json& j) {
  json out = json::object();
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  for (auto k = keys.rbegin(); k != keys.rend(); ++k) out[*k] = j[*k];
  return out;
}

TEST(Determinism, SameInputSameBytes) {
  auto all = inputs();
  std::vector<std::string> first;
  for (const auto& [name, input] : all) first.push_back(scalelab::evaluate(name, input).json);
  // again, in reverse order, so no call can depend on an earlier one
  for (size_t i = all.size(); i-- > 0;) {
    EXPECT_EQ(scalelab::evaluate(all[i].first, all[i].second).json, first[i]) << all[i].first << " " << all[i].second;
  }
}

TEST(Determinism, KeyOrderAndWhitespaceDoNotMatter) {
  for (const auto& c : scalelab::testing::cases()) {
    if (!scalelab::testing::registered_calculators().count(c.calculator)) continue;
    std::string a = scalelab::evaluate(c.calculator, c.raw["params"].dump()).json;
    std::string b = scalelab::evaluate(c.calculator, reversed(c.raw["params"]).dump(2)).json;
    EXPECT_EQ(a, b) << c.id;
  }
}

TEST(Determinism, ConcurrentCallsAgree) {
  auto all = inputs();
  std::vector<std::string> expected;
  for (const auto& [name, input] : all) expected.push_back(scalelab::evaluate(name, input).json);
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round) {
        for (size_t i = 0; i < all.size(); ++i) {
          size_t k = (i + t * 7) % all.size();
          if (scalelab::evaluate(all[k].first, all[k].second).json != expected[k]) ++mismatches[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

TEST(Determinism, ResultsAreCanonical) {
  // Numbers carry at most 15 significant digits, so native and wasm print the same bytes.
  for (const auto& c : scalelab::testing::cases()) {
    if (!scalelab::testing::registered_calculators().count(c.calculator)) continue;
    scalelab::Evaluation e = scalelab::evaluate(c.calculator, c.raw["params"].dump());
    if (e.status != scalelab::Status::ok) continue;
    json r = json::parse(e.json);
    EXPECT_EQ(scalelab::testing::shortest_dump(r), e.json) << c.id << ": output is compact JSON, with the shortest digits";
    for (const char* key : {"calculator", "inputs", "outputs", "steps", "warnings"}) {
      EXPECT_TRUE(r.contains(key)) << c.id << " lacks " << key;
    }
    for (const auto& s : r["steps"]) {
      for (const char* key : {"label", "formula", "substituted", "value", "unit"}) {
        EXPECT_TRUE(s.contains(key)) << c.id << " step lacks " << key;
      }
    }
  }
}

}  // namespace
