// Sweeps: every point of a sweep is the numbers-only evaluation of the same parameters; refused
// points are a null and the evaluation's own message; the spec's limits are refusals naming the
// field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "scalelab/engine.hpp"
#include "scalelab/sweep_columns.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::testing::json;

json sweep_ok(const std::string& calc, const json& params, const json& spec) {
  scalelab::Evaluation e = scalelab::sweep(calc, params.dump(), spec.dump());
  EXPECT_EQ(e.status, scalelab::Status::ok) << calc << " " << spec.dump() << ": " << e.message;
  return json::parse(e.json);
}

scalelab::Evaluation sweep_refused(const std::string& calc, const json& params, const std::string& spec) {
  scalelab::Evaluation e = scalelab::sweep(calc, params.dump(), spec);
  EXPECT_EQ(e.status, scalelab::Status::bad_input) << spec << " → " << e.json;
  return e;
}

// `params` with the value of each swept (possibly dotted) parameter set.
json with_values(json params, const std::vector<std::pair<std::string, json>>& set) {
  for (const auto& [dotted, value] : set) {
    json* at = &params;
    size_t start = 0;
    for (size_t dot; (dot = dotted.find('.', start)) != std::string::npos; start = dot + 1) {
      at = &(*at)[dotted.substr(start, dot - start)];
    }
    (*at)[dotted.substr(start)] = value;
  }
  return params;
}

// Each point of `result` equals a numbers-only evaluate of its parameters, output by output;
// each refused point carries that evaluation's message.
void expect_points_match(const std::string& calc, const json& params, const json& result) {
  const json& xs = result["x"]["values"];
  json ys = result.contains("y") ? result["y"]["values"] : json::array({nullptr});
  ASSERT_GT(result["outputs"].size(), 0u) << result.dump();
  size_t i = 0;
  for (const json& xv : xs) {
    for (const json& yv : ys) {
      std::vector<std::pair<std::string, json>> set = {{result["x"]["param"], xv}};
      if (!yv.is_null()) set.emplace_back(result["y"]["param"], yv);
      json input = with_values(params, set);
      scalelab::Evaluation e = scalelab::evaluate(calc, input.dump(), scalelab::EvalOptions{.steps = false});
      const json& error = result["errors"][i];
      if (e.status == scalelab::Status::ok) {
        EXPECT_TRUE(error.is_null()) << calc << " point " << i << ": " << error.dump();
        json outputs = json::parse(e.json)["outputs"];
        for (auto it = result["outputs"].begin(); it != result["outputs"].end(); ++it) {
          EXPECT_EQ(it.value()[i], outputs[it.key()]) << calc << " " << input.dump() << " output " << it.key();
        }
      } else {
        ASSERT_EQ(e.status, scalelab::Status::bad_input) << e.json;
        EXPECT_EQ(error["message"], e.message) << calc << " point " << i;
        EXPECT_EQ(error["status"], "bad_input");
        for (auto it = result["outputs"].begin(); it != result["outputs"].end(); ++it) {
          EXPECT_TRUE(it.value()[i].is_null()) << it.key();
        }
      }
      ++i;
    }
  }
  EXPECT_EQ(result["errors"].size(), i);
}

// The first book case of every calculator, swept over a numeric parameter the case gives:
// half, the same, double (and a value out of range, so that one point is refused).
TEST(Sweep, EveryPointEqualsANumbersOnlyEvaluate) {
  std::map<std::string, json> first;
  for (const auto& c : scalelab::testing::cases()) first.emplace(c.calculator, c.raw["params"]);
  json schema = json::parse(scalelab::calculators_json());
  int swept = 0;
  for (const json& calc : schema["calculators"]) {
    std::string name = calc["name"];
    if (!first.count(name)) continue;
    const json& params = first[name];
    for (const json& p : calc["params"]) {
      if ((p["type"] != "number" && p["type"] != "integer") || !params.contains(p["name"])) continue;
      double v = params[p["name"].get<std::string>()].get<double>();
      bool integer = p["type"] == "integer";
      json values = json::array();
      for (double f : {0.5, 1.0, 2.0}) values.push_back(integer ? std::round(v * f) : v * f);
      values.push_back(-1e30);  // below every minimum
      json spec = {{"x", {{"param", p["name"]}, {"values", values}}}};
      json result = sweep_ok(name, params, spec);
      expect_points_match(name, params, result);
      EXPECT_FALSE(result["errors"][3].is_null()) << name << " " << p["name"];
      ++swept;
      break;
    }
  }
  EXPECT_GE(swept, 10);
}

TEST(Sweep, DecodeOverARangeOfBatches) {
  json params = {{"model", "llama3-70b"}, {"chip", "tpu-v5e"}, {"chips", 16}};
  json spec = {{"x", {{"param", "batch"}, {"from", 1}, {"to", 4096}, {"points", 2048}, {"scale", "log"}}}};
  json r = sweep_ok("decode", params, spec);
  const json& xs = r["x"]["values"];
  // Whole batches, distinct, increasing, from 1 to 4096: fewer than 2048 of them at the low end.
  EXPECT_EQ(xs.front(), 1);
  EXPECT_EQ(xs.back(), 4096);
  EXPECT_LT(xs.size(), 2048u);
  for (size_t i = 1; i < xs.size(); ++i) {
    ASSERT_TRUE(xs[i].is_number_integer());
    EXPECT_GT(xs[i].get<double>(), xs[i - 1].get<double>());
  }
  EXPECT_EQ(r["outputs"]["step_s"].size(), xs.size());
  EXPECT_FALSE(r["outputs"].contains("bound")) << "a verdict is not a numeric output";
  expect_points_match("decode", params, r);
}

// A sweep makes the sentences only of the outputs its spec names (Result::reads_text): named, each
// point's sentence is the evaluation's; not named, no column of words is written.
TEST(Sweep, ASentenceIsMadeWhereTheSpecNamesIt) {
  json params = {{"model", "llama3-70b"}, {"chip", "tpu-v5e"}, {"chips", 16}, {"batch", 32}, {"measured_tokens_per_s", 900}};
  json values = json::array({512, 8192, 131072});
  json spec = {{"x", {{"param", "context"}, {"values", values}}},
               {"outputs", {"expected_outside", "expected_covered", "measured_among", "tokens_per_s"}}};
  json r = sweep_ok("decode", params, spec);
  expect_points_match("decode", params, r);
  const json& outside = r["outputs"]["expected_outside"];
  EXPECT_TRUE(std::any_of(outside.begin(), outside.end(), [](const json& s) { return s.is_string(); })) << outside.dump();
  EXPECT_TRUE(r["outputs"]["measured_among"][0].is_string()) << r["outputs"]["measured_among"].dump();
  json all = sweep_ok("decode", params, {{"x", {{"param", "context"}, {"values", values}}}});
  EXPECT_FALSE(all["outputs"].contains("expected_outside"));
  EXPECT_FALSE(all["outputs"].contains("measured_among"));
  EXPECT_EQ(all["outputs"]["tokens_per_s"], r["outputs"]["tokens_per_s"]);
}

TEST(Sweep, ServingOverBatchAndChipsInTwoDimensions) {
  json params = {{"model", "llama3-70b"}, {"chip", "tpu-v5e"}, {"prompt_tokens", 1024}, {"decode_tokens", 256}};
  json spec = {{"x", {{"param", "batch"}, {"values", {1, 16, 256}}}},
               {"y", {{"param", "chips"}, {"values", {8, 16, 32, 3}}}},
               {"outputs", {"step_s", "cost_per_million_tokens_usd", "bound"}}};
  json r = sweep_ok("serving", params, spec);
  EXPECT_EQ(r["y"]["param"], "chips");
  ASSERT_EQ(r["outputs"]["step_s"].size(), 12u);
  EXPECT_EQ(r["outputs"].size(), 3u);
  EXPECT_TRUE(r["outputs"]["bound"][0].is_string());
  expect_points_match("serving", params, r);
}

// The warnings are the first 16 distinct ones the points' own evaluations give, in point order,
// then "… and N more distinct warnings at other points", N the number of the others. Here each
// point past the HBM gives its own does-not-fit text (its context is written out in full).
TEST(Sweep, WarningsAreTheFirstSixteenDistinctOnesAndACountOfTheRest) {
  json params = {{"model", "llama3-70b"}, {"chip", "tpu-v5e"}, {"chips", 16}, {"batch", 32}};
  json spec = {{"x", {{"param", "context"}, {"from", 0}, {"to", 131072}, {"points", 300}, {"scale", "linear"}}}};
  json r = sweep_ok("decode", params, spec);
  std::vector<std::string> distinct;
  for (const json& x : r["x"]["values"]) {
    scalelab::Evaluation e = scalelab::evaluate("decode", with_values(params, {{"context", x}}).dump(),
                                                scalelab::EvalOptions{.steps = false});
    json result = json::parse(e.json);
    for (const json& w : result["warnings"]) {
      if (std::find(distinct.begin(), distinct.end(), w) == distinct.end()) distinct.push_back(w);
    }
  }
  ASSERT_GT(distinct.size(), 100u);
  const json& warnings = r["warnings"];
  ASSERT_EQ(warnings.size(), 17u);
  for (std::size_t i = 0; i < 16; ++i) EXPECT_EQ(warnings[i], distinct[i]) << i;
  EXPECT_EQ(warnings[16], "… and " + std::to_string(distinct.size() - 16) + " more distinct warnings at other points");
}

TEST(Sweep, RooflineOverANestedMatmulDimension) {
  json params = {{"chip", "tpu-v5e"}, {"matmul", {{"B", 512}, {"D", 8192}, {"F", 32768}}}};
  json spec = {{"x", {{"param", "matmul.B"}, {"from", 1}, {"to", 65536}, {"points", 17}}}};
  json r = sweep_ok("roofline", params, spec);
  EXPECT_EQ(r["x"]["values"].size(), 17u);
  expect_points_match("roofline", params, r);
}

TEST(Sweep, CollectiveAndPrefillAndTransformer) {
  json collective = {{"chip", "tpu-v5e"}, {"op", "all_gather"}, {"axes", {16}}};
  expect_points_match("collective", collective,
                      sweep_ok("collective", collective,
                               {{"x", {{"param", "bytes"}, {"from", 1e3}, {"to", 1e10}, {"points", 50}}}}));
  json prefill = {{"model", "llama3-8b"}, {"chip", "h100"}, {"chips", 1}};
  expect_points_match("prefill", prefill,
                      sweep_ok("prefill", prefill, {{"x", {{"param", "tokens"}, {"from", 1}, {"to", 1e6}, {"points", 40}}}}));
  json transformer = {{"model", "llama3-8b"}};
  expect_points_match("transformer", transformer,
                      sweep_ok("transformer", transformer,
                               {{"x", {{"param", "T"}, {"values", {128, 4096, 131072}}}},
                                {"y", {{"param", "B"}, {"from", 1}, {"to", 64}, {"points", 7}}}}));
}

TEST(Sweep, LinearRangesOfRealsAreCanonicalAndEndExactly) {
  json params = {{"chip", "tpu-v5e"}, {"flops", 1e12}};
  json r = sweep_ok("roofline", params,
                    {{"x", {{"param", "bytes"}, {"from", 1e8}, {"to", 1e9}, {"points", 10}, {"scale", "linear"}}}});
  ASSERT_EQ(r["x"]["values"].size(), 10u);
  EXPECT_EQ(r["x"]["values"][0], 100000000);
  EXPECT_EQ(r["x"]["values"][1], 200000000);
  EXPECT_EQ(r["x"]["values"][9], 1000000000);
  expect_points_match("roofline", params, r);
}

TEST(Sweep, ARefusedPointIsANullAndItsMessage) {
  json params = {{"model", "llama3-70b"}, {"chip", "tpu-v5e"}};
  json r = sweep_ok("decode", params, {{"x", {{"param", "batch"}, {"values", {8, 0, 1.5, 16}}}}, {"outputs", {"step_s"}}});
  EXPECT_TRUE(r["errors"][0].is_null());
  EXPECT_EQ(r["errors"][1]["param"], "batch");
  EXPECT_NE(r["errors"][1]["message"].get<std::string>().find("≥ 1"), std::string::npos) << r["errors"][1];
  EXPECT_NE(r["errors"][2]["message"].get<std::string>().find("whole number"), std::string::npos) << r["errors"][2];
  EXPECT_TRUE(r["outputs"]["step_s"][1].is_null());
  EXPECT_TRUE(r["outputs"]["step_s"][3].is_number());
  expect_points_match("decode", params, r);
}

// A sweep validates its base once and then only the swept values: the columns must still be
// what point-by-point numbers-only evaluates give, where the axis is inside the chip or model
// overrides (the chip or model is resolved again), where both values of a point are refused
// (the same one is named), and where the base's own value of the axis is refused.
TEST(Sweep, OverrideAxesAndRefusedPointsMatchPointByPointEvaluates) {
  json decode = {{"model", "llama2-13b"}, {"chip", "tpu-v5e"}, {"chip_overrides", {{"hbm_bytes", 17179869184}}}, {"chips", 8}};
  json r = sweep_ok("decode", decode, {{"x", {{"param", "chip_overrides.hbm_bytes"}, {"values", {8e9, 16e9, -1, 32e9}}}}});
  EXPECT_EQ(r["errors"][2]["param"], "chip_overrides.hbm_bytes");
  expect_points_match("decode", decode, r);

  json no_overrides = {{"model", "llama3-70b"}, {"chip", "tpu-v5e"}, {"chips", 16}};
  expect_points_match("decode", no_overrides,
                      sweep_ok("decode", no_overrides,
                               {{"x", {{"param", "chip_overrides.hbm_bytes_per_s"}, {"from", 1e11}, {"to", 1e13}, {"points", 9}}},
                                {"y", {{"param", "batch"}, {"values", {1, 0, 64}}}}}));

  json serving = {{"model", "llama3-70b"}, {"chip", "tpu-v5e"}, {"chips", 16}};
  json both = sweep_ok("serving", serving,
                       {{"x", {{"param", "model_overrides.L"}, {"values", {40, 0, 80}}}},
                        {"y", {{"param", "batch"}, {"values", {0, 8}}}}});
  EXPECT_FALSE(both["errors"][2].is_null()) << "both values refused";
  expect_points_match("serving", serving, both);

  // Resolving the model refuses K = 3 (it must divide N); validation refuses batch 0 before any
  // model is resolved, so where both are wrong the batch is named, as a full validation names it.
  json heads = {{"model", "llama3-70b"}, {"chip", "tpu-v5e"}, {"chips", 16}};
  json kv_heads = sweep_ok("decode", heads,
                           {{"x", {{"param", "model_overrides.K"}, {"values", {8, 3}}}},
                            {"y", {{"param", "batch"}, {"values", {0, 8}}}}});
  EXPECT_EQ(kv_heads["errors"][2]["param"], "batch");
  EXPECT_EQ(kv_heads["errors"][3]["param"], "model.K");
  expect_points_match("decode", heads, kv_heads);

  json refused_base = {{"model", "llama3-70b"}, {"chip", "tpu-v5e"}, {"batch", 0}};
  json later = sweep_ok("decode", refused_base, {{"x", {{"param", "batch"}, {"values", {0, -1, 8, 0, 16}}}}});
  EXPECT_TRUE(later["errors"][2].is_null());
  EXPECT_FALSE(later["errors"][3].is_null());
  expect_points_match("decode", refused_base, later);
}

TEST(Sweep, ABadBaseIsOneErrorButABadSweptValueInTheBaseIsNot) {
  scalelab::Evaluation bad = scalelab::sweep("decode", R"({"chips": 0})", R"({"x": {"param": "batch", "values": [1]}})");
  EXPECT_EQ(bad.status, scalelab::Status::bad_input);
  EXPECT_EQ(bad.param, "chips");
  scalelab::Evaluation swept = scalelab::sweep("decode", R"({"batch": 0})", R"({"x": {"param": "batch", "values": [1, 2]}})");
  EXPECT_EQ(swept.status, scalelab::Status::ok) << swept.json;
}

TEST(Sweep, SpecRefusalsNameTheFieldAndTheAllowedRange) {
  json base = json::object();
  struct Row { std::string spec, param, contains; };
  std::vector<Row> rows = {
      {R"([1])", "sweep", "must be an object"},
      {R"({)", "sweep", "malformed JSON"},
      {R"({})", "sweep.x", "is required"},
      {R"({"x": {"param": "batch", "values": [1]}, "z": 1})", "sweep.z", "allowed: x, y, outputs"},
      {R"({"x": 3})", "sweep.x", "must be an axis"},
      {R"({"x": {"values": [1]}})", "sweep.x.param", "is required"},
      {R"({"x": {"param": "warp", "values": [1]}})", "sweep.x.param", "no parameter \"warp\""},
      {R"({"x": {"param": "weight_dtype", "values": [1]}})", "sweep.x.param", "is a choice"},
      {R"({"x": {"param": "model", "values": [1]}})", "sweep.x.param", "only numeric parameters"},
      {R"({"x": {"param": "batch"}})", "sweep.x", "needs values or from, to and points"},
      {R"({"x": {"param": "batch", "values": [1], "from": 1}})", "sweep.x", "not both"},
      {R"({"x": {"param": "batch", "values": []}})", "sweep.x.values", "1 to 4096 numbers"},
      {R"({"x": {"param": "batch", "values": [1, "2"]}})", "sweep.x.values[1]", "must be a number"},
      {R"({"x": {"param": "batch", "values": [NaN]}})", "sweep", "malformed JSON"},
      {R"({"x": {"param": "batch", "values": [1e999]}})", "sweep", "too large"},
      {R"({"x": {"param": "batch", "from": 1, "to": 9}})", "sweep.x.points", "≤ 4096"},
      {R"({"x": {"param": "batch", "from": 1, "to": 9, "points": 0}})", "sweep.x.points", "≥ 1 and ≤ 4096, got 0"},
      {R"({"x": {"param": "batch", "from": 1, "to": 9, "points": 4097}})", "sweep.x.points", "≤ 4096, got 4097"},
      {R"({"x": {"param": "batch", "from": 1, "to": 9, "points": 2.5}})", "sweep.x.points", "whole number"},
      {R"({"x": {"param": "batch", "from": 9, "to": 1, "points": 3}})", "sweep.x.to", "≥ from (9)"},
      {R"({"x": {"param": "batch", "from": 4, "to": 4, "points": 3}})", "sweep.x.to", "> from (4)"},
      {R"({"x": {"param": "batch", "from": "1", "to": 9, "points": 3}})", "sweep.x.from", "must be a number"},
      {R"({"x": {"param": "batch", "to": 9, "points": 3}})", "sweep.x.from", "is required"},
      {R"({"x": {"param": "batch", "from": 0, "to": 9, "points": 3, "scale": "log"}})", "sweep.x.from", "> 0 on a log scale"},
      {R"({"x": {"param": "batch", "from": 1, "to": 9, "points": 3, "scale": "cubic"}})", "sweep.x.scale", "log or linear"},
      {R"({"x": {"param": "batch", "from": 1, "to": 9, "points": 3, "step": 1}})", "sweep.x.step", "unknown key"},
      {R"({"x": {"param": "batch", "from": 1, "to": 9000, "points": 100}, "y": {"param": "context", "from": 1, "to": 9000, "points": 41}})",
       "sweep", "100 × 41 = 4100 points; a sweep takes 1 to 4096"},
      {R"({"x": {"param": "batch", "values": [1]}, "y": {"param": "batch", "values": [2]}})", "sweep.y.param", "already swept"},
      {R"({"x": {"param": "batch", "values": [1]}, "outputs": []})", "sweep.outputs", "non-empty list"},
      {R"({"x": {"param": "batch", "values": [1]}, "outputs": ["warp"]})", "sweep.outputs[0]", "no output \"warp\""},
      {R"({"x": {"param": "batch", "values": [1]}, "outputs": [3]})", "sweep.outputs[0]", "output name"},
      {R"({"x": {"param": "batch", "values": [1]}, "outputs": ["step_s", "step_s"]})", "sweep.outputs[1]", "twice"},
  };
  for (const Row& row : rows) {
    scalelab::Evaluation e = sweep_refused("decode", base, row.spec);
    EXPECT_EQ(e.param, row.param) << row.spec << " → " << e.message;
    EXPECT_NE(e.message.find(row.contains), std::string::npos) << row.spec << " → " << e.message;
    json body = json::parse(e.json);
    EXPECT_EQ(body["error"]["status"], "bad_input");
  }
}

TEST(Sweep, FourThousandNinetySixPointsAreAllowed) {
  json r = sweep_ok("roofline", {{"chip", "tpu-v5e"}, {"flops", 1e12}},
                    {{"x", {{"param", "bytes"}, {"from", 1e6}, {"to", 1e12}, {"points", 64}}},
                     {"y", {{"param", "flops"}, {"from", 1e9}, {"to", 1e15}, {"points", 64}}},
                     {"outputs", {"t_lower_s"}}});
  EXPECT_EQ(r["outputs"]["t_lower_s"].size(), 4096u);
}

TEST(Sweep, UnknownCalculatorAndTheRequestForm) {
  EXPECT_EQ(scalelab::sweep("warp_drive", "{}", "{}").status, scalelab::Status::unknown_calculator);
  scalelab::Evaluation e = scalelab::sweep_request(
      "decode", R"({"params": {"chip": "h100", "model": "llama3-8b", "chips": 1}, "sweep": {"x": {"param": "batch", "values": [1, 2]}}})");
  ASSERT_EQ(e.status, scalelab::Status::ok) << e.json;
  scalelab::Evaluation same = scalelab::sweep("decode", R"({"chip": "h100", "model": "llama3-8b", "chips": 1})",
                                              R"({"x": {"param": "batch", "values": [1, 2]}})");
  EXPECT_EQ(e.json, same.json);
  EXPECT_EQ(scalelab::sweep_request("decode", R"({"params": {}})").param, "sweep");
  EXPECT_EQ(scalelab::sweep_request("decode", R"({"sweep": {}, "extra": 1})").param, "extra");
  EXPECT_EQ(scalelab::sweep_request("decode", R"([])").status, scalelab::Status::bad_input);
  EXPECT_EQ(scalelab::sweep_request("decode", R"({"params": 3, "sweep": {"x": {"param": "batch", "values": [1]}}})").status,
            scalelab::Status::bad_input);
}

// sweep_columns: the header with each column of numbers and nulls as its number, the values as
// doubles; put back together it is sweep()'s JSON, value for value (NaN where sweep has null),
// for 1-D and 2-D sweeps, refused points, words among the outputs and a refused spec.
TEST(Sweep, ColumnsAsDoublesAreTheJsonSweepValueForValue) {
  struct Row { std::string calc; json params, spec; };
  std::vector<Row> rows = {
      {"decode", {{"model", "llama3-70b"}, {"chip", "tpu-v5e"}, {"chips", 16}, {"batch", 32}},
       {{"x", {{"param", "context"}, {"from", 0}, {"to", 131072}, {"points", 257}, {"scale", "linear"}}}}},
      {"decode", {{"model", "llama3-70b"}, {"chip", "tpu-v5e"}},
       {{"x", {{"param", "batch"}, {"values", {8, 0, 1.5, 16}}}}, {"outputs", {"step_s", "bound", "max_batch"}}}},
      {"serving", {{"model", "llama3-70b"}, {"chip", "tpu-v5e"}},
       {{"x", {{"param", "batch"}, {"values", {1, 16, 256, 0}}}}, {"y", {{"param", "chips"}, {"values", {8, 16, 32}}}}}},
      {"roofline", {{"chip", "h100"}, {"matmul", {{"B", 512}, {"D", 8192}, {"F", 8192}}}},
       {{"x", {{"param", "matmul.B"}, {"from", 1}, {"to", 65536}, {"points", 33}}}}},
  };
  for (const Row& row : rows) {
    json expected = sweep_ok(row.calc, row.params, row.spec);
    scalelab::SweepColumns columns = scalelab::sweep_columns(row.calc, row.params.dump(), row.spec.dump());
    ASSERT_EQ(columns.header.status, scalelab::Status::ok) << columns.header.json;
    json header = json::parse(columns.header.json);
    std::size_t points = expected["errors"].size(), typed = 0;
    ASSERT_EQ(header.size(), expected.size());
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      if (it.key() != "outputs") {
        EXPECT_EQ(header[it.key()], it.value()) << row.calc << " " << it.key();
      }
    }
    ASSERT_EQ(header["outputs"].size(), expected["outputs"].size());
    auto out = header["outputs"].begin();
    for (auto it = expected["outputs"].begin(); it != expected["outputs"].end(); ++it, ++out) {
      ASSERT_EQ(out.key(), it.key()) << "the outputs in the same order";
      if (!out.value().is_number()) {
        EXPECT_EQ(out.value(), it.value()) << row.calc << " " << it.key();
        continue;
      }
      std::size_t c = out.value().get<std::size_t>();
      ASSERT_LE((c + 1) * points, columns.values.size());
      for (std::size_t i = 0; i < points; ++i) {
        double v = columns.values[c * points + i];
        const json& want = it.value()[i];
        if (want.is_null()) {
          EXPECT_TRUE(std::isnan(v)) << row.calc << " " << it.key() << " at " << i;
        } else {
          EXPECT_EQ(v, json::parse(want.dump()).get<double>()) << row.calc << " " << it.key() << " at " << i;
        }
      }
      ++typed;
    }
    EXPECT_EQ(columns.values.size(), typed * points) << row.calc;
    EXPECT_GT(typed, 0u) << row.calc;
  }
  scalelab::SweepColumns refused = scalelab::sweep_columns("decode", "{}", R"({"x": {"param": "batch", "from": 1, "to": 9, "points": 5000}})");
  EXPECT_EQ(refused.header.status, scalelab::Status::bad_input);
  EXPECT_EQ(refused.header.json, scalelab::sweep("decode", "{}", R"({"x": {"param": "batch", "from": 1, "to": 9, "points": 5000}})").json);
  EXPECT_TRUE(refused.values.empty());
}

}  // namespace
