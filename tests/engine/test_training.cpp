// Training as it is run (issue 36): training_memory's parts per chip and the strategy that
// prices its degrees.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

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

// One chip (an RTX 4090 with no pod, or chips: 1 on any chip) communicates nothing: no fabric
// is read, the communication time is 0, the layer's math is the same as with chips to share it.
TEST(TrainingComm, OneChipHasNothingToCommunicate) {
  for (json input : {json{{"chip", "rtx-4090"}}, json{{"chip", "h100"}, {"chips", 1}}}) {
    json o = outputs_of("training_comm", input);
    EXPECT_EQ(o["t_comm_s"], 0) << input.dump();
    EXPECT_EQ(o["bound"], "compute");
    for (const char* none : {"fabric", "collective_intensity", "ring_factor", "critical_batch_tokens"}) {
      EXPECT_TRUE(o[none].is_null()) << none << " " << input.dump();
    }
  }
  json one = outputs_of("training_comm", {{"chip", "h100"}, {"chips", 1}});
  json eight = outputs_of("training_comm", {{"chip", "h100"}, {"chips", 8}});
  double t = one["t_math_s"].get<double>();  // outputs carry 15 significant digits
  EXPECT_NEAR(t, 8 * eight["t_math_s"].get<double>(), 1e-12 * t);
}

// The model's rules hold on one chip too, and one chip's math is the strategy's own: expert
// parallelism counts the k routed experts there as it does across chips (4 B k D F / (N C)).
TEST(TrainingComm, OneChipKeepsTheModelsRulesAndTheStrategysMath) {
  scalelab::Evaluation dense = scalelab::evaluate("training_comm", json{{"chip", "h100"}, {"chips", 1},
                                                                        {"strategy", "ep"}}.dump());
  EXPECT_EQ(dense.status, scalelab::Status::bad_input);
  EXPECT_EQ(dense.param, "strategy");
  auto moe = [](int chips) {
    return json{{"chip", "h100"}, {"model", "deepseek-v3"}, {"strategy", "ep"}, {"batch_tokens", 65536},
                {"chips", chips}};
  };
  json one = outputs_of("training_comm", moe(1));
  json many = outputs_of("training_comm", moe(32));
  double t = one["t_math_s"].get<double>();
  EXPECT_NEAR(t, 32 * many["t_math_s"].get<double>(), 1e-12 * t);
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

namespace {

using scalelab::testing::json;

json run_ok(const std::string& calculator, const json& input) {
  scalelab::Evaluation e = scalelab::evaluate(calculator, input.dump());
  EXPECT_EQ(e.status, scalelab::Status::ok) << input.dump() << ": " << e.param << ": " << e.message;
  return json::parse(e.json);
}

std::string refusal(const std::string& calculator, const json& input) {
  scalelab::Evaluation e = scalelab::evaluate(calculator, input.dump());
  EXPECT_EQ(e.status, scalelab::Status::bad_input) << input.dump();
  return e.param;
}

// Llama 3 405B as the Llama 3 paper trained it: 8,192 H100s, TP 8, PP 16, DP 64, 16M-token batches
// of 8k sequences (The Llama 3 Herd of Models, Table 4).
json llama3_405b(json extra = json::object()) {
  json in = {{"chip", "h100"}, {"model", "llama3-405b"}, {"chips", 8192}, {"batch_tokens", 2048 * 8192},
             {"T", 8192}, {"accounting", "practice"}, {"grad_bytes_per_param", 4}, {"master_bytes_per_param", 4},
             {"top_n", 5}, {"layout", {{"tp", 8}, {"pp", 16}, {"dp", 64}}}};
  in.update(extra);
  return in;
}

TEST(TrainingRun, Llama3LayoutFitsIn80GBWithItsPartsAndStepTime) {
  json r = run_ok("training_run", llama3_405b());
  const json& check = r["outputs"]["layout_check"];
  ASSERT_TRUE(check.is_object());
  EXPECT_TRUE(check["fits"].get<bool>()) << check.dump();
  EXPECT_EQ(check["tp"], 8);
  EXPECT_EQ(check["pp"], 16);
  EXPECT_EQ(check["dp"].get<double>() * check["fsdp"].get<double>(), 64);
  EXPECT_LT(check["bytes_per_chip"].get<double>(), 80e9);
  double sum = 0;
  for (auto& [part, bytes] : check["parts"].items()) sum += bytes.get<double>();
  EXPECT_NEAR(sum, check["bytes_per_chip"].get<double>(), 1e-6 * sum);
  EXPECT_GT(check["parts"]["activations"].get<double>(), 0);
  EXPECT_EQ(check["stage_layers"], "stage 1: 7 layers, stages 2–15: 8 each, stage 16: 7 layers" +
                                       std::string(check["virtual_stages"] == 1 ? "" : " (" +
                                           std::to_string(int(check["virtual_stages"].get<double>())) + " chunks each)"));
  // the bound lies below the published 430 TFLOP/s per GPU (11.6 s a step) and above its half
  double published = 6 * r["outputs"]["params"].get<double>() * 2048 * 8192 / (8192 * 430e12);
  EXPECT_LT(check["step_s"].get<double>(), published);
  EXPECT_GT(check["step_s"].get<double>(), 0.4 * published);
  EXPECT_GE(check["step_s"].get<double>(), check["fastest_step_s"].get<double>());
  // without rematerialisation the same layout does not fit, and says which part overflows
  json none = run_ok("training_run", llama3_405b({{"layout", {{"tp", 8}, {"pp", 16}, {"dp", 64}, {"checkpointing", "none"},
                                                             {"micro_batch", 1}, {"schedule", "1f1b"}}},
                                                  {"search", false}}))["outputs"]["layout_check"];
  EXPECT_FALSE(none["fits"].get<bool>());
  EXPECT_EQ(none["reason"], "memory");
  EXPECT_NE(none["message"].get<std::string>().find("saved activations"), std::string::npos) << none.dump();
}

TEST(TrainingRun, SearchRanksOverAHundredThousandLayoutsAndExplainsEveryRefusal) {
  json o = run_ok("training_run", llama3_405b({{"rejected_samples", 40}}))["outputs"];
  EXPECT_GE(o["layouts_evaluated"].get<double>(), 100000);
  EXPECT_GT(o["layouts_fitting"].get<double>(), 0);
  for (const json& l : o["layouts"]) {
    EXPECT_LE(l["tp"].get<double>(), 8) << "TP stays inside the 8-GPU NVLink domain: " << l.dump();
    EXPECT_LE(l["bytes_per_chip"].get<double>() * 0.85, 80e9);
  }
  for (auto& [reason, count] : o["rejected_counts"].items()) {
    EXPECT_TRUE(o["rejected_reasons"].contains(reason)) << reason;
  }
  EXPECT_FALSE(o["rejected"].empty());
  for (const json& l : o["rejected"]) {
    EXPECT_GT(l["message"].get<std::string>().size(), 20u) << l.dump();
    EXPECT_NE(l["reason"], "none");
  }
}

TEST(TrainingRun, BothMfuConventionsAreNamedAndConvert) {
  json in = {{"chip", "h100"}, {"model", "llama3-8b"}, {"chips", 64}, {"T", 8192}, {"tokens", 1e12}, {"mfu", 0.4},
             {"search", false}};
  json a = run_ok("training_run", in)["outputs"];
  EXPECT_EQ(a["mfu_convention"], "6pd");
  double ratio = a["total_flops_with_attention"].get<double>() / a["total_flops"].get<double>();
  EXPECT_GT(ratio, 1.1);  // at an 8k context causal attention adds about an eighth for an 8B model
  EXPECT_NEAR(a["mfu_with_attention"].get<double>(), 0.4 * ratio, 1e-12);
  in["mfu_convention"] = "attention";
  json b = run_ok("training_run", in)["outputs"];
  EXPECT_NEAR(b["mfu"].get<double>(), 0.4 / ratio, 1e-12);
  EXPECT_NEAR(b["t_s"].get<double>(), a["t_s"].get<double>() * ratio, 1e-9 * b["t_s"].get<double>());
}

// Attention is counted as a causal model executes it, in the run's FLOPs and in the layout's step
// alike, so no MFU passes 1: not a layout's at its bound (131k-token sequences, where attention is
// a third of the work), and not a given 6·P·D MFU near 1, where the MFU with attention is null and
// a warning names the highest 6·P·D MFU that leaves attention its time.
TEST(TrainingRun, NoMfuPassesOne) {
  json o = run_ok("training_run", llama3_405b({{"T", 131072}, {"layout", {{"tp", 8}, {"pp", 16}, {"cp", 16}, {"dp", 4}}},
                                              {"chips", 8192}}))["outputs"];
  ASSERT_TRUE(o["layout_check"].is_object());
  json layouts = o["layouts"];
  layouts.push_back(o["layout_check"]);
  for (const json& l : layouts) {
    EXPECT_LE(l["mfu"].get<double>(), 1) << l.dump();
    EXPECT_LE(l["mfu_with_attention"].get<double>(), 1) << l.dump();
    EXPECT_GT(l["mfu_with_attention"].get<double>(), l["mfu"].get<double>()) << l.dump();
  }
  json at_peak = run_ok("training_run", {{"chip", "h100"}, {"model", "llama3-8b"}, {"chips", 64}, {"T", 8192},
                                         {"tokens", 1e12}, {"mfu", 1}, {"search", false}});
  EXPECT_TRUE(at_peak["outputs"]["mfu_with_attention"].is_null());
  EXPECT_GT(at_peak["outputs"]["total_flops_with_attention"].get<double>(), at_peak["outputs"]["total_flops"].get<double>());
  EXPECT_NE(at_peak["warnings"].dump().find("the highest MFU counted as 6·P·D is 0."), std::string::npos)
      << at_peak["warnings"].dump();
  // chip-hours below what 6·P·D needs at the chips' peak are refused, naming the figure
  EXPECT_EQ(refusal("training_run", {{"chip", "h100"}, {"model", "llama3-8b"}, {"chips", 64}, {"tokens", 1e12},
                                     {"chip_hours", 1000}, {"search", false}}),
            "chip_hours");
}

TEST(TrainingRun, OneNodeNeedsNoInfiniBandFigure) {
  json in = {{"chip", "h100-pcie"}, {"model", "llama3.2-1b"}, {"chips", 2}, {"batch_tokens", 65536}, {"T", 4096}};
  json o = run_ok("training_run", in)["outputs"];
  EXPECT_FALSE(o["layouts"].is_null());
  in["chips"] = 8;  // four NVLink pairs: beyond a pair the catalog has no network figure
  json r = run_ok("training_run", in);
  EXPECT_TRUE(r["outputs"]["layouts"].is_null());
  bool warned = false;
  for (const json& w : r["warnings"]) warned = warned || w.get<std::string>().find("ib_bytes_per_s") != std::string::npos;
  EXPECT_TRUE(warned) << r["warnings"].dump();
}

TEST(TrainingMemory, PracticePartsCarryTheirSourcesAndAddUp) {
  json in = {{"chip", "h100"}, {"model", "llama3-8b"}, {"chips", 8}, {"batch_tokens", 16 * 8192}, {"T", 8192},
             {"micro_batch", 2}, {"checkpointing", "selective"}, {"accounting", "practice"},
             {"weight_dtype", "fp32"}, {"grad_bytes_per_param", 4}};
  json o = run_ok("training_memory", in)["outputs"];
  double sum = 0;
  for (const json& p : o["memory_parts"]) {
    EXPECT_FALSE(p["source"].get<std::string>().empty());
    EXPECT_EQ(p["bytes"], o[p["part"].get<std::string>() + "_bytes_per_chip"]) << p.dump();
    sum += p["bytes"].get<double>();
  }
  EXPECT_NEAR(sum, o["bytes_per_chip"].get<double>(), 1e-9 * sum);
  EXPECT_GT(o["logits_bytes_per_chip"].get<double>(), 0);
  EXPECT_GT(o["fsdp_buffers_bytes_per_chip"].get<double>(), 0);
  EXPECT_EQ(o["micro_batches"], 1);
  EXPECT_EQ(o["accounting"], "practice");
}

TEST(TrainingMemory, MicroBatchesAndSchedulesChangeOnlyWhatIsInFlight) {
  json base = {{"chip", "h100"}, {"model", "llama3-70b"}, {"chips", 64}, {"tp", 8}, {"pp", 8}, {"batch_tokens", 64 * 8192},
               {"T", 8192}, {"micro_batch", 1}};
  auto in_flight = [&](const char* schedule) {
    json in = base;
    in["schedule"] = schedule;
    return run_ok("training_memory", in)["outputs"]["in_flight_micro_batches"].get<double>();
  };
  EXPECT_EQ(in_flight("gpipe"), 64);  // every micro-batch of the replica
  EXPECT_EQ(in_flight("1f1b"), 8);    // one per stage
  EXPECT_EQ(in_flight("zero_bubble"), 8);
  EXPECT_EQ(in_flight("dualpipe"), 9);
  EXPECT_DOUBLE_EQ(in_flight("interleaved"), 8 + 7.0 / 2);
}

TEST(TrainingMemory, RefusesWhatCannotBeLaidOut) {
  json base = {{"chip", "h100"}, {"model", "llama3-8b"}, {"chips", 64}, {"batch_tokens", 64 * 8192}, {"T", 8192}};
  auto with = [&](json extra) {
    json in = base;
    in.update(extra);
    return refusal("training_memory", in);
  };
  EXPECT_EQ(with({{"micro_batch", 3}}), "micro_batch");
  EXPECT_EQ(with({{"zero_stage", 1}}), "zero_stage");  // fsdp already takes every chip
  EXPECT_EQ(with({{"pp", 4}, {"virtual_stages", 2}}), "virtual_stages");
  EXPECT_EQ(with({{"cp", 3}, {"chips", 48}}), "cp");
  EXPECT_EQ(with({{"ep", 2}}), "ep");
  EXPECT_EQ(with({{"pp", 3}, {"chips", 48}, {"schedule", "dualpipe"}}), "pp");  // DualPipe pairs stages
}

// The settings training_run's search tries (micro-batch, ZeRO stage, rematerialisation, schedule)
// are marked searched in its schema, with no default: omitted, the search tries each; given, each
// narrows it, the value training_memory would default to included (a lab's "any" is the omission).
// On the run's own all-FSDP layout a ZeRO stage or micro-batch it cannot take is no refusal there.
TEST(TrainingRun, SearchedSettingsNarrowTheSearch) {
  json schema = json::parse(scalelab::calculator_json("training_run"));
  json memory = json::parse(scalelab::calculator_json("training_memory"));
  for (const char* name : {"micro_batch", "zero_stage", "checkpointing", "schedule"}) {
    auto param = [&](const json& calc) {
      for (const json& p : calc["params"]) {
        if (p["name"] == name) return p;
      }
      return json();
    };
    EXPECT_EQ(param(schema).value("searched", false), true) << name;
    EXPECT_TRUE(param(schema)["default"].is_null()) << name;
    EXPECT_FALSE(param(memory).contains("searched")) << name;
  }
  json base = {{"chip", "h100"}, {"model", "llama3-8b"}, {"chips", 64}, {"batch_tokens", 256 * 8192}, {"T", 8192},
               {"top_n", 1000}};
  json any = run_ok("training_run", base)["outputs"];
  std::set<std::string> schedules;
  for (const json& l : any["layouts"]) {
    if (l["schedule"].is_string()) schedules.insert(l["schedule"].get<std::string>());
  }
  EXPECT_GT(schedules.size(), 1u) << "omitted, the search tries several schedules";
  json narrowed = base;
  narrowed.update({{"schedule", "1f1b"}, {"zero_stage", 1}, {"micro_batch", 2}});
  json r = run_ok("training_run", narrowed);
  json o = r["outputs"];
  ASSERT_FALSE(o["layouts"].empty());
  for (const json& l : o["layouts"]) {
    if (l["pp"] != 1) {
      EXPECT_EQ(l["schedule"], "1f1b") << l.dump();
    }
    EXPECT_EQ(l["zero_stage"], 1) << l.dump();
    EXPECT_EQ(l["micro_batch"], 2) << l.dump();
  }
  EXPECT_LT(o["layouts_evaluated"].get<double>(), any["layouts_evaluated"].get<double>());
  // the run's own layout (all 64 GPUs FSDP) shards everything ZeRO-1 would and gives each replica 4
  // sequences: micro-batches of 8 narrow the search, and a warning says the run's memory counts the whole batch
  narrowed["micro_batch"] = 8;
  json w = run_ok("training_run", narrowed);
  EXPECT_NE(w["warnings"].dump().find("layout search keeps micro-batches of 8"), std::string::npos) << w["warnings"].dump();
  // named degrees are the run's own layout: there the same values are refused, as training_memory refuses them
  json fixed = base;
  fixed.update({{"dp", 64}, {"micro_batch", 3}});
  EXPECT_EQ(refusal("training_run", fixed), "micro_batch");
}

TEST(TrainingRun, NamedLayoutMustMatchTheChips) {
  EXPECT_EQ(refusal("training_run", llama3_405b({{"layout", {{"tp", 8}, {"pp", 16}, {"dp", 32}}}})), "layout");
}

}  // namespace

// Published runs (data/measurements.json): each peak memory per GPU within ±15 % of the engine's
// estimate for the same setup (regime training-memory), and each run with a named layout slower
// than the engine's bound on that layout's step (layout_step_s: the measured seconds a step).
namespace {

using scalelab::testing::json;

json measurement_runs() {
  return json::parse(scalelab::testing::read_file(scalelab::testing::source_dir() + "/data/measurements.json"))["runs"];
}

TEST(TrainingRuns, PublishedPeakMemoryLiesWithinFifteenPercentOfTheEstimate) {
  int checked = 0;
  for (const json& run : measurement_runs()) {
    if (run["regime"] != "training-memory") continue;
    json o = run_ok(run["calculator"].get<std::string>(), run["inputs"])["outputs"];
    double estimate = o[run["measured"]["output"].get<std::string>()].get<double>();
    double measured = run["measured"]["value"].get<double>();
    EXPECT_NEAR(measured / estimate, 1.0, 0.15) << run["id"] << ": measured " << measured << ", estimate " << estimate;
    std::printf("  %-44s measured %.3g, estimate %.3g: %+.1f %%\n", run["id"].get<std::string>().c_str(), measured,
                estimate, 100 * (estimate / measured - 1));
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

TEST(TrainingRuns, PublishedStepsTakeLongerThanTheBoundOnTheirLayout) {
  int checked = 0;
  for (const json& run : measurement_runs()) {
    if (!run.contains("layout_step_s")) continue;
    json check = run_ok(run["calculator"].get<std::string>(), run["inputs"])["outputs"]["layout_check"];
    ASSERT_TRUE(check.is_object()) << run["id"];
    double bound = check["step_s"].get<double>(), measured = run["layout_step_s"].get<double>();
    EXPECT_LE(bound, measured) << run["id"] << ": the published step beats the engine's bound on its layout";
    EXPECT_GE(bound / measured, 0.1) << run["id"];
    std::printf("  %-44s step %.3g s, bound %.3g s on tp %g pp %g cp %g: %.2f of the bound's speed\n",
                run["id"].get<std::string>().c_str(), measured, bound, check["tp"].get<double>(),
                check["pp"].get<double>(), check["cp"].get<double>(), bound / measured);
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

}  // namespace

// A chip without a pod size (a consumer GPU, a Mac, a CPU) trains on one chip when no chips are
// given, and a warning says so; a chip with a pod still defaults to it. training_comm still asks
// for the fabric's figure where the chip has none (an RTX 4090 has no NVLink), even on one chip.
namespace {

using scalelab::testing::json;

TEST(TrainingDefaults, AChipWithoutAPodSizeTrainsOnOneChip) {
  for (const char* chip : {"a100", "rtx-4090", "apple-m2", "desktop-ddr5"}) {
    for (const char* calculator : {"training_memory", "training_comm", "training_run"}) {
      if (std::string(calculator) == "training_comm" && std::string(chip) != "a100") continue;
      scalelab::Evaluation e = scalelab::evaluate(calculator, json{{"chip", chip}}.dump());
      ASSERT_EQ(e.status, scalelab::Status::ok) << calculator << " on " << chip << ": " << e.param << ": " << e.message;
      json r = json::parse(e.json);
      EXPECT_EQ(r["outputs"]["chips"], 1) << calculator << " on " << chip;
      EXPECT_NE(r["warnings"].dump().find("has no pod size: one chip is assumed"), std::string::npos)
          << calculator << " on " << chip << ": " << r["warnings"].dump();
    }
  }
  scalelab::Evaluation pod = scalelab::evaluate("training_memory", json{{"chip", "tpu-v5p"}}.dump());
  ASSERT_EQ(pod.status, scalelab::Status::ok);
  EXPECT_EQ(json::parse(pod.json)["outputs"]["chips"], 8960);
}

}  // namespace

namespace {

using scalelab::testing::json;

json chip_entry(const std::string& id) {
  for (const auto& c : json::parse(scalelab::chips_json())) {
    if (c["id"] == id) return c;
  }
  ADD_FAILURE() << id << " is not in the catalog";
  return json::object();
}

std::string steps_of(const std::string& calculator, const json& input) {
  scalelab::Evaluation e = scalelab::evaluate(calculator, input.dump());
  EXPECT_EQ(e.status, scalelab::Status::ok) << e.message;
  return json::parse(e.json)["steps"].dump();
}

// Issue 34: every calculator that asks "does it fit" on a unified-memory machine gives the GPU the
// same default share of it (the chip's gpu_memory_share, 75 % on an M2 Max): 96 GiB × 0.75 =
// 77.3 GB in training_memory, training_run, decode and local_inference alike, said in a step.
TEST(UnifiedMemory, EveryFitUsesTheGpusShare) {
  json mac = chip_entry("apple-m2-max");
  double usable = mac["hbm_bytes"].get<double>() * mac["gpu_memory_share"].get<double>();
  EXPECT_NEAR(usable, 77.309e9, 1e6);
  json in = {{"chip", "apple-m2-max"}, {"model", "llama3-8b"}};
  EXPECT_NEAR(outputs_of("training_memory", in)["hbm_bytes"].get<double>(), usable, 1);
  EXPECT_NEAR(outputs_of("decode", {{"chip", "apple-m2-max"}, {"model", "llama3-8b"}, {"chips", 1}, {"batch", 1}})["slice_hbm_bytes"].get<double>(),
              usable, 1);
  EXPECT_NEAR(outputs_of("local_inference", in)["usable_bytes"].get<double>(), usable, 1);
  for (const char* calculator : {"training_memory", "training_run"}) {
    EXPECT_NE(steps_of(calculator, in).find("Memory the GPU may use (its default share of unified memory)"),
              std::string::npos) << calculator;
  }
  // the verdict and the fewest chips are read against the GPU's share, not all 96 GiB
  json o = outputs_of("training_run", in);
  double need = o["bytes_per_chip"].get<double>();
  EXPECT_EQ(o["fits"], need <= usable) << need;
  EXPECT_EQ(o["min_chips_memory"], std::ceil(need / usable));
  // a chip without a share (an H100) keeps all of its HBM
  EXPECT_EQ(outputs_of("training_memory", {{"chip", "h100"}, {"model", "llama3-8b"}, {"chips", 8}})["hbm_bytes"],
            chip_entry("h100")["hbm_bytes"]);
}

// Issue 34: training_run on a Mac prices no ICI collective: one device communicates nothing
// (training_comm's one-chip rule), so the recommended sharding is FSDP 1 x TP 1, compute-bound, and
// no warning names ICI. For several of a reader's own devices the sharding and the layout search are
// refused in words (PCIe's figure for cards without NVLink) while the run's days stand; cards with an
// NVLink bridge (RTX 3090) still get a sharding.
TEST(TrainingRun, OwnDevicesPriceNoIci) {
  for (const char* chip : {"apple-m2-max", "rtx-4090", "desktop-ddr5"}) {
    scalelab::Evaluation e = scalelab::evaluate("training_run", json{{"chip", chip}, {"model", "llama3.2-1b"}}.dump());
    ASSERT_EQ(e.status, scalelab::Status::ok) << chip << ": " << e.message;
    json r = json::parse(e.json);
    EXPECT_EQ(r["outputs"]["recommended"], (json{{"fsdp", 1}, {"tp", 1}, {"bound", "compute"}})) << chip;
    EXPECT_EQ(r["warnings"].dump().find("ICI"), std::string::npos) << chip << ": " << r["warnings"].dump();
  }
  auto several = [](const char* chip) {
    json in = {{"chip", chip}, {"model", "llama3.2-1b"}, {"chips", 4}, {"tokens", 1e11}, {"mfu", 0.4}};
    scalelab::Evaluation e = scalelab::evaluate("training_run", in.dump());
    EXPECT_EQ(e.status, scalelab::Status::ok) << chip << ": " << e.message;
    json r = json::parse(e.json);
    EXPECT_TRUE(r["outputs"]["recommended"].is_null()) << chip;
    EXPECT_TRUE(r["outputs"]["layouts"].is_null()) << chip;
    EXPECT_EQ(r["warnings"].dump().find("ICI"), std::string::npos) << chip << ": " << r["warnings"].dump();
    // 6 P D over four chips' peak at 40 % MFU: the time stands without a sharding
    EXPECT_GT(r["outputs"]["days"].get<double>(), 0) << chip;
    return r["warnings"].dump();
  };
  std::string card = several("rtx-4090");
  EXPECT_NE(card.find("No recommended sharding: GeForce RTX 4090 has no NVLink, and several would talk over PCIe "
                      "(31.5 GB/s each way), which this model does not price"), std::string::npos) << card;
  EXPECT_NE(card.find("No layout search: GeForce RTX 4090 has no NVLink"), std::string::npos) << card;
  EXPECT_NE(several("apple-m2-max").find("Apple M2 Max (96 GB) is one unified-memory machine, with no link to another"),
            std::string::npos);
  json bridged = outputs_of("training_run", {{"chip", "rtx-3090"}, {"model", "llama3.2-1b"}, {"chips", 2}});
  EXPECT_FALSE(bridged["recommended"].is_null());
}

// Issue 34: a TPU has no host-memory spill path in local_inference: its tiers are its own memory
// alone, nothing is spilled, and what does not fit is said to be timed as if it fit.
TEST(LocalInferenceOnTpu, NothingSpills) {
  scalelab::Evaluation e = scalelab::evaluate("local_inference", json{{"chip", "tpu-v5e"}, {"model", "llama3-70b"}}.dump());
  ASSERT_EQ(e.status, scalelab::Status::ok) << e.message;
  json r = json::parse(e.json);
  json o = r["outputs"];
  EXPECT_EQ(o["fits"], false);
  ASSERT_EQ(o["tiers"].size(), 1u);
  EXPECT_EQ(o["tiers"][0]["tier"], "device");
  EXPECT_EQ(o["spilled_bytes"], 0);
  EXPECT_NE(r["warnings"].dump().find("a TPU has no host-memory spill path in this model, so nothing spills"),
            std::string::npos) << r["warnings"].dump();
}

}  // namespace

// The schema's "layout_search" marks (io/schema_json.cpp, from training_run's declarations): the
// parameters the layout search reads and the outputs it makes. A lab keeps a search while only
// unmarked parameters move (training-pod-lab.ts), so every unmarked parameter, moved to each value
// below, must leave every marked output as it was; and each marked parameter must change them at
// some value, or its mark claims a reading the search does not do.
namespace {

using scalelab::testing::json;

// Values to move a parameter to: every choice, both flags, catalog chips and models, and
// numbers across the parameter's range (those the engine refuses are skipped).
std::vector<json> values_to_try(const json& p) {
  const std::string type = p["type"], name = p["name"];
  if (type == "boolean") return {true, false};
  if (type == "choice") return std::vector<json>(p["choices"].begin(), p["choices"].end());
  if (type == "chip") return {"h100", "tpu-v5e"};
  if (type == "model") return {"llama3-70b", "llama3-8b"};
  if (type == "overrides") {
    if (name == "chip_overrides") return {json{{"hbm_bytes", 4e9}}, json{{"ici_link_bytes_per_s", 1e9}}};
    return {json{{"L", 8}}, json{{"D", 2048}, {"F", 8192}}};
  }
  if (type == "object") return {json{{"tp", 2}}, json{{"tp", 4}, {"pp", 2}}};
  std::vector<json> out;
  const double lo = p["min"], hi = p["max"];
  std::vector<double> numbers = {1, 2, 8, 1e3, 1e9, hi};
  if (!p["min_exclusive"].get<bool>()) numbers.push_back(lo);
  if (p["default"].is_number()) {
    const double d = p["default"];
    numbers.insert(numbers.end(), {d * 2, d / 2});
  }
  for (double v : numbers) {
    if (type == "integer") v = std::round(v);
    if (v >= lo && v <= hi && (v > lo || !p["min_exclusive"].get<bool>())) out.push_back(v);
  }
  return out;
}

// The outputs the schema marks as made by the layout search, of a numbers-only evaluation; null
// when the engine refuses the input.
json search_outputs(const json& input, const std::vector<std::string>& marked) {
  scalelab::Evaluation e = scalelab::evaluate("training_run", input.dump(), scalelab::EvalOptions{.steps = false});
  if (e.status != scalelab::Status::ok) return nullptr;
  json o = json::parse(e.json)["outputs"], out = json::object();
  for (const std::string& name : marked) out[name] = o[name];
  return out;
}

TEST(TrainingRun, LayoutSearchMarksAreWhatTheSearchReadsAndMakes) {
  json schema = json::parse(scalelab::calculator_json("training_run"));
  std::vector<std::string> marked;
  for (const json& o : schema["outputs"]) {
    if (o.value("layout_search", false)) marked.push_back(o["name"]);
  }
  EXPECT_EQ(marked, (std::vector<std::string>{"layouts", "rejected", "rejected_counts", "rejected_reasons",
                                              "layouts_evaluated", "layouts_fitting", "nearest_memory_miss",
                                              "layout_check"}));
  // two bases: the search alone, and beside a named layout (whose check reads the search's fastest step)
  const json bare = {{"chip", "tpu-v5e"}, {"model", "llama3-8b"}, {"top_n", 3}, {"rejected_samples", 2}};
  json named = bare;
  named["layout"] = {{"tp", 4}};
  const json searched = search_outputs(bare, marked), with_named = search_outputs(named, marked);
  ASSERT_TRUE(searched.is_object() && with_named.is_object());
  ASSERT_FALSE(searched["layouts"].empty());
  ASSERT_TRUE(with_named["layout_check"].is_object());
  // a setting that counts only beside another: moved from a base that has that other
  // (null: without it; bare params instead of the default model run no search)
  const std::map<std::string, json> beside = {
      {"params", {{"model", nullptr}}},
      {"checkpoints_per_layer", {{"checkpointing", "custom"}, {"checkpoints_per_layer", 2}}},
      {"virtual_stages", {{"schedule", "interleaved"}}},
      {"sequence_parallel", {{"accounting", "practice"}, {"model", "llama3-70b"}}},
      {"workspace_bytes", {{"accounting", "practice"}, {"chip", "h100"}, {"chips", 64}}}};
  std::vector<std::string> unread;
  for (const json& p : schema["params"]) {
    const std::string name = p["name"];
    const bool reads = p.value("layout_search", false);
    if (!reads) unread.push_back(name);
    int tried = 0, changed = 0;
    for (const json& value : values_to_try(p)) {
      for (json base : {bare, named}) {
        if (reads && base.contains("layout")) continue;  // one base shows that the search reads it
        if (beside.count(name)) {
          for (const auto& [key, v] : beside.at(name).items()) {
            if (v.is_null()) base.erase(key);
            else base[key] = v;
          }
        }
        const json before = base == bare ? searched : base == named ? with_named : search_outputs(base, marked);
        json moved = base;
        moved[name] = value;
        const json got = search_outputs(moved, marked);
        if (got.is_null() || before.is_null()) continue;  // refused: nothing to compare
        ++tried;
        if (got != before) ++changed;
        if (!reads) {
          EXPECT_EQ(got, before) << name << " = " << value.dump() << " moved the search's outputs";
        }
      }
    }
    EXPECT_GT(tried, 0) << name << ": no value to try was accepted";
    if (reads) {
      EXPECT_GT(changed, 0) << name << " is marked as read by the layout search, but no value moved its outputs";
    }
  }
  // the run's time, cost and expected range, and the run's own ep: what training-pod's kept search may move
  EXPECT_EQ(unread, (std::vector<std::string>{"ep", "tokens", "mfu", "chip_hours", "measured_tokens_per_s",
                                              "price_per_hour_usd", "mfu_convention"}));
}

}  // namespace
