// The bad-input matrix (tests/bad_inputs.json) through the engine in process, and through
// the CLI (exit 2, one stderr line naming the parameter, the error JSON on stdout).
// The HTTP front runs the same matrix in test_server.cpp, WebAssembly in tests/node/.
#include <gtest/gtest.h>

#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::testing::BadInput;
using scalelab::testing::json;

class BadInputMatrix : public ::testing::TestWithParam<BadInput> {
 protected:
  void SetUp() override {
    // a row naming a calculator the engine does not have is a typo in tests/bad_inputs.json, not a
    // row to pass over
    ASSERT_TRUE(scalelab::testing::registered_calculators().count(GetParam().calculator))
        << "calculator \"" << GetParam().calculator << "\" is not registered";
  }
};

void check_error_json(const BadInput& b, const std::string& text) {
  json j;
  ASSERT_NO_THROW(j = json::parse(text)) << text;
  ASSERT_TRUE(j.contains("error")) << b.id << ": expected an error, got " << text.substr(0, 300);
  const json& err = j["error"];
  EXPECT_EQ(err["param"], b.param) << b.id << ": " << text;
  ASSERT_TRUE(err["message"].is_string()) << text;
  EXPECT_NE(err["message"].get<std::string>().find(b.contains), std::string::npos)
      << b.id << ": message should contain \"" << b.contains << "\": " << text;
}

TEST_P(BadInputMatrix, InProcess) {
  const BadInput& b = GetParam();
  scalelab::Evaluation e = scalelab::evaluate(b.calculator, b.input);
  EXPECT_EQ(e.status, scalelab::Status::bad_input) << b.id << ": " << e.json.substr(0, 300);
  check_error_json(b, e.json);
  EXPECT_EQ(e.param, b.param.is_null() ? "" : b.param.get<std::string>());
}

#ifdef SCALELAB_TEST_BIN
TEST_P(BadInputMatrix, Cli) {
  const BadInput& b = GetParam();
  // Inputs go through stdin ("-"), so that even the 64 KiB ones fit.
  auto r = scalelab::testing::run({scalelab::testing::scalelab_bin(), "eval", b.calculator, "-"}, b.input);
  EXPECT_EQ(r.signal, 0) << b.id << ": killed by signal";
  EXPECT_EQ(r.exit_code, 2) << b.id << "\nstdout: " << r.out.substr(0, 300) << "\nstderr: " << r.err;
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out, scalelab::evaluate(b.calculator, b.input).json + "\n") << "the CLI prints the engine's bytes";
  check_error_json(b, r.out);
  // one line on stderr that names the parameter
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "exactly one line: " << r.err;
  if (b.param.is_string()) {
    EXPECT_NE(r.err.find(b.param.get<std::string>()), std::string::npos) << r.err;
  }
  EXPECT_NE(r.err.find(b.contains), std::string::npos) << r.err;
}
#endif

std::string name_of(const ::testing::TestParamInfo<BadInput>& info) {
  return scalelab::testing::test_name(info.param.id);
}

INSTANTIATE_TEST_SUITE_P(Matrix, BadInputMatrix, ::testing::ValuesIn(scalelab::testing::bad_inputs()), name_of);

TEST(BadInputFile, CoversTheContract) {
  const auto& all = scalelab::testing::bad_inputs();
  EXPECT_GE(all.size(), 100u);
  std::set<std::string> ids, calculators;
  for (const auto& b : all) {
    EXPECT_TRUE(ids.insert(b.id).second) << "duplicate id " << b.id;
    calculators.insert(b.calculator);
    EXPECT_FALSE(b.contains.empty()) << b.id;
  }
  for (const char* c : {"chip", "roofline", "transfer", "sharding", "collective", "sharded_matmul",
                        "transformer", "training_memory", "training_comm", "training_run", "prefill",
                        "decode", "serving", "compute_budget"}) {
    EXPECT_TRUE(calculators.count(c)) << "no bad inputs for " << c;
  }
}

}  // namespace
