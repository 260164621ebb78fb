// The expected-range bands (data/bands.json) are the fit of the published runs with today's
// bounds: refitted here, they match the embedded catalog (else a bound moved and the bands are
// stale), and each regime of ten runs or more holds at least 80 % of its runs inside the band
// fitted without them (issue 37). A regime whose figure is an estimate (training's peak memory,
// issue 36) has its band fitted on both sides of it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "io/calibration.hpp"  // engine/src: the fit itself
#include "models/expected.hpp"  // engine/src: band_for
#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::testing::json;

// "" when `fitted` matches `embedded` (numbers within 1e-9 relative), else where they differ.
std::string differences(const json& fitted, const json& embedded, const std::string& at) {
  if (fitted.is_number() && embedded.is_number()) {
    double a = fitted, b = embedded;
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)) ? "" : at + ": " + fitted.dump() + " vs " + embedded.dump() + "\n";
  }
  if (fitted.type() != embedded.type() || fitted.size() != embedded.size()) {
    return at + ": " + fitted.dump().substr(0, 200) + " vs " + embedded.dump().substr(0, 200) + "\n";
  }
  std::string out;
  if (fitted.is_object()) {
    for (auto it = fitted.begin(); it != fitted.end(); ++it) {
      out += embedded.contains(it.key()) ? differences(it.value(), embedded[it.key()], at + "." + it.key())
                                         : at + "." + it.key() + " is not in data/bands.json\n";
    }
  } else if (fitted.is_array()) {
    for (std::size_t i = 0; i < fitted.size(); ++i) out += differences(fitted[i], embedded[i], at + "[" + std::to_string(i) + "]");
  } else if (fitted != embedded) {
    out += at + ": " + fitted.dump() + " vs " + embedded.dump() + "\n";
  }
  return out;
}

TEST(Bands, TheCatalogIsTheFitOfThePublishedRunsWithTodaysBounds) {
  json fitted = json::parse(scalelab::calibrate_json()), embedded = json::parse(scalelab::bands_json());
  std::string diff = differences(fitted, embedded, "bands");
  EXPECT_EQ(diff, "") << "data/bands.json is not the fit of data/measurements.json with the engine's bounds of today (a "
                         "bound or a run changed): refit with `build/scalelab calibrate > data/bands.json`, rebuild, and "
                         "say in the commit how the bands moved.\n"
                      << diff;
}

TEST(Bands, EachRegimeOfTenRunsOrMoreHoldsEightyPercentOfItsRunsInTheBandFittedWithoutThem) {
  json fitted = json::parse(scalelab::calibrate_json());
  int checked = 0;
  for (const auto& band : fitted["bands"]) {
    std::vector<double> shares;
    for (const auto& s : band["shares"]) shares.push_back(s["share"]);
    if (shares.size() < 10) continue;
    ++checked;
    std::size_t inside = 0;
    for (std::size_t i = 0; i < shares.size(); ++i) {
      std::vector<double> rest = shares;
      rest.erase(rest.begin() + std::ptrdiff_t(i));
      scalelab::BandFit without =
          scalelab::fit_band(rest, band["estimate"] ? scalelab::BandOf::estimate : scalelab::BandOf::bound);
      inside += shares[i] >= without.low && shares[i] <= without.high;
    }
    EXPECT_EQ(inside, band["leave_one_out_inside"].get<std::size_t>()) << band["regime"];
    EXPECT_GE(double(inside), 0.8 * double(shares.size()))
        << band["regime"] << ": " << inside << " of " << shares.size() << " runs inside the band fitted without them";
  }
  EXPECT_GE(checked, 5) << "regimes with ten runs or more";
}

TEST(Bands, TheFitIsALogNormalPredictionIntervalHeldAtTheBound) {
  // Student's t at 0.95 against its tables: 2.131847 (4 degrees of freedom), 1.812461 (10), 1.644854 (∞)
  EXPECT_NEAR(scalelab::t_quantile(0.95, 4), 2.131847, 1e-3);
  EXPECT_NEAR(scalelab::t_quantile(0.95, 10), 1.812461, 1e-5);
  EXPECT_NEAR(scalelab::t_quantile(0.95, 1e9), 1.644854, 1e-6);
  // three equal shares: no spread, a band of one point
  scalelab::BandFit flat = scalelab::fit_band({0.5, 0.5, 0.5});
  EXPECT_DOUBLE_EQ(flat.low, 0.5);
  EXPECT_DOUBLE_EQ(flat.high, 0.5);
  // 0.16, 0.2, 0.25: logs symmetric about log 0.2, s = ln 1.25; half-width t(2)·s·√(4/3)
  scalelab::BandFit fit = scalelab::fit_band({0.25, 0.16, 0.2});
  double half = scalelab::t_quantile(0.95, 2) * std::log(1.25) * std::sqrt(4.0 / 3.0);
  EXPECT_NEAR(fit.low, 0.2 * std::exp(-half), 1e-12);
  EXPECT_NEAR(fit.high, 0.2 * std::exp(half), 1e-12);
  EXPECT_NEAR(fit.median, 0.2, 1e-15);
  EXPECT_NEAR(fit.geometric_mean, 0.2, 1e-12);
  EXPECT_FALSE(fit.capped);
  // shares near the bound: the high end is held at 1
  scalelab::BandFit near = scalelab::fit_band({0.95, 0.6, 0.99, 0.8});
  EXPECT_TRUE(near.capped);
  EXPECT_EQ(near.high, 1);
  EXPECT_THROW(scalelab::fit_band({0.5, 0.6}), std::invalid_argument);
}

TEST(Bands, AnEstimatesBandIsFittedOnBothSidesOfIt) {
  // the same shares fitted as an estimate's: the high end is the fit's own, above 1
  scalelab::BandFit around = scalelab::fit_band({0.95, 0.6, 0.99, 0.8}, scalelab::BandOf::estimate);
  scalelab::BandFit held = scalelab::fit_band({0.95, 0.6, 0.99, 0.8});
  EXPECT_FALSE(around.capped);
  EXPECT_GT(around.high, 1);
  EXPECT_EQ(around.low, held.low);
  // the catalog's estimate regimes (training's peak memory per GPU) are fitted so, and no bound's is
  json fitted = json::parse(scalelab::calibrate_json());
  int estimates = 0;
  for (const auto& band : fitted["bands"]) {
    if (!band["estimate"]) continue;
    ++estimates;
    ASSERT_TRUE(band.contains("high")) << band["regime"] << ": fewer than three runs";
    EXPECT_FALSE(band["capped"]) << band["regime"];
    EXPECT_LT(band["low"].get<double>(), 1) << band["regime"];
    EXPECT_GT(band["high"].get<double>(), 1) << band["regime"] << ": its runs lie on both sides of the estimate";
  }
  EXPECT_GE(estimates, 1);
}

// The expected range beside a bound: decode, serving, prefill and local inference write, beside each bound they
// compare with published runs, the band of that regime times the bound (a time: the bound over the
// band). The band is fitted to these runs, so the runs lie inside the ranges the engine writes for
// their own setups: the 90 % band holds at least 80 % of them, and a run named here lies inside.
TEST(Bands, PublishedInferenceRunsLieInsideTheExpectedRangeBesideTheirBound) {
  json catalog = json::parse(scalelab::measurements_json());
  std::size_t checked = 0, inside = 0;
  std::string outside;
  for (const json& run : catalog["runs"]) {
    std::string calculator = run["calculator"], output = run["measured"]["output"], id = run["id"];
    if (calculator != "decode" && calculator != "local_inference" && calculator != "serving" &&
        calculator != "prefill" && calculator != "roofline" && calculator != "collective") {
      continue;
    }
    scalelab::Evaluation e = scalelab::evaluate(calculator, run["inputs"].dump());
    ASSERT_EQ(e.status, scalelab::Status::ok) << id << ": " << e.message;
    const json out = json::parse(e.json)["outputs"];
    const json &low = out["expected_" + output + "_low"], &high = out["expected_" + output + "_high"];
    ASSERT_TRUE(low.is_number() && high.is_number()) << id << ": no expected range beside " << output;
    double bound = out[output], measured = run["measured"]["value"];
    if (output == "tokens_per_s") {  // the range is the band's shares of the bound
      EXPECT_NEAR(low.get<double>(), out["expected_share_low"].get<double>() * bound, 1e-9 * bound) << id;
      EXPECT_NEAR(high.get<double>(), out["expected_share_high"].get<double>() * bound, 1e-9 * bound) << id;
    }
    EXPECT_LE(low.get<double>(), high.get<double>()) << id;
    ++checked;
    if (measured >= low.get<double>() && measured <= high.get<double>()) ++inside;
    else outside += " " + id;
  }
  EXPECT_GE(checked, 120u) << "published decode, serving, prefill, local, matmul and collective runs";
  EXPECT_GE(double(inside), 0.8 * double(checked)) << inside << " of " << checked << " inside; outside:" << outside;
}

// Can I run it? and serving bound a time to first token with the prefill runs' band, beside the
// decode band of their tokens per second: each range carries its own band's shares, count and words.
TEST(Bands, ASecondBandOfOneCalculatorCarriesItsOwnSharesAndRuns) {
  const json prefill = json::parse(scalelab::evaluate("prefill", R"({"chip": "h100", "model": "llama3-8b"})").json)["outputs"];
  ASSERT_TRUE(prefill["expected_runs"].is_number());
  for (const auto& [calculator, ttft] : {std::pair{"local_inference", "ttft_s"}, std::pair{"serving", "time_to_first_token_s"}}) {
    for (const char* chip : {"h100", "rtx-4090"}) {
      const json o = json::parse(scalelab::evaluate(calculator, std::string(R"({"chip": ")") + chip + R"(", "model": "llama3-8b"})").json)["outputs"];
      SCOPED_TRACE(std::string(calculator) + " on " + chip);
      EXPECT_EQ(o["expected_ttft_runs"], prefill["expected_runs"]);
      EXPECT_EQ(o["expected_ttft_share_low"], prefill["expected_share_low"]);
      EXPECT_EQ(o["expected_ttft_share_high"], prefill["expected_share_high"]);
      EXPECT_NE(o["expected_ttft_runs"], o["expected_runs"]) << "the tokens/s band is another one";
      // the range is the bound over the band's shares: the long end over the low share
      const double bound = o[std::string("expected_") + ttft + "_low"].get<double>() * o["expected_ttft_share_high"].get<double>();
      EXPECT_NEAR(o[std::string("expected_") + ttft + "_high"].get<double>() * o["expected_ttft_share_low"].get<double>(), bound, 1e-12 * bound);
    }
  }
  // the prefill runs took 512-token prompts: a longer prompt's first-token range says it is carried,
  // in the words of a prompt (the tokens/s range speaks of the context instead)
  const json own = json::parse(scalelab::evaluate("local_inference", R"({"chip": "rtx-4090", "model": "llama3-8b", "context": 1024})").json)["outputs"];
  EXPECT_EQ(own["expected_ttft_covered"], false);
  EXPECT_EQ(own["expected_ttft_outside"],
            "The published runs behind this range took 512 prompt tokens; this setup takes 1,024 prompt tokens, so the "
            "range is carried beyond what was measured.");
  const json short_prompt = json::parse(scalelab::evaluate("local_inference", R"({"chip": "rtx-4090", "model": "llama3-8b", "prompt_tokens": 512})").json)["outputs"];
  EXPECT_EQ(short_prompt["expected_ttft_covered"], true);
}

TEST(Bands, AnExpectedRangeNamesItsRunsAndSaysWhenTheSetupLiesOutsideThem) {
  // llama.cpp's LLaMA 3 8B Q4_K_M on an RTX 4090 at batch 1: inside the local-GPU runs
  json in = json::parse(scalelab::evaluate("local_inference", R"({"chip": "rtx-4090", "model": "llama3-8b", "context": 1024})").json);
  EXPECT_EQ(in["outputs"]["expected_covered"], true);
  EXPECT_GE(in["outputs"]["expected_runs"].get<double>(), 10);
  bool said = false;
  for (const auto& s : in["steps"]) said = said || s["label"].get<std::string>().find("published runs of local inference on a GPU") != std::string::npos;
  EXPECT_TRUE(said) << "a step names the band it comes from";
  EXPECT_TRUE(in["outputs"]["expected_outside"].is_null());
  // 64 users: the runs had one, so the range is carried beyond them, and says so in words
  json many = json::parse(scalelab::evaluate("local_inference", R"({"chip": "rtx-4090", "model": "llama3-8b", "users": 64, "context": 1024})").json);
  EXPECT_EQ(many["outputs"]["expected_covered"], false);
  EXPECT_EQ(many["outputs"]["expected_outside"],
            "The published runs behind this range took 1 concurrent user; this setup takes 64 concurrent users, "
            "so the range is carried beyond what was measured.");
  // decode's settings by their labels, each with the range the runs took and its unit
  json slice = json::parse(scalelab::evaluate("decode", R"({"chip": "tpu-v5e", "model": "llama3-70b", "chips": 16, "batch": 32, "context": 8192})").json);
  EXPECT_EQ(slice["outputs"]["expected_outside"],
            "The published runs behind this range took 1–8 chips and a context of 205–2,048 tokens; this setup "
            "takes 16 chips and a context of 8,192 tokens, so the range is carried beyond what was measured.");
  // a decode step on a reader's own GPU takes the band of local runs on GPUs, not the datacenter one
  json consumer = json::parse(scalelab::evaluate("decode", R"({"chip": "rtx-4090", "model": "llama3-8b", "chips": 1, "batch": 1, "context": 1024})").json);
  EXPECT_EQ(consumer["outputs"]["expected_runs"], in["outputs"]["expected_runs"]);
  json a100 = json::parse(scalelab::evaluate("decode", R"({"chip": "a100", "model": "llama3-8b", "chips": 1, "batch": 1, "context": 1024})").json);
  EXPECT_EQ(a100["outputs"]["expected_covered"], true);
  EXPECT_NE(a100["outputs"]["expected_runs"], consumer["outputs"]["expected_runs"]);
  // training runs ran on TPUs and datacenter GPUs: on a Mac the range is carried to another kind of
  // device, said in words, and its count of chips is a count of devices (the runs' own keep chips)
  json mac = json::parse(scalelab::evaluate("training_run", R"({"chip": "apple-m2-max", "model": "gpt2-124m", "chips": 1, "tokens": 2.5e9})").json);
  EXPECT_EQ(mac["outputs"]["expected_covered"], false);
  EXPECT_EQ(mac["outputs"]["expected_outside"],
            "The published runs behind this range ran on TPU and datacenter GPU chips and took 384–16,384 chips; this "
            "setup runs on a machine with unified memory and takes 1 device, so the range is carried beyond what was measured.");
  json cards = json::parse(scalelab::evaluate("training_run", R"({"chip": "rtx-4090", "model": "gpt2-124m", "chips": 16, "tokens": 2.5e9})").json);
  const std::string card_words = cards["outputs"]["expected_outside"].get<std::string>();
  EXPECT_NE(card_words.find("this setup runs on a consumer GPU and takes 16 devices"), std::string::npos) << card_words;
  EXPECT_EQ(card_words.find("16 chips"), std::string::npos) << card_words;
  // Can I run it? on a TPU takes the band of decode on TPUs and datacenter GPUs
  json tpu = json::parse(scalelab::evaluate("local_inference", R"({"chip": "tpu-v5e", "model": "llama3-8b"})").json);
  json tpu_decode = json::parse(scalelab::evaluate("decode", R"({"chip": "tpu-v5e", "model": "llama3-8b"})").json);
  EXPECT_EQ(tpu["outputs"]["expected_runs"], tpu_decode["outputs"]["expected_runs"]);
  EXPECT_FALSE(tpu["outputs"]["expected_tokens_per_s_low"].is_null());
}

// Today's models on today's devices (issue 35): MoE, MLA, sliding windows and two cards split by
// layers, each below its bound, at its share, and inside or below its regime's band as stated.
TEST(Bands, TodaysModelsPublishedRunsStandWhereTheirSharesSay) {
  json catalog = json::parse(scalelab::measurements_json());
  struct Want {
    const char* id;
    double share;
    bool inside;  // within the regime's band (false: below it)
  };
  const Want wants[] = {
      {"jg-m3ultra-deepseek-r1-q4km-tg128", 0.5593, true},     // 20.21 of 36.14 tokens/s: MLA, 8 of 256 experts read
      {"gg-m2ultra-qwen3-30b-a3b-q8_0-tg128", 0.3398, false},  // 76.31 of 224.6: the local-unified band's lowest run
      {"xd-2x3090-llama3-70b-q4km-tg512", 0.7586, true},       // 16.57 of 21.84: two stages summed
      {"xd-2x3090-llama3-70b-q4km-tg8192", 0.6951, true},
      {"xd-2x4090-llama3-70b-q4km-tg512", 0.8171, true},
      {"ollama-5090-gemma3-27b-q4km", 0.4632, true},  // sliding windows on five layers of six
      {"ollama-5090-gemma2-27b-q4km", 0.7068, true},
  };
  for (const Want& want : wants) {
    const json* run = nullptr;
    for (const json& r : catalog["runs"]) {
      if (r["id"] == want.id) run = &r;
    }
    ASSERT_NE(run, nullptr) << want.id;
    scalelab::Evaluation e = scalelab::evaluate("local_inference", (*run)["inputs"].dump());
    ASSERT_EQ(e.status, scalelab::Status::ok) << want.id << ": " << e.message;
    const json out = json::parse(e.json)["outputs"];
    EXPECT_EQ(out["fits"], true) << want.id;
    const double bound = out["tokens_per_s"], measured = (*run)["measured"]["value"];
    EXPECT_LT(measured, bound) << want.id;
    EXPECT_NEAR(measured / bound, want.share, 1e-3) << want.id;
    const bool inside = measured >= out["expected_tokens_per_s_low"].get<double>() &&
                        measured <= out["expected_tokens_per_s_high"].get<double>();
    EXPECT_EQ(inside, want.inside) << want.id << " at " << measured / bound << " of the bound, band "
                                   << out["expected_share_low"] << "–" << out["expected_share_high"];
    EXPECT_EQ(out["expected_covered"], true) << want.id << ": " << out["expected_outside"];
  }
}

// A local band knows how many devices its runs took (calibration's covered "devices": the chip's
// devices and other_devices together), and names them with the schema's count noun.
TEST(Bands, TheLocalBandSaysHowManyDevicesItsRunsTook) {
  json three = json::parse(scalelab::evaluate("local_inference", R"({"chip": "rtx-3090", "devices": 3, "model": "llama3-70b"})").json);
  EXPECT_EQ(three["outputs"]["expected_covered"], false);
  EXPECT_EQ(three["outputs"]["expected_outside"],
            "The published runs behind this range took 1–2 devices; this setup takes 3 devices, so the range is "
            "carried beyond what was measured.");
  // a 4090 beside a 3090 is two devices, as the 2 × 3090 and 2 × 4090 runs were
  json mixed = json::parse(scalelab::evaluate("local_inference", R"({"chip": "rtx-4090", "other_devices": ["rtx-3090"], "model": "llama3-70b"})").json);
  EXPECT_EQ(mixed["outputs"]["expected_covered"], true);
  json mixed3 = json::parse(scalelab::evaluate("local_inference", R"({"chip": "rtx-4090", "devices": 2, "other_devices": ["rtx-3090"], "model": "llama3-70b"})").json);
  EXPECT_EQ(mixed3["outputs"]["expected_outside"],
            "The published runs behind this range took 1–2 devices; this setup takes 3 devices, so the range is "
            "carried beyond what was measured.");
  // every Mac run took one device: the noun's singular
  json bands = json::parse(scalelab::bands_json());
  for (const json& b : bands["bands"]) {
    if (b["regime"] == "local-unified") {
      EXPECT_EQ(b["covers"]["devices"], json::array({1.0, 1.0}));
    }
    if (b["regime"] == "local-gpu") {
      EXPECT_EQ(b["covers"]["devices"], json::array({1.0, 2.0}));
    }
  }
}

// The runs were fitted at full utilisation: a prefill MFU below 1 is the reader's own estimate of the
// gap the range stands for, so the range stays that of the bound at MFU 1 (not derated twice).
TEST(Bands, AnExpectedRangeIsOfTheBoundAtFullUtilisation) {
  auto outputs = [](const char* calculator, const char* input) {
    return json::parse(scalelab::evaluate(calculator, input).json)["outputs"];
  };
  json full = outputs("prefill", R"({"chip": "h100", "model": "llama2-7b", "chips": 1, "tokens": 2048})");
  json half = outputs("prefill", R"({"chip": "h100", "model": "llama2-7b", "chips": 1, "tokens": 2048, "mfu": 0.5})");
  EXPECT_GT(half["t_s"].get<double>(), full["t_s"].get<double>());
  EXPECT_EQ(half["expected_t_s_low"], full["expected_t_s_low"]);
  EXPECT_EQ(half["expected_t_s_high"], full["expected_t_s_high"]);
  EXPECT_EQ(full["expected_covered"], true);
  json served = outputs("serving", R"({"chip": "h100", "model": "llama2-7b", "chips": 1, "batch": 64, "prompt_tokens": 128, "decode_tokens": 2048})");
  json slow = outputs("serving", R"({"chip": "h100", "model": "llama2-7b", "chips": 1, "batch": 64, "prompt_tokens": 128, "decode_tokens": 2048, "prefill_mfu": 0.5})");
  EXPECT_EQ(slow["expected_throughput_tokens_per_s_high"], served["expected_throughput_tokens_per_s_high"]);
  EXPECT_EQ(served["expected_throughput_tokens_per_s_high"], served["throughput_tokens_per_s"]);  // the band's high end is the bound
}

// Whole training runs: training_run's expected run time is the time at the chips' peak over the MFUs
// published runs reached, whatever MFU is given; the runs' own chip-hours lie inside it.
TEST(Bands, PublishedTrainingRunsLieInsideTheExpectedRunTime) {
  json catalog = json::parse(scalelab::measurements_json());
  std::size_t checked = 0, inside = 0;
  std::string outside;
  for (const json& run : catalog["runs"]) {
    if (run["regime"] != "training-run" || run["measured"]["output"] != "chip_hours") continue;
    json input = run["inputs"];
    input["mfu"] = 0.3;  // the reader's own guess moves the time, not the range
    const json out = json::parse(scalelab::evaluate("training_run", input.dump()).json)["outputs"];
    ASSERT_TRUE(out["expected_t_s_low"].is_number()) << run["id"];
    const double t = run["measured"]["value"].get<double>() * 3600 / out["chips"].get<double>();
    const double at_peak = out["total_flops"].get<double>() / out["peak_flops"].get<double>() * out["t_s"].get<double>();
    EXPECT_NEAR(out["expected_t_s_high"].get<double>(), at_peak / out["expected_share_low"].get<double>(), 1e-9 * t);
    ++checked;
    if (t >= out["expected_t_s_low"].get<double>() && t <= out["expected_t_s_high"].get<double>()) ++inside;
    else outside += " " + run["id"].get<std::string>();
  }
  EXPECT_GE(checked, 10u);
  EXPECT_GE(double(inside), 0.8 * double(checked)) << inside << " of " << checked << " inside; outside:" << outside;
}

// "I measured" (issue 37): a reader's own run stands among the published ones by its share of the
// engine's figure. Each published run given back as the reader's measurement (its chip-hours, its
// training rate, its peak memory, its tokens/s decoding, serving or on a local device) stands where
// its own share stands among its regime's runs, read from data/bands.json; the sentence names the
// regime and the span of the runs' shares.
TEST(Bands, AMeasurementStandsAmongThePublishedRunsWhereItsShareDoes) {
  const json bands = json::parse(scalelab::bands_json())["bands"];
  auto shares_of = [&](const std::string& regime) {
    for (const json& b : bands) {
      if (b["regime"] != regime) continue;
      std::vector<double> shares;
      for (const json& s : b["shares"]) shares.push_back(s["share"].get<double>());
      return std::pair{shares, b["title"].get<std::string>()};
    }
    ADD_FAILURE() << "no band " << regime;
    return std::pair{std::vector<double>{}, std::string()};
  };
  std::size_t checked = 0;
  const json catalog = json::parse(scalelab::measurements_json());
  for (const json& run : catalog["runs"]) {
    const std::string regime = run["regime"], output = run["measured"]["output"];
    const double value = run["measured"]["value"].get<double>();
    json input = run["inputs"];
    const char* calculator = nullptr;
    if (regime == "training-run" && output == "chip_hours") {
      input.erase("mfu");
      input["chip_hours"] = value;
      calculator = "training_run";
    } else if (regime == "training-step" && run["calculator"] == "training_run" && output == "t_s") {
      // a step run states the tokens its chips trained in `value` seconds (t_s): that rate, measured
      input.erase("mfu");
      input["measured_tokens_per_s"] = input["tokens"].get<double>() / value;
      calculator = "training_run";
    } else if (regime == "training-memory" && run["calculator"] == "training_memory") {
      input["measured_peak_bytes"] = value;
      calculator = "training_memory";
    } else if (run["calculator"] == "prefill" && output == "t_s") {
      input["measured_t_s"] = value;
      calculator = "prefill";
    } else if ((output == "tokens_per_s" || output == "throughput_tokens_per_s") &&
               (run["calculator"] == "decode" || run["calculator"] == "serving" || run["calculator"] == "local_inference")) {
      input["measured_tokens_per_s"] = value;
      calculator = run["calculator"].get_ref<const std::string&>().c_str();
    } else {
      continue;
    }
    const auto [shares, title] = shares_of(regime);
    const json out = json::parse(scalelab::evaluate(calculator, input.dump()).json);
    ASSERT_TRUE(out.contains("outputs")) << run["id"] << ": " << out.dump().substr(0, 300);
    const json& o = out["outputs"];
    const std::string calc = calculator;
    const double share = calc == "training_memory" ? o["measured_share_of_estimate"].get<double>()
                         : calc == "training_run"  ? o["mfu"].get<double>()
                                                   : o["measured_share_of_bound"].get<double>();
    const double own = *std::min_element(shares.begin(), shares.end(), [&](double a, double b) {
      return std::abs(a - share) < std::abs(b - share);
    });
    EXPECT_NEAR(share, own, 1e-9 * own) << run["id"] << ": the measurement gives back the run's own share";
    // the run stands beside itself: below it, the runs of smaller shares than its own
    const auto below = std::count_if(shares.begin(), shares.end(), [&](double s) { return s < own && std::abs(s - own) > 1e-9 * own; });
    EXPECT_EQ(o["measured_runs_below"].get<double>(), double(below)) << run["id"];
    const std::string among = o["measured_among"];
    EXPECT_EQ(among.rfind("Of the " + std::to_string(shares.size()) + " published runs of " + title + ", ", 0), 0u) << among;
    ++checked;
  }
  EXPECT_GE(checked, 100u);
  // without a measurement, nothing is placed
  const json plain = json::parse(scalelab::evaluate("training_run", R"({"chip": "h100"})").json)["outputs"];
  EXPECT_TRUE(plain["measured_among"].is_null());
  EXPECT_TRUE(plain["measured_runs_below"].is_null());
}

TEST(Bands, AMeasuredRateIsRefusedBesideAnMfuOrAboveThePeak) {
  auto error = [](const char* input) {
    const json r = json::parse(scalelab::evaluate("training_run", input).json);
    return r.contains("error") ? r["error"] : json();
  };
  json both = error(R"({"chip": "h100", "mfu": 0.4, "measured_tokens_per_s": 1e6})");
  EXPECT_EQ(both["param"], "measured_tokens_per_s");
  EXPECT_NE(both["message"].get<std::string>().find("not both"), std::string::npos) << both.dump();
  // 6·P·D at the chips' peak bounds the rate: Llama 3 70B on 1,024 H100s trains at most C·n / 6P tokens/s
  const json run = json::parse(scalelab::evaluate("training_run", R"({"chip": "h100", "model": "llama3-70b", "chips": 1024})").json)["outputs"];
  const double most = run["peak_flops"].get<double>() / run["t_s"].get<double>() / (6 * run["params"].get<double>());
  json fast = error((R"({"chip": "h100", "model": "llama3-70b", "chips": 1024, "measured_tokens_per_s": )" + std::to_string(most * 1.01) + "}").c_str());
  EXPECT_EQ(fast["param"], "measured_tokens_per_s");
  EXPECT_NE(fast["message"].get<std::string>().find("must be at most"), std::string::npos) << fast.dump();
  const json just = json::parse(scalelab::evaluate("training_run", (R"({"chip": "h100", "model": "llama3-70b", "chips": 1024, "measured_tokens_per_s": )" + std::to_string(most * 0.99) + "}").c_str()).json)["outputs"];
  EXPECT_NEAR(just["mfu"].get<double>(), 0.99, 1e-6);
  EXPECT_TRUE(error(R"({"chip": "h100", "chip_hours": 1e6, "measured_tokens_per_s": 1e6})")["param"] == "measured_tokens_per_s");
}

}  // namespace

// The ranges beside the training and micro-benchmark bounds: each is its bound over the band's
// shares, and none is given where the band's runs say nothing (no chip, another fabric or path).
TEST(Bands, EveryBoundedTimeHasItsRangeWhereRunsCalibrateIt) {
  auto outputs = [](const char* calculator, const char* input) {
    const json r = json::parse(scalelab::evaluate(calculator, input).json);
    EXPECT_TRUE(r.contains("outputs")) << calculator << " " << input << ": " << r.dump().substr(0, 300);
    return r.value("outputs", json::object());
  };
  auto over_shares = [](const json& o, const std::string& bound, double t) {
    EXPECT_NEAR(o["expected_" + bound + "_low"].get<double>(), t / o["expected_share_high"].get<double>(), 1e-9 * t) << bound;
    EXPECT_NEAR(o["expected_" + bound + "_high"].get<double>(), t / o["expected_share_low"].get<double>(), 1e-9 * t) << bound;
  };
  const json run = outputs("training_run", R"({"chip": "h100", "model": "llama3-70b", "chips": 8192})");
  EXPECT_NEAR(run["expected_days_low"].get<double>(), run["expected_t_s_low"].get<double>() / 86400, 1e-9);
  EXPECT_NEAR(run["expected_days_high"].get<double>(), run["expected_t_s_high"].get<double>() / 86400, 1e-9);
  const json budget = outputs("compute_budget", R"({"chip": "h100", "N": 7e10, "D": 1.5e13})");
  over_shares(budget, "t_s", 6 * 7e10 * 1.5e13 / 990e12);  // 6·N·D at the H100's bf16 peak
  const json remat = outputs("compute_budget", R"({"chip": "h100", "N": 7e10, "D": 1.5e13, "checkpointing": "block"})");
  EXPECT_EQ(remat["expected_t_s_low"], budget["expected_t_s_low"]) << "MFU counts 6·N·D whatever the remat";
  EXPECT_TRUE(outputs("compute_budget", R"({"flops_per_s": 1e15})")["expected_t_s_low"].is_null()) << "no chip, no kind";
  const json comm = outputs("training_comm", R"({"chip": "h100"})");
  EXPECT_EQ(comm["t_layer_s"], std::max(comm["t_math_s"].get<double>(), comm["t_comm_s"].get<double>()));
  over_shares(comm, "t_layer_s", comm["t_layer_s"].get<double>());
  const json mm = outputs("roofline", R"({"chip": "h100", "matmul": {"B": 8192, "D": 8192, "F": 8192}})");
  over_shares(mm, "t_lower_s", mm["t_lower_s"].get<double>());
  EXPECT_TRUE(outputs("roofline", R"({"chip": "tpu-v5e", "flops": 1e12, "bytes": 1e9, "bandwidth": "ici"})")["expected_t_lower_s_low"].is_null());
  const json ar = outputs("collective", R"({"chip": "h100", "op": "all_reduce", "bytes": 1e9})");
  over_shares(ar, "t_s", ar["t_s"].get<double>());
  // between nodes the InfiniBand runs give a band of their own; over DCN no runs give one
  const json ib = outputs("collective", R"({"chip": "h100", "op": "all_reduce", "bytes": 1e9, "nodes": 4})");
  ASSERT_EQ(ib["fabric"], "ib_fat_tree");
  over_shares(ib, "t_s", ib["t_s"].get<double>());
  EXPECT_NE(ib["expected_runs"], ar["expected_runs"]) << "the NVLink runs are inside one node";
  EXPECT_TRUE(outputs("collective", R"({"chip": "tpu-v5e", "op": "all_reduce", "bytes": 1e9, "fabric": "dcn", "axes": [2]})")["expected_t_s_low"].is_null())
      << "no published DCN collective";
  // over a TPU slice's ICI with the chip's own links (the ICI runs); a link given in their stead has no runs
  const json ici = outputs("collective", R"({"chip": "tpu-v5e", "op": "all_gather", "bytes": 1e9})");
  over_shares(ici, "t_s", ici["t_s"].get<double>());
  EXPECT_NE(ici["expected_runs"], ar["expected_runs"]) << "ICI and NVLink runs are bands of their own";
  EXPECT_TRUE(outputs("collective", R"({"chip": "tpu-v5e", "op": "all_gather", "bytes": 1e9, "link_bytes_per_s": 4.5e10})")["expected_t_s_low"].is_null());
  // a sharded matmul takes the range of the term that sets its time: the matmul's when compute-bound,
  // the ICI collectives' when comms-bound
  const json math = outputs("sharded_matmul", R"({"chip": "tpu-v5e"})");
  ASSERT_EQ(math["bound"], "compute");
  over_shares(math, "t_s", math["t_s"].get<double>());
  EXPECT_EQ(math["expected_runs"], mm["expected_runs"]);
  const json comms = outputs("sharded_matmul", R"({"chip": "tpu-v5e", "spec": "A[I, J_X] * B[J_X, K] -> C[I, K]", "dims": {"I": 8, "J": 8192, "K": 8192}, "mesh": {"X": 4}})");
  ASSERT_EQ(comms["bound"], "comms");
  over_shares(comms, "t_s", comms["t_s"].get<double>());
  EXPECT_EQ(comms["expected_runs"], ici["expected_runs"]);
  // a fine-tune's range is of its tokens/s at the device's peak (MFU 1), whatever MFU the reader sets
  const json ft = outputs("finetune", R"({"chip": "rtx-4090", "mfu": 0.5})");
  const json peak = outputs("finetune", R"({"chip": "rtx-4090", "mfu": 1})");
  EXPECT_NEAR(ft["expected_tokens_per_s_low"].get<double>(), peak["tokens_per_s"].get<double>() * ft["expected_share_low"].get<double>(), 1e-9 * peak["tokens_per_s"].get<double>());
  EXPECT_NEAR(ft["expected_tokens_per_s_high"].get<double>(), peak["tokens_per_s"].get<double>() * ft["expected_share_high"].get<double>(), 1e-9 * peak["tokens_per_s"].get<double>());
  over_shares(ft, "t_s", peak["t_s"].get<double>());
  // TPU training recipes are a band of their own; an Apple-silicon Mac takes the GPUs' and MLX's
  const json tpu_ft = outputs("finetune", R"({"chip": "tpu-v6e"})");
  const json mac_ft = outputs("finetune", R"({"chip": "apple-m2-max"})");
  EXPECT_FALSE(tpu_ft["expected_runs"].is_null());
  EXPECT_NE(tpu_ft["expected_runs"], ft["expected_runs"]);
  EXPECT_EQ(mac_ft["expected_runs"], ft["expected_runs"]);
  // a copy over HBM, PCIe or NVLink takes the band of published copies; ICI, DCN or a CPU's memory none
  for (const char* path : {"hbm", "pcie", "nvlink"}) {
    const json copy = outputs("transfer", (std::string(R"({"chip": "h100", "bytes": 1e9, "path": ")") + path + "\"}").c_str());
    over_shares(copy, "t_s", copy["t_s"].get<double>());
  }
  EXPECT_TRUE(outputs("transfer", R"({"chip": "tpu-v5e", "bytes": 1e9, "path": "ici"})")["expected_t_s_low"].is_null());
  EXPECT_TRUE(outputs("transfer", R"({"chip": "tpu-v5e", "bytes": 1e9, "path": "dcn"})")["expected_t_s_low"].is_null());
  EXPECT_TRUE(outputs("transfer", R"({"chip": "desktop-ddr5", "bytes": 1e9, "path": "hbm"})")["expected_t_s_low"].is_null())
      << "no published copy on a CPU's memory";
  // a collective smaller than any the runs moved: where the bound prices each hop's latency (a TPU's
  // ICI) the range is carried and says so; where it prices none (NVLink, InfiniBand) the time of a
  // small array is set by what the bound leaves out, so no range is given
  const json ici_small = outputs("collective", R"({"chip": "tpu-v5e", "op": "all_gather", "bytes": 1e5})");
  ASSERT_GT(ici_small["t_latency_s"].get<double>(), 0);
  EXPECT_EQ(ici_small["expected_covered"], false);
  EXPECT_NE(ici_small["expected_outside"].get<std::string>().find("this setup takes 100 kB, so the range is carried"),
            std::string::npos)
      << ici_small["expected_outside"];
  for (const char* small_gpu : {R"({"chip": "h100", "op": "all_reduce", "bytes": 1e6})",
                                R"({"chip": "h100", "op": "all_gather", "bytes": 1e5, "fabric": "ib_fat_tree"})"}) {
    const json small = outputs("collective", small_gpu);
    SCOPED_TRACE(small_gpu);
    EXPECT_EQ(small["t_latency_s"], 0);
    EXPECT_TRUE(small["expected_t_s_low"].is_null());
    EXPECT_TRUE(small["expected_runs"].is_null());
  }
  // at the runs' own sizes the GPU fabrics keep their range
  EXPECT_TRUE(outputs("collective", R"({"chip": "h100", "op": "all_reduce", "bytes": 3e8})")["expected_t_s_low"].is_number());
}

TEST(Bands, AMeasuredFineTuneIsItsShareOfThePeak) {
  const json peak = json::parse(scalelab::evaluate("finetune", R"({"chip": "rtx-4090", "mfu": 1})").json)["outputs"];
  const double rate = 0.5 * peak["tokens_per_s"].get<double>();
  const json o = json::parse(scalelab::evaluate("finetune", R"({"chip": "rtx-4090", "measured_tokens_per_s": )" + std::to_string(rate) + "}").json)["outputs"];
  EXPECT_NEAR(o["measured_share_of_bound"].get<double>(), 0.5, 1e-9) << "your MFU";
  EXPECT_NEAR(o["achieved_flops_per_s"].get<double>(), 0.5 * peak["flops_per_s"].get<double>(), 1e-6 * peak["flops_per_s"].get<double>());
  EXPECT_TRUE(o["measured_among"].is_string());
  EXPECT_TRUE(json::parse(scalelab::evaluate("finetune", R"({"chip": "rtx-4090"})").json)["outputs"]["measured_among"].is_null());
  const json r = json::parse(scalelab::evaluate("finetune", R"({"chip": "rtx-4090", "measured_tokens_per_s": -1})").json);
  EXPECT_EQ(r["error"]["param"], "measured_tokens_per_s");
}

TEST(Bands, AMeasuredTimeToFirstTokenIsItsBoundOverItsTime) {
  for (const auto& [calculator, bound_name, setup] :
       {std::tuple{"serving", "time_to_first_token_s", std::string(R"("chip": "h100", "model": "llama3-8b")")},
        std::tuple{"local_inference", "ttft_s", std::string(R"("chip": "rtx-4090")")}}) {
    const json bound = json::parse(scalelab::evaluate(calculator, "{" + setup + "}").json)["outputs"];
    EXPECT_TRUE(bound["measured_ttft_share_of_bound"].is_null()) << calculator;
    const double t = 2 * bound[bound_name].get<double>();
    const json o = json::parse(scalelab::evaluate(calculator, "{" + setup + R"(, "measured_ttft_s": )" + json(t).dump() + "}").json)["outputs"];
    EXPECT_NEAR(o["measured_ttft_share_of_bound"].get<double>(), 0.5, 1e-6) << calculator;
    EXPECT_TRUE(o["measured_ttft_among"].is_string()) << calculator;
    EXPECT_EQ(o[bound_name], bound[bound_name]) << calculator << ": a measurement changes no bound";
    const json bad = json::parse(scalelab::evaluate(calculator, "{" + setup + R"(, "measured_ttft_s": 0})").json);
    EXPECT_EQ(bad["error"]["param"], "measured_ttft_s") << calculator;
  }
}

TEST(Bands, AMeasuredPrefillIsItsBoundOverItsTime) {
  const json o = json::parse(scalelab::evaluate("prefill", R"({"chip": "h100", "chips": 8, "mfu": 0.5, "measured_t_s": 0.5})").json)["outputs"];
  const json bound = json::parse(scalelab::evaluate("prefill", R"({"chip": "h100", "chips": 8})").json)["outputs"];
  EXPECT_NEAR(o["measured_share_of_bound"].get<double>(), bound["t_s"].get<double>() / 0.5, 1e-12) << "the bound at full utilisation";
  EXPECT_NEAR(o["achieved_flops_per_s"].get<double>(), o["flops"].get<double>() / 0.5, 1e-12 * o["achieved_flops_per_s"].get<double>());
  EXPECT_TRUE(o["measured_among"].is_string());
  const json r = json::parse(scalelab::evaluate("prefill", R"({"chip": "h100", "measured_t_s": 0})").json);
  EXPECT_EQ(r["error"]["param"], "measured_t_s");
}

// band_for keeps its last answers (the bands are fixed when the engine is built): a look-up gives
// the band of its own arguments whatever was asked before it, with more look-ups between than it
// keeps, and a setting's value may be a caller's temporary, gone before the next look-up.
TEST(Bands, ALookUpGivesTheBandOfItsOwnArgumentsWhateverWasAskedBefore) {
  using scalelab::ChipKind;
  struct Ask {
    const char *calculator, *output;
    ChipKind kind;
    const char* fabric;  // the collective's fabric setting, or null for no setting
    const char* regime;  // the band's, or null for none
  };
  const std::vector<Ask> asks = {
      {"decode", "tokens_per_s", ChipKind::tpu, nullptr, "decode"},
      {"decode", "tokens_per_s", ChipKind::consumer_gpu, nullptr, "local-gpu"},
      {"decode", "step_s", ChipKind::unified_memory, nullptr, "local-unified"},
      {"decode", "tokens_per_s", ChipKind::cpu, nullptr, "local-cpu"},
      {"serving", "latency_s", ChipKind::datacenter_gpu, nullptr, "serving"},
      {"prefill", "t_s", ChipKind::cpu, nullptr, "prefill"},
      {"collective", "t_s", ChipKind::datacenter_gpu, "nvlink", "collective"},
      {"collective", "t_s", ChipKind::datacenter_gpu, "ib_fat_tree", "collective-ib"},
      {"collective", "t_s", ChipKind::tpu, "ici", "collective-ici"},
      {"collective", "t_s", ChipKind::datacenter_gpu, "ici", nullptr},
      {"collective", "t_s", ChipKind::tpu, "nvlink", nullptr},
      {"roofline", "t_lower_s", ChipKind::consumer_gpu, nullptr, nullptr},
      {"training_run", "t_s", ChipKind::tpu, nullptr, "training-run"},
      {"decode", "no_such_output", ChipKind::tpu, nullptr, nullptr},
  };
  auto look_up = [](const Ask& a) {
    std::string fabric = a.fabric ? a.fabric : "";  // a temporary: its text is overwritten after the call
    const scalelab::Band* band = a.fabric ? scalelab::band_for(a.calculator, a.output, a.kind, {{"fabric", fabric}})
                                          : scalelab::band_for(a.calculator, a.output, a.kind);
    fabric.assign(fabric.size(), '#');
    return band;
  };
  for (int pass = 0; pass < 3; ++pass) {  // forwards, backwards, then each twice in a row
    for (std::size_t n = 0; n < asks.size(); ++n) {
      const Ask& a = asks[pass == 1 ? asks.size() - 1 - n : n];
      for (int again = 0; again < (pass == 2 ? 2 : 1); ++again) {
        const scalelab::Band* band = look_up(a);
        SCOPED_TRACE(std::string(a.calculator) + "." + a.output + (a.fabric ? std::string(" over ") + a.fabric : ""));
        if (!a.regime) {
          EXPECT_EQ(band, nullptr);
        } else {
          ASSERT_NE(band, nullptr);
          EXPECT_STREQ(band->regime, a.regime);
        }
      }
    }
  }
}
