// The book's worked problems (tests/cases/*.json) through the engine, in process.
// One test per case; comparison rules in tests/cases/FORMAT.md.
#include <gtest/gtest.h>

#include <set>

#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::testing::Case;
using scalelab::testing::json;

class BookCase : public ::testing::TestWithParam<Case> {};

TEST_P(BookCase, MatchesExpected) {
  const Case& c = GetParam();
  // A calculator name the engine does not know is a typo in the case file: fail, never skip.
  ASSERT_TRUE(scalelab::testing::registered_calculators().count(c.calculator))
      << "case " << c.id << " (" << c.file << ") names calculator \"" << c.calculator
      << "\", which the engine does not register";
  const json& raw = c.raw;
  ASSERT_TRUE(raw.contains("params")) << c.id;
  ASSERT_TRUE(raw.contains("expected")) << c.id;
  double rel_tol = raw.value("rel_tol", 1e-6);
  scalelab::Evaluation e = scalelab::evaluate(c.calculator, raw["params"].dump());
  ASSERT_EQ(e.status, scalelab::Status::ok)
      << c.id << ": " << (e.param.empty() ? "" : e.param + ": ") << e.message;
  json out = json::parse(e.json);
  ASSERT_TRUE(out.contains("outputs")) << e.json;
  std::string diff = scalelab::testing::compare(raw["expected"], out["outputs"], rel_tol, "");
  EXPECT_TRUE(diff.empty()) << c.id << " (" << c.file << ", " << raw.value("source", "") << ")\n"
                            << diff;
}

std::string name_of(const ::testing::TestParamInfo<Case>& info) {
  return scalelab::testing::test_name(info.param.id);
}

INSTANTIATE_TEST_SUITE_P(Cases, BookCase, ::testing::ValuesIn(scalelab::testing::cases()), name_of);

// The case files themselves: well formed, unique ids, and disputed cases carry what the
// errata page needs.
TEST(CaseFiles, WellFormed) {
  const auto& all = scalelab::testing::cases();
  ASSERT_FALSE(all.empty());
  std::set<std::string> ids;
  for (const Case& c : all) {
    EXPECT_TRUE(ids.insert(c.id).second) << "duplicate case id " << c.id;
    for (const char* field : {"chapter", "source", "summary", "calculator", "params", "expected"}) {
      EXPECT_TRUE(c.raw.contains(field)) << c.id << " lacks \"" << field << "\"";
    }
    EXPECT_TRUE(c.raw["params"].is_object()) << c.id;
    EXPECT_TRUE(c.raw["expected"].is_object()) << c.id;
    if (c.raw.contains("rel_tol")) {
      EXPECT_TRUE(c.raw["rel_tol"].is_number() && c.raw["rel_tol"].get<double>() >= 0) << c.id;
    }
  }
}

TEST(CaseFiles, DisputedCasesCarryBookValueAndNotes) {
  int disputed = 0;
  for (const Case& c : scalelab::testing::cases()) {
    if (!c.raw.value("disputed", false)) continue;
    ++disputed;
    EXPECT_TRUE(c.raw.contains("book_value") && !c.raw["book_value"].is_null())
        << c.id << ": a disputed case needs book_value (it feeds the errata page)";
    EXPECT_TRUE(c.raw.contains("notes") && c.raw["notes"].is_string() &&
                !c.raw["notes"].get<std::string>().empty())
        << c.id << ": a disputed case needs notes explaining the difference";
  }
  RecordProperty("disputed_cases", disputed);
}

}  // namespace
