// Published llama.cpp decode speeds (data/measurements.json) against the engine's bound: for
// each, local_inference's tokens/s at the same device, model, format and context is at least
// the measurement, and measured / bound lies in the band the file states.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// Our own timings of one decode step's matmuls on a real GPU (data/measurements.json,
// decode_steps; bench/device/decode_step.py): every row lies above the engine's step-time bound
// for the same chip, model, batch and context, within a factor the page can defend; a run without
// a cache shows both regimes (flat in the batch while the weights' bytes dominate, then growing
// with it), a run with one grows with the batch as its caches' reads do.
TEST(Measurements, MeasuredDecodeStepsLieAboveTheBoundAndShowBothRegimes) {
  json doc = measurements();
  ASSERT_TRUE(doc.contains("decode_steps"));
  for (const auto& run : doc["decode_steps"]) {
    for (const char* field : {"id", "chip", "model", "weight_format", "compute_dtype", "chips", "context", "hardware", "software", "source", "rows"}) {
      ASSERT_TRUE(run.contains(field)) << run["id"] << " lacks " << field;
    }
    EXPECT_NE(run["source"].get<std::string>().find("bench/device/decode_step.py"), std::string::npos) << run["id"];
    const auto& rows = run["rows"];
    ASSERT_GE(rows.size(), 6u);
    std::vector<double> bounds;
    for (const auto& row : rows) {
      double batch = row[0], measured = row[1];
      json input = {{"chip", run["chip"]}, {"model", run["model"]}, {"chips", run["chips"]}, {"batch", batch},
                    {"context", run["context"]}, {"weight_dtype", run["weight_format"]}, {"compute_dtype", run["compute_dtype"]}};
      scalelab::Evaluation e = scalelab::evaluate("decode", input.dump());
      ASSERT_EQ(e.status, scalelab::Status::ok) << run["id"] << ": " << e.param << ": " << e.message;
      double bound = json::parse(e.json)["outputs"]["step_s"];
      bounds.push_back(bound);
      EXPECT_GE(measured, bound) << run["id"] << " at batch " << batch;
      EXPECT_LE(measured / bound, 2.5) << run["id"] << " at batch " << batch;
    }
    double first = rows.front()[1], last = rows.back()[1];
    if (run["context"].get<double>() == 0) {
      double batch_ratio = rows.back()[0].get<double>() / rows.front()[0].get<double>();
      EXPECT_LT(rows[4][1].get<double>() / first, 1.05) << run["id"] << ": flat while memory-bound";
      EXPECT_GT(last / first, batch_ratio / 200) << run["id"] << ": growing with the batch once compute-bound";
    } else {
      // with a KV cache every sequence adds its cache's read: the measured step grows with the
      // batch at least half as much as the engine's bound says it must
      double grew = last - first, bound_grew = bounds.back() - bounds.front();
      EXPECT_GT(grew, 0.5 * bound_grew) << run["id"] << ": each sequence's cache read";
    }
  }
}

}  // namespace
