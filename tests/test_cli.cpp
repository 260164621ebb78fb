// The `scalelab` binary, spawned as a user would run it.
#include <gtest/gtest.h>

#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::testing::json;
using scalelab::testing::run;
using scalelab::testing::RunResult;

RunResult cli(std::vector<std::string> args, const std::string& stdin_text = "") {
  args.insert(args.begin(), scalelab::testing::scalelab_bin());
  return run(args, stdin_text);
}

const char* kRoofline = R"({"chip": "tpu-v5e", "matmul": {"B": 512, "D": 8192, "F": 32768}})";

TEST(Cli, EvalPrintsTheEngineJson) {
  RunResult r = cli({"eval", "roofline", kRoofline});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, scalelab::evaluate("roofline", kRoofline).json + "\n");
  EXPECT_TRUE(r.err.empty()) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["calculator"], "roofline");
  EXPECT_EQ(j["outputs"]["bound"], "compute");
}

TEST(Cli, EvalWithoutJsonUsesDefaults) {
  RunResult r = cli({"eval", "transfer"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, scalelab::evaluate("transfer", "{}").json + "\n");
}

TEST(Cli, EvalReadsStdin) {
  RunResult r = cli({"eval", "roofline", "-"}, kRoofline);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, scalelab::evaluate("roofline", kRoofline).json + "\n");
  RunResult empty = cli({"eval", "transfer", "-"}, "");
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
}

TEST(Cli, TextShowsOutputsAndTheDerivation) {
  RunResult r = cli({"eval", "roofline", kRoofline, "--text"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Outputs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Derivation"), std::string::npos) << r.out;
  json j = json::parse(scalelab::evaluate("roofline", kRoofline).json);
  for (const auto& step : j["steps"]) {
    EXPECT_NE(r.out.find(step["label"].get<std::string>()), std::string::npos) << "step " << step["label"];
    EXPECT_NE(r.out.find(step["formula"].get<std::string>()), std::string::npos) << step["formula"];
  }
  EXPECT_NE(r.out.find("t_math_s"), std::string::npos);
  // quantities are formatted for people, by the engine's one formatter
  for (const char* name : {"t_math_s", "t_comm_s", "flops", "bytes"}) {
    std::string shown = scalelab::format_quantity(j["outputs"][name].get<double>(), scalelab::output_unit("roofline", name));
    EXPECT_NE(r.out.find(shown), std::string::npos) << name << ": \"" << shown << "\" not in\n" << r.out;
  }
}

TEST(Cli, TextForEveryRegisteredCaseRuns) {
  for (const auto& c : scalelab::testing::cases()) {
    if (!scalelab::testing::registered_calculators().count(c.calculator)) continue;
    RunResult r = cli({"eval", c.calculator, c.raw["params"].dump(), "--text"});
    EXPECT_EQ(r.exit_code, 0) << c.id << ": " << r.err;
    EXPECT_NE(r.out.find("Derivation"), std::string::npos) << c.id;
  }
}

TEST(Cli, BadInputExitsTwoWithOneStderrLine) {
  RunResult r = cli({"eval", "transfer", R"({"chips": 0})"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, scalelab::evaluate("transfer", R"({"chips": 0})").json + "\n");
  EXPECT_NE(r.err.find("chips"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(Cli, UnknownCalculatorExitsTwo) {
  RunResult r = cli({"eval", "warp_drive", "{}"});
  EXPECT_EQ(r.exit_code, 2);
  json j = json::parse(r.out);
  EXPECT_TRUE(j["error"]["param"].is_null());
  EXPECT_NE(r.err.find("unknown calculator"), std::string::npos) << r.err;
}

const char* kDecode = R"({"model": "llama3-70b", "chip": "tpu-v5e", "chips": 16})";
const char* kBatchSweep = R"({"x": {"param": "batch", "from": 1, "to": 256, "points": 9}, "outputs": ["step_s"]})";

TEST(Cli, SweepPrintsTheEngineJson) {
  RunResult r = cli({"sweep", "decode", kDecode, kBatchSweep});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, scalelab::sweep("decode", kDecode, kBatchSweep).json + "\n");
  EXPECT_EQ(json::parse(r.out)["outputs"]["step_s"].size(), 9u);
}

TEST(Cli, SweepReadsEitherArgumentFromStdin) {
  std::string expected = scalelab::sweep("decode", kDecode, kBatchSweep).json + "\n";
  RunResult params = cli({"sweep", "decode", "-", kBatchSweep}, kDecode);
  EXPECT_EQ(params.exit_code, 0) << params.err;
  EXPECT_EQ(params.out, expected);
  RunResult spec = cli({"sweep", "decode", kDecode, "-"}, kBatchSweep);
  EXPECT_EQ(spec.exit_code, 0) << spec.err;
  EXPECT_EQ(spec.out, expected);
  RunResult both = cli({"sweep", "decode", "-", "-"}, kDecode);
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("only one"), std::string::npos) << both.err;
}

TEST(Cli, SweepBadSpecExitsTwoNamingTheField) {
  const char* spec = R"({"x": {"param": "batch", "from": 1, "to": 9, "points": 5000}})";
  RunResult r = cli({"sweep", "decode", kDecode, spec});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, scalelab::sweep("decode", kDecode, spec).json + "\n");
  EXPECT_NE(r.err.find("sweep.x.points: must be a whole number ≥ 1 and ≤ 4096, got 5000"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(cli({"sweep", "warp_drive", "{}", kBatchSweep}).exit_code, 2);
  EXPECT_NE(cli({"sweep", "decode", "{}"}).exit_code, 0) << "the sweep is required";
}

TEST(Cli, UsageErrorsExitNonZero) {
  EXPECT_NE(cli({}).exit_code, 0);
  EXPECT_NE(cli({"eval"}).exit_code, 0);
  EXPECT_NE(cli({"frobnicate"}).exit_code, 0);
  EXPECT_NE(cli({"eval", "roofline", "{}", "--no-such-flag"}).exit_code, 0);
  EXPECT_NE(cli({"serve", "--port", "70000"}).exit_code, 0);
  EXPECT_EQ(cli({"--help"}).exit_code, 0);
  EXPECT_EQ(cli({"eval", "--help"}).exit_code, 0);
}

TEST(Cli, ListNamesEveryCalculator) {
  RunResult r = cli({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const auto& name : scalelab::testing::registered_calculators()) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  }
  RunResult j = cli({"list", "--json"});
  EXPECT_EQ(j.exit_code, 0);
  EXPECT_EQ(j.out, scalelab::calculators_json() + "\n");
}

TEST(Cli, ChipsAndModels) {
  RunResult chips = cli({"chips"});
  EXPECT_EQ(chips.exit_code, 0);
  EXPECT_EQ(chips.out, scalelab::chips_json() + "\n");
  EXPECT_TRUE(json::parse(chips.out).is_array());
  RunResult models = cli({"models"});
  EXPECT_EQ(models.exit_code, 0);
  EXPECT_EQ(models.out, scalelab::models_json() + "\n");
  EXPECT_NE(models.out.find("llama3-70b"), std::string::npos);
}

TEST(Cli, EveryRegisteredCaseMatchesTheEngineBytes) {
  for (const auto& c : scalelab::testing::cases()) {
    if (!scalelab::testing::registered_calculators().count(c.calculator)) continue;
    std::string input = c.raw["params"].dump();
    RunResult r = cli({"eval", c.calculator, input});
    scalelab::Evaluation e = scalelab::evaluate(c.calculator, input);
    EXPECT_EQ(r.exit_code, e.status == scalelab::Status::ok ? 0 : 2) << c.id;
    EXPECT_EQ(r.out, e.json + "\n") << c.id;
  }
}

// `scalelab probe --json` describes this machine as a chip that eval takes as it is: the rates
// of the kernels it ran (fp32 multiply-adds, an int8 dot product, bf16 where the CPU has it),
// the read bandwidth and the physical memory.
TEST(Cli, ProbeJsonIsAChipThatDecodeAndLocalInferenceAccept) {
  RunResult probe = cli({"probe", "--quick", "--runs", "2", "--json"});
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  json chip = json::parse(probe.out);
  EXPECT_EQ(chip["kind"], "cpu");
  EXPECT_GT(chip["flops_per_s"]["fp32"].get<double>(), 0);
  EXPECT_GT(chip["flops_per_s"]["int8"].get<double>(), 0);
  EXPECT_GT(chip["hbm_bytes_per_s"].get<double>(), 0);
  EXPECT_GT(chip["hbm_bytes"].get<double>(), 0);
  for (const char* source : {"flops_per_s", "hbm_bytes_per_s", "matmul", "spread"}) {
    EXPECT_TRUE(chip["sources"].contains(source)) << source;
  }
  json decode = {{"chip", chip}, {"model", "llama3.2-1b"}, {"chips", 1}, {"batch", 1},
                 {"context", 1024}, {"compute_dtype", "fp32"}, {"weight_dtype", "q4_0"}};
  RunResult r = cli({"eval", "decode", "-"}, decode.dump());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  json out = json::parse(r.out)["outputs"];
  EXPECT_DOUBLE_EQ(out["slice_hbm_bytes_per_s"].get<double>(), chip["hbm_bytes_per_s"].get<double>());
  EXPECT_GT(out["tokens_per_s"].get<double>(), 0);
  RunResult local = cli({"eval", "local_inference", "-"}, json{{"chip", chip}, {"model", "llama3.2-1b"}}.dump());
  ASSERT_EQ(local.exit_code, 0) << local.err << local.out;
  EXPECT_EQ(json::parse(local.out)["outputs"]["compute_dtype"], chip["flops_per_s"].contains("bf16") ? "bf16" : "fp32");
}

// Every calculator that takes a chip evaluates on its defaults with the probe's chip in place of
// the catalog's, whether or not the CPU has a bf16 rate (compute_dtype then falls back to its
// fastest floating-point rate and says so); roofline is given the one input it always needs.
// A collective needs a mesh of chips joined by links, which a CPU has not: refused, naming them.
TEST(Cli, ProbeJsonRoundTripsIntoEveryCalculatorOnDefaults) {
  RunResult probe = cli({"probe", "--quick", "--runs", "1", "--json"});
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  json measured = json::parse(probe.out);
  json without_bf16 = measured;
  without_bf16["flops_per_s"].erase("bf16");
  json calculators = json::parse(cli({"list", "--json"}).out);
  int evaluated = 0;
  for (const json& chip : {measured, without_bf16}) {
    for (const auto& calc : calculators["calculators"]) {
      bool takes_chip = false;
      for (const auto& p : calc["params"]) takes_chip = takes_chip || p["name"] == "chip";
      if (!takes_chip) continue;
      std::string name = calc["name"];
      json input = {{"chip", chip}};
      if (name == "roofline") input["flops"] = 1e12, input["bytes"] = 1e9;
      RunResult r = cli({"eval", name, "-"}, input.dump());
      if (name == "collective") {
        EXPECT_EQ(r.exit_code, 2) << r.out;
        EXPECT_EQ(json::parse(r.out)["error"]["param"], "axes") << r.out;
        continue;
      }
      EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err << r.out;
      ++evaluated;
      if (!chip["flops_per_s"].contains("bf16") && r.exit_code == 0) {
        std::string warnings = json::parse(r.out)["warnings"].dump();
        bool prices_math = name == "roofline" || name == "decode" || name == "prefill" || name == "serving";
        if (prices_math) {
          EXPECT_NE(warnings.find("has no bf16 FLOP/s rate"), std::string::npos) << name << warnings;
        }
      }
    }
  }
  EXPECT_GE(evaluated, 20);
}

TEST(Cli, ProbeTextGivesTheKernelsBesideThePeak) {
  RunResult r = cli({"probe", "--quick", "--runs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* word : {"CPU fp32 FMA", "CPU int8 dot", "CPU fp32 matmul, ours", "CPU fp32 matmul, BLAS",
                           "memory (read)", "memory (triad)", "median", "min", "max"}) {
    EXPECT_NE(r.out.find(word), std::string::npos) << word << " not in\n" << r.out;
  }
#if defined(__x86_64__)
  EXPECT_NE(r.out.find("fp32 peak (theory)"), std::string::npos) << r.out;
#endif
}

}  // namespace
