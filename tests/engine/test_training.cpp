// Training as it is run (issue 36): training_memory's parts per chip and the strategy that
// prices its degrees.
#include <gtest/gtest.h>

#include <string>

#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::testing::json;

json outputs_of(const std::string& calculator, const json& input) {
  scalelab::Evaluation e = scalelab::evaluate(calculator, input.dump());
  EXPECT_EQ(e.status, scalelab::Status::ok) << input.dump() << ": " << e.param << ": " << e.message;
  return json::parse(e.json)["outputs"];
}

TEST(TrainingMemory, PartsPerChipAddUpToBytesPerChip) {
  for (json input : {json{{"chip", "tpu-v5p"}, {"model", "llama3-70b"}, {"chips", 256}, {"dp", 2}, {"tp", 4}, {"pp", 2}},
                     json{{"chip", "h100"}, {"model", "llama3-8b"}, {"chips", 8}, {"grad_bytes_per_param", 4},
                          {"master_bytes_per_param", 4}, {"checkpointing", "block"}}}) {
    json o = outputs_of("training_memory", input);
    double sum = 0;
    for (const char* part : {"params", "grads", "optimizer", "master", "activations"}) {
      sum += o[std::string(part) + "_bytes_per_chip"].get<double>();
    }
    EXPECT_NEAR(sum, o["bytes_per_chip"].get<double>(), 1e-9 * sum) << input.dump();
  }
}

TEST(TrainingMemory, CommStrategyFollowsTheDegreesAndTheChip) {
  auto strategy = [](json input) { return outputs_of("training_memory", input)["comm_strategy"]; };
  EXPECT_EQ(strategy({{"chip", "tpu-v5p"}, {"chips", 64}, {"fsdp", 16}, {"tp", 4}}), "fsdp_tp");
  EXPECT_EQ(strategy({{"chip", "h100"}, {"chips", 64}, {"fsdp", 8}, {"tp", 8}}), "fsdp");
  EXPECT_EQ(strategy({{"chip", "tpu-v5p"}, {"chips", 64}, {"dp", 2}, {"fsdp", 8}, {"tp", 4}}), "fsdp");
  EXPECT_EQ(strategy({{"chip", "tpu-v5p"}, {"chips", 64}, {"pp", 4}}), "pp");
  EXPECT_EQ(strategy({{"chip", "tpu-v5p"}, {"chips", 16}, {"dp", 16}}), "dp");
  EXPECT_EQ(strategy({{"chip", "tpu-v5p"}, {"chips", 8}, {"tp", 8}}), "tp");
  EXPECT_TRUE(strategy({{"chip", "tpu-v5p"}, {"chips", 1}}).is_null());
}

}  // namespace
