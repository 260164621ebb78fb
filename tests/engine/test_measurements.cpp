// Published llama.cpp decode speeds (data/measurements.json) against the engine's bound: for
// each, local_inference's tokens/s at the same device, model, format and context is at least
// the measurement, and measured / bound lies in the band the file states.
#include <gtest/gtest.h>

#include <string>

#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::testing::json;

json measurements() {
  return json::parse(scalelab::testing::read_file(scalelab::testing::source_dir() + "/data/measurements.json"));
}

TEST(Measurements, EachHasItsSourceAndTheFieldsTheBoundNeeds) {
  json doc = measurements();
  ASSERT_TRUE(doc["band"]["min"].is_number() && doc["band"]["max"].is_number());
  ASSERT_GE(doc["measurements"].size(), 10u);
  for (const auto& m : doc["measurements"]) {
    for (const char* field : {"id", "chip", "model", "weight_format", "kv_format", "context", "tokens_per_s", "source"}) {
      EXPECT_TRUE(m.contains(field)) << m.dump() << " lacks " << field;
    }
    EXPECT_NE(m["source"].get<std::string>().find("https://"), std::string::npos) << m["id"];
  }
}

TEST(Measurements, TheBoundHoldsAndTheRatioLiesInTheStatedBand) {
  json doc = measurements();
  double lo = doc["band"]["min"], hi = doc["band"]["max"];
  for (const auto& m : doc["measurements"]) {
    json input = {{"chip", m["chip"]}, {"model", m["model"]}, {"weight_format", m["weight_format"]},
                  {"kv_format", m["kv_format"]}, {"context", m["context"]}, {"users", 1}};
    scalelab::Evaluation e = scalelab::evaluate("local_inference", input.dump());
    ASSERT_EQ(e.status, scalelab::Status::ok) << m["id"] << ": " << e.param << ": " << e.message;
    json out = json::parse(e.json)["outputs"];
    EXPECT_TRUE(out["fits"].get<bool>()) << m["id"] << ": the measured run held the model on the device";
    double bound = out["tokens_per_s"], measured = m["tokens_per_s"];
    double ratio = measured / bound;
    EXPECT_GE(bound, measured) << m["id"];
    EXPECT_GE(ratio, lo) << m["id"] << ": measured " << measured << " of a " << bound << " tokens/s bound";
    EXPECT_LE(ratio, hi) << m["id"] << ": measured " << measured << " of a " << bound << " tokens/s bound";
  }
}

}  // namespace
