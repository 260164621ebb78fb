// Real topologies: every calculator that prices chips talking to each other checks the
// configuration against what the chip's network can form (the catalog's pod shape, wraparound
// rule, ICI links, pod size and what lies beyond it), and the chip's figures are typed.
#include <gtest/gtest.h>

#include <string>

#include "catalog/catalog.hpp"  // engine/src: the typed Chip
#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::Status;
using scalelab::testing::json;

json eval_ok(const std::string& name, const json& input) {
  scalelab::Evaluation e = scalelab::evaluate(name, input.dump());
  EXPECT_EQ(e.status, Status::ok) << name << " " << input.dump() << ": " << e.param << ": " << e.message;
  return e.status == Status::ok ? json::parse(e.json) : json();
}

scalelab::Evaluation eval_refused(const std::string& name, const json& input, const std::string& param) {
  scalelab::Evaluation e = scalelab::evaluate(name, input.dump());
  EXPECT_EQ(e.status, Status::bad_input) << name << " " << input.dump();
  EXPECT_EQ(e.param, param) << e.message;
  return e;
}

bool warned(const json& result, const std::string& text) {
  for (const auto& w : result["warnings"]) {
    if (w.get<std::string>().find(text) != std::string::npos) return true;
  }
  return false;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

json gather(const std::string& chip, const json& axes) {
  return {{"chip", chip}, {"op", "all_gather"}, {"bytes", 1e9}, {"axes", axes}};
}

// ---- collective ----

TEST(Topology, CollectiveV5eFourRingHasNoWraparoundByDefault) {
  json dflt = eval_ok("collective", gather("tpu-v5e", {4}));
  json open = gather("tpu-v5e", {4});
  open["wraparound"] = false;
  EXPECT_DOUBLE_EQ(dflt["outputs"]["t_s"].get<double>(), eval_ok("collective", open)["outputs"]["t_s"].get<double>());
}

TEST(Topology, CollectiveV5eFourRingWithWraparoundIsWarned) {
  json asked = gather("tpu-v5e", {4});
  asked["wraparound"] = true;
  json r = eval_ok("collective", asked);
  EXPECT_TRUE(warned(r, "TPU v5e has no wraparound on an axis of 4 chips")) << r["warnings"].dump();
  EXPECT_TRUE(warned(r, "only when it spans 16 chips")) << r["warnings"].dump();
  json open = gather("tpu-v5e", {4});
  open["wraparound"] = false;
  EXPECT_LT(r["outputs"]["t_s"].get<double>(), eval_ok("collective", open)["outputs"]["t_s"].get<double>());
}

TEST(Topology, CollectiveWrapsWhereTheChipDoes) {
  for (const auto& [chip, axes] : {std::pair<std::string, json>{"tpu-v5e", {16}}, {"tpu-v5e", {16, 16}},
                                   {"tpu-v5p", {4, 4, 4}}, {"tpu-v4p", {4, 8}}}) {
    json closed = gather(chip, axes);
    closed["wraparound"] = true;
    EXPECT_DOUBLE_EQ(eval_ok("collective", gather(chip, axes))["outputs"]["t_s"].get<double>(),
                     eval_ok("collective", closed)["outputs"]["t_s"].get<double>())
        << chip << " " << axes.dump();
  }
}

TEST(Topology, CollectiveV5pPartialCubeHasNoWraparound) {
  // tpus.md: a 2x2x4 has no wraparound (optical links only join whole 4x4x4 cubes)
  json open = gather("tpu-v5p", {2, 2, 4});
  open["wraparound"] = false;
  EXPECT_DOUBLE_EQ(eval_ok("collective", gather("tpu-v5p", {2, 2, 4}))["outputs"]["t_s"].get<double>(),
                   eval_ok("collective", open)["outputs"]["t_s"].get<double>());
  // …and an 8x16 v5e wraps its long axis only
  json v5e = gather("tpu-v5e", {8, 16});
  v5e["wraparound"] = json::array({false, true});
  EXPECT_DOUBLE_EQ(eval_ok("collective", gather("tpu-v5e", {8, 16}))["outputs"]["t_s"].get<double>(),
                   eval_ok("collective", v5e)["outputs"]["t_s"].get<double>());
}

TEST(Topology, CollectiveV5eThreeAxisMeshIsRefused) {
  auto e = eval_refused("collective", gather("tpu-v5e", {4, 4, 4}), "axes");
  EXPECT_TRUE(contains(e.message, "TPU v5e's ICI torus has 2 axes")) << e.message;
  EXPECT_TRUE(contains(e.message, "16×16")) << e.message;
  eval_ok("collective", gather("tpu-v5p", {4, 4, 4}));
}

TEST(Topology, CollectiveAxisLongerThanThePodIsRefused) {
  auto e = eval_refused("collective", gather("tpu-v5e", {32}), "axes");
  EXPECT_TRUE(contains(e.message, "DCN")) << e.message;
}

// The book's chip-free ring questions: no chip named and the link given, so the axis is the
// reader's own ring (it wraps unless told not), not a slice of the default chip's pod.
TEST(Topology, CollectiveOnTheReadersOwnRingHasNoPod) {
  json ring = {{"op", "all_gather"}, {"bytes", 1e8}, {"axes", {42}}, {"link_bytes_per_s", 4.5e10}};
  json r = eval_ok("collective", ring);
  EXPECT_EQ(r["outputs"]["wraparound"], json::array({true}));
  EXPECT_EQ(r["outputs"]["group_size"], 42);
  EXPECT_TRUE(r["warnings"].empty()) << r["warnings"].dump();
  ring["wraparound"] = false;
  EXPECT_EQ(eval_ok("collective", ring)["outputs"]["hops"], 41);
  ring.erase("axes");
  auto e = eval_refused("collective", ring, "axes");
  EXPECT_TRUE(contains(e.message, "no chip is named")) << e.message;
  ring["axes"] = {42};
  ring["chip"] = "tpu-v5e";  // a named chip's pod still limits its axes
  eval_refused("collective", ring, "axes");
}

// sharding.md: T = max(T_min·Σ|X_i|/2, V/(W·N_axes)). The chunk below which the collective is
// latency-bound is where those two terms meet, whatever the axes: an array of N such chunks takes
// as long in hops as in bandwidth, and the regime turns there. On one wrapped ring it is the
// book's per-hop 45 kB on TPU v5e (4.5e10 × 1 µs); on the 16×16 slice the hops add (16 µs) while
// the bandwidths add too (180 GB/s), so it is 2.88 MB / 256 = 11.25 kB, not 45 kB.
TEST(Topology, CollectiveLatencyThresholdIsWhereItsTwoTermsMeet) {
  EXPECT_NEAR(eval_ok("collective", gather("tpu-v5e", {16}))["outputs"]["latency_bound_below_bytes"].get<double>(), 45e3, 1e-6);
  json slice = eval_ok("collective", {{"chip", "tpu-v5e"}});
  EXPECT_NEAR(slice["outputs"]["latency_bound_below_bytes"].get<double>(), 11250, 1e-6);
  for (json in : {json{{"chip", "tpu-v5e"}}, json{{"chip", "tpu-v5e"}, {"op", "all_reduce"}},
                  json{{"chip", "tpu-v5p"}, {"axes", {4, 4, 8}}, {"op", "all_to_all"}},
                  json{{"chip", "tpu-v5e"}, {"axes", {4, 8}}},
                  json{{"chip", "h100"}, {"hop_latency_s", 2e-6}, {"op", "all_reduce"}}}) {
    json r = eval_ok("collective", in);
    double b = r["outputs"]["latency_bound_below_bytes"].get<double>();
    double n = r["outputs"]["group_size"].get<double>();
    in["bytes"] = b * n;
    json at = eval_ok("collective", in);
    EXPECT_NEAR(at["outputs"]["t_latency_s"].get<double>(), at["outputs"]["t_bandwidth_s"].get<double>(),
                1e-9 * at["outputs"]["t_latency_s"].get<double>()) << in.dump();
    in["bytes"] = 0.9 * b * n;
    EXPECT_EQ(eval_ok("collective", in)["outputs"]["regime"], "latency") << in.dump();
    in["bytes"] = 1.1 * b * n;
    EXPECT_EQ(eval_ok("collective", in)["outputs"]["regime"], "bandwidth") << in.dump();
  }
  // no hop latency priced (a GPU fabric's default): no size is latency-bound, and no threshold is given
  EXPECT_TRUE(eval_ok("collective", {{"chip", "h100"}})["outputs"]["latency_bound_below_bytes"].is_null());
}

TEST(Topology, ChipWithoutAWraparoundRuleSaysItAssumesOne) {
  json r = eval_ok("collective", gather("tpu-v3", {4}));
  EXPECT_TRUE(warned(r, "no wraparound rule for TPU v3")) << r["warnings"].dump();
}

// ---- transfer ----

TEST(Topology, TransferSixLinksOnV5eIsRefused) {
  json in = {{"chip", "tpu-v5e"}, {"path", "ici"}, {"bytes", 1e9}, {"links", 6}};
  auto e = eval_refused("transfer", in, "links");
  EXPECT_TRUE(contains(e.message, "must be 1–4")) << e.message;
  EXPECT_TRUE(contains(e.message, "4 ICI links per chip")) << e.message;
  in["links"] = 4;
  eval_ok("transfer", in);
  in["chip"] = "tpu-v5p";
  in["links"] = 6;
  eval_ok("transfer", in);
}

TEST(Topology, TransferLinksFollowChipOverrides) {
  json in = {{"chip", "tpu-v5e"}, {"chip_overrides", {{"ici_links", 6}}}, {"path", "ici"}, {"bytes", 1e9},
             {"links", 6}};
  eval_ok("transfer", in);
}

TEST(Topology, RooflineSixLinksOnV5eIsRefused) {
  json in = {{"chip", "tpu-v5e"}, {"bandwidth", "ici"}, {"links", 6}, {"flops", 1e12}, {"bytes", 1e9}};
  auto e = eval_refused("roofline", in, "links");
  EXPECT_TRUE(contains(e.message, "must be 1–4")) << e.message;
}

// ---- sharded_matmul ----

json matmul(const std::string& chip, const json& mesh) {
  return {{"chip", chip}, {"spec", "A[I, J_X] * B[J, K] -> C[I, K]"},
          {"dims", {{"I", 1024}, {"J", 8192}, {"K", 32768}}}, {"mesh", mesh}};
}

TEST(Topology, ShardedMatmulV5eThreeAxisMeshIsRefused) {
  auto e = eval_refused("sharded_matmul", matmul("tpu-v5e", {{"X", 4}, {"Y", 4}, {"Z", 4}}), "mesh");
  EXPECT_TRUE(contains(e.message, "2 axes")) << e.message;
  eval_ok("sharded_matmul", matmul("tpu-v5p", {{"X", 4}, {"Y", 4}, {"Z", 4}}));
}

TEST(Topology, ShardedMatmulPricesTheV5eFourRingWithoutWraparound) {
  json r = eval_ok("sharded_matmul", matmul("tpu-v5e", {{"X", 4}}));
  EXPECT_TRUE(warned(r, "has no wraparound on TPU v5e")) << r["warnings"].dump();
  const json& c = r["outputs"]["collectives"][0];
  json same = {{"chip", "tpu-v5e"}, {"op", "all_gather"}, {"bytes", c["bytes"]}, {"axes", {4}},
               {"wraparound", false}};
  EXPECT_DOUBLE_EQ(c["t_s"].get<double>(), eval_ok("collective", same)["outputs"]["t_s"].get<double>());
  json wrapped = eval_ok("sharded_matmul", matmul("tpu-v5e", {{"X", 16}}));
  EXPECT_FALSE(warned(wrapped, "has no wraparound")) << wrapped["warnings"].dump();
  // the calculator's default on v5p is case 1: no collective, so no ring and no wraparound to warn about
  json none = eval_ok("sharded_matmul", {{"chip", "tpu-v5p"}});
  EXPECT_FALSE(warned(none, "wraparound")) << none["warnings"].dump();
  // a reduction over both axes of its 4 × 2 mesh: both lack wraparound; the axis of two is named too
  json both = eval_ok("sharded_matmul", {{"chip", "tpu-v5p"}, {"spec", "A[I, J_XY] * B[J_XY, K] -> C[I, K]"}});
  EXPECT_TRUE(warned(both, "Mesh axis X (4 chips) has no wraparound")) << both["warnings"].dump();
  EXPECT_TRUE(warned(both, "Mesh axis Y (2 chips) has no wraparound either")) << both["warnings"].dump();
}

// ---- training_comm ----

TEST(Topology, TrainingCommRefusesMorePodsThanIciReaches) {
  json in = {{"chip", "tpu-v5e"}, {"chips", 8960}, {"model", "llama3-70b"}};
  auto e = eval_refused("training_comm", in, "chips");
  EXPECT_TRUE(contains(e.message, "35 pods of 256")) << e.message;
  EXPECT_TRUE(contains(e.message, "dcn_dp")) << e.message;
  in["chips"] = 256;
  eval_ok("training_comm", in);
  json three = {{"chip", "tpu-v5e"}, {"chips", 256}, {"model", "llama3-70b"}, {"axes_fsdp", 3}};
  eval_refused("training_comm", three, "axes_fsdp");
}

// The book's FSDP spans M_X torus axes; one axis of a v5e pod holds 16 chips, so 256-way FSDP
// spans two by default and is refused over one.
TEST(Topology, TrainingCommFsdpSpansTheAxesThatHoldIt) {
  json fsdp = {{"chip", "tpu-v5e"}, {"model", "llama3-70b"}, {"strategy", "fsdp"}, {"chips", 256}};
  json two = eval_ok("training_comm", fsdp)["outputs"];
  EXPECT_EQ(two["axes_fsdp"], 2);
  fsdp["axes_fsdp"] = 2;
  EXPECT_EQ(eval_ok("training_comm", fsdp)["outputs"]["critical_batch_tokens"], two["critical_batch_tokens"]);
  fsdp["axes_fsdp"] = 1;
  auto e = eval_refused("training_comm", fsdp, "axes_fsdp");
  EXPECT_TRUE(contains(e.message, "at most 16 chips")) << e.message;
  EXPECT_TRUE(contains(e.message, "give 2 axes")) << e.message;
  fsdp["chips"] = 16;  // one axis holds 16
  EXPECT_EQ(eval_ok("training_comm", fsdp)["outputs"]["axes_fsdp"], 1);
  json tp = {{"chip", "tpu-v5e"}, {"model", "llama3-70b"}, {"strategy", "tp"}, {"tp", 32}, {"axes_tp", 1}};
  eval_refused("training_comm", tp, "axes_tp");
  json gpu = {{"chip", "h100"}, {"model", "llama3-70b"}, {"strategy", "fsdp"}, {"chips", 256}};
  EXPECT_TRUE(eval_ok("training_comm", gpu)["outputs"]["axes_fsdp"].is_null());
}

// FSDP × TP: the TP group takes the fewest axes that hold it, FSDP the rest of what the slice
// needs, and the pair must fit the axes they span together. The book's 1,024-way FSDP × 8-way
// TP on v5p spans 2 + 1 axes (FSDP also uses the half of TP's axis that TP leaves).
TEST(Topology, TrainingCommFsdpTpSpansAxesTogether) {
  json book = {{"chip", "tpu-v5p"}, {"model", "llama3-70b"}, {"strategy", "fsdp_tp"},
               {"chips", 8192}, {"fsdp", 1024}, {"tp", 8}};
  json out = eval_ok("training_comm", book)["outputs"];
  EXPECT_EQ(out["axes_fsdp"], 2);
  EXPECT_EQ(out["axes_tp"], 1);
  json optimum = {{"chip", "tpu-v5p"}, {"model", "llama3-70b"}, {"strategy", "fsdp_tp"}, {"chips", 8960}};
  out = eval_ok("training_comm", optimum)["outputs"];
  EXPECT_EQ(out["axes_fsdp"], 2);  // the book's M_X M_Y = 2 on a 3D pod
  EXPECT_EQ(out["axes_tp"], 1);
  book["axes_fsdp"] = 1;  // 1 + 1 axes of 16×20×28 hold 28 × 20 = 560 chips, not 8,192
  auto e = eval_refused("training_comm", book, "axes_fsdp");
  EXPECT_TRUE(contains(e.message, "at most 560 chips together")) << e.message;
  EXPECT_TRUE(contains(e.message, "give them 3 axes between them")) << e.message;
  book["axes_fsdp"] = 3;  // 3 + 1 axes: more than the torus has
  eval_refused("training_comm", book, "axes_fsdp");
  json v5e = {{"chip", "tpu-v5e"}, {"model", "llama3-70b"}, {"strategy", "fsdp_tp"}, {"fsdp", 16}, {"tp", 16}};
  out = eval_ok("training_comm", v5e)["outputs"];
  EXPECT_EQ(out["axes_fsdp"], 1);
  EXPECT_EQ(out["axes_tp"], 1);
  v5e["axes_tp"] = 2;  // 1 + 2 axes of a 2-axis torus
  e = eval_refused("training_comm", v5e, "axes_tp");
  EXPECT_TRUE(contains(e.message, "2 axes of TPU v5e")) << e.message;
  json gpu = {{"chip", "h100"}, {"model", "llama3-70b"}, {"strategy", "fsdp_tp"}, {"fsdp", 2}, {"tp", 4}};
  EXPECT_TRUE(eval_ok("training_comm", gpu)["outputs"]["axes_fsdp"].is_null());
}

TEST(Topology, TrainingCommRefusesNvlinkBeyondTheDomain) {
  json in = {{"chip", "h100"}, {"chips", 16}, {"model", "llama3-70b"}, {"fabric", "nvlink"}};
  auto e = eval_refused("training_comm", in, "fabric");
  EXPECT_TRUE(contains(e.message, "8 GPUs of one H100 NVLink domain")) << e.message;
  in["fabric"] = "ib_fat_tree";
  eval_ok("training_comm", in);
  in["chips"] = 72;
  in["chip"] = "gb200";
  in["fabric"] = "nvlink";
  eval_ok("training_comm", in);
}

// ---- training_run ----

TEST(Topology, TrainingRunOn8960V5eChipsWarnsAndPricesDcn) {
  json in = {{"chip", "tpu-v5e"}, {"chips", 8960}, {"model", "llama3-70b"}, {"tokens", 15e12},
             {"batch_tokens", 4e6}};
  json r = eval_ok("training_run", in);
  EXPECT_TRUE(warned(r, "35 pods joined by DCN")) << r["warnings"].dump();
  const json& o = r["outputs"];
  EXPECT_EQ(o["recommended"]["dcn_dp"].get<double>(), 35);
  ASSERT_FALSE(o["layouts"].empty());
  double dcn = 3.125e9, pod = 256, chips = 8960, params = o["params"].get<double>();
  for (const auto& l : o["layouts"]) {
    EXPECT_LE(l["tp"].get<double>() * l["pp"].get<double>(), pod) << l.dump();
    bool fsdp_crosses = l["fsdp"].get<double>() * l["tp"].get<double>() * l["pp"].get<double>() > pod;
    double unit = (1 - pod / chips) * 2 * params / (pod * dcn);  // bf16 weights
    EXPECT_NEAR(l["t_dcn_s"].get<double>(), (fsdp_crosses ? 3 : 2) * unit, 1e-9 * unit) << l.dump();
  }
  EXPECT_GT(o["rejected_counts"].value("model_parallel_beyond_pod", 0.0), 0);
}

TEST(Topology, TrainingRunInsideOnePodHasNoDcnTerm) {
  json in = {{"chip", "tpu-v5p"}, {"chips", 8960}, {"model", "llama3-70b"}, {"tokens", 15e12},
             {"batch_tokens", 4e6}};
  json r = eval_ok("training_run", in);
  EXPECT_FALSE(warned(r, "pods joined by")) << r["warnings"].dump();
  EXPECT_FALSE(r["outputs"]["recommended"].contains("dcn_dp"));
  for (const auto& l : r["outputs"]["layouts"]) EXPECT_EQ(l["t_dcn_s"].get<double>(), 0);
}

// ---- decode and serving ----

TEST(Topology, DecodeAndServingRefuseAThirdModelAxisOnV5e) {
  for (const char* calc : {"decode", "serving"}) {
    json in = {{"chip", "tpu-v5e"}, {"chips", 64}, {"axes_tp", 3}, {"model", "llama3-70b"}};
    auto e = eval_refused(calc, in, "axes_tp");
    EXPECT_TRUE(contains(e.message, "must be 1–2")) << e.message;
    in["chip"] = "tpu-v5p";
    eval_ok(calc, in);
  }
}

TEST(Topology, DecodeAndServingBeyondAPodArePricedOverDcn) {
  for (const char* calc : {"decode", "serving"}) {
    json in = {{"chip", "tpu-v5e"}, {"chips", 512}, {"model", "llama3-70b"}};
    json r = eval_ok(calc, in);
    EXPECT_TRUE(warned(r, "2 pods joined by DCN")) << calc << r["warnings"].dump();
  }
  json in = {{"chip", "tpu-v5e"}, {"chips", 512}, {"model", "llama3-70b"}, {"batch", 32}};
  json beyond = eval_ok("decode", in);
  in["chip_overrides"] = {{"pod_chips", 1024}, {"pod_shape", {32, 32}}, {"ici_link_bytes_per_s", 3.125e9 / 2}};
  json as_dcn = eval_ok("decode", in);  // an ICI torus whose bidirectional axis equals the DCN rate
  EXPECT_DOUBLE_EQ(beyond["outputs"]["mlp_t_comm_s"].get<double>(), as_dcn["outputs"]["mlp_t_comm_s"].get<double>());
}

// ---- chip: typed figures and topology facts ----

TEST(Topology, ChipPublishesItsTopology) {
  json v5e = eval_ok("chip", {{"chip", "tpu-v5e"}})["outputs"]["topology"];
  EXPECT_EQ(v5e["pod_shape"], json::array({16, 16}));
  EXPECT_EQ(v5e["pod_axes"].get<double>(), 2);
  EXPECT_EQ(v5e["ici_links"].get<double>(), 4);
  EXPECT_EQ(v5e["wrap_axis_multiple"].get<double>(), 16);
  EXPECT_EQ(v5e["beyond_pod"], "dcn");
  EXPECT_TRUE(contains(v5e["wraparound_rule"].get<std::string>(), "16 chips"));
  json v5p = eval_ok("chip", {{"chip", "tpu-v5p"}})["outputs"]["topology"];
  EXPECT_TRUE(contains(v5p["wraparound_rule"].get<std::string>(), "4×4×4 cubes"));
  json gb200 = eval_ok("chip", {{"chip", "gb200"}})["outputs"]["topology"];
  EXPECT_EQ(gb200["nvlink_domain_gpus"].get<double>(), 72);
  EXPECT_EQ(gb200["beyond_pod"], "infiniband");
  EXPECT_TRUE(gb200["wraparound_rule"].is_null());
  json listed = json::parse(scalelab::chips_json());
  for (const auto& c : listed) EXPECT_TRUE(c.contains("topology")) << c["id"];
}

// As the web's chip dialog stores a copy: nulls dropped.
json without_nulls(const json& o) {
  json out = json::object();
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (!it->is_null()) out[it.key()] = it->is_object() ? without_nulls(*it) : *it;
  }
  return out;
}

TEST(Topology, ListedChipCopiedAsACustomChipIsAccepted) {
  json v5e;
  for (const auto& c : json::parse(scalelab::chips_json())) {
    if (c["id"] == "tpu-v5e") v5e = without_nulls(c);
  }
  v5e.erase("id");
  v5e["ici_links"] = 6;  // the copy's own fields decide, not the listed topology
  json r = eval_ok("chip", {{"chip", v5e}});
  EXPECT_EQ(r["outputs"]["topology"]["ici_links"].get<double>(), 6);
  eval_ok("transfer", {{"chip", v5e}, {"path", "ici"}, {"links", 6}});
}

TEST(Topology, MissingFigureIsNamedInWordsWithTheReason) {
  auto e = eval_refused("transfer", {{"chip", "tpu-v5e"}, {"path", "nvlink"}}, "chip");
  EXPECT_TRUE(contains(e.message, "TPU v5e")) << e.message;
  EXPECT_TRUE(contains(e.message, "NVLink egress per GPU")) << e.message;
  EXPECT_TRUE(contains(e.message, "(chip_overrides.nvlink_bytes_per_s)")) << e.message;
  EXPECT_TRUE(contains(e.message, "moves bytes at this bandwidth")) << e.message;
}

TEST(Topology, ChipKindsOldAndNew) {
  json base = eval_ok("chip", {{"chip", "h100"}})["outputs"];
  EXPECT_EQ(base["kind"], "datacenter-gpu");
  json custom = {{"name", "Old GPU"}, {"kind", "gpu"}, {"nvlink_bytes_per_s", 4.5e11}, {"node_gpus", 8},
                 {"flops_per_s", {{"bf16", 1e15}}}, {"hbm_bytes_per_s", 3e12}};
  json r = eval_ok("collective", {{"chip", custom}, {"op", "all_gather"}, {"bytes", 1e9}});
  EXPECT_EQ(r["outputs"]["fabric"], "nvlink");  // "gpu" still means a datacenter GPU
  json rtx = {{"name", "Desk GPU"}, {"kind", "consumer-gpu"}, {"flops_per_s", {{"bf16", 1e14}}},
              {"hbm_bytes_per_s", 1e12}};
  auto e = eval_refused("collective", {{"chip", rtx}, {"op", "all_gather"}, {"bytes", 1e9}}, "chip");
  EXPECT_TRUE(contains(e.message, "Desk GPU has no")) << e.message;
  for (const char* kind : {"tpu", "datacenter-gpu", "workstation-gpu", "consumer-gpu", "unified-memory", "cpu"}) {
    json chip = {{"name", "x"}, {"kind", kind}, {"hbm_bytes_per_s", 1e12}, {"flops_per_s", {{"bf16", 1e14}}}};
    EXPECT_EQ(eval_ok("chip", {{"chip", chip}})["outputs"]["topology"]["kind"], kind);
  }
}

TEST(Topology, TypedChipReadsEveryCatalogFigure) {
  for (const auto& entry : json::parse(scalelab::chips_json())) {
    scalelab::Chip chip(entry);
    EXPECT_EQ(chip.id(), entry["id"].get<std::string>());
    auto same = [&](const scalelab::Chip::Figure& f, const char* key) {
      if (entry.contains(key) && entry[key].is_number()) {
        EXPECT_EQ(f, entry[key].get<double>()) << chip.id() << " " << key;
      } else {
        EXPECT_FALSE(f.has_value()) << chip.id() << " " << key;
      }
    };
    same(chip.hbm_bytes, "hbm_bytes");
    same(chip.ici_links, "ici_links");
    same(chip.node_gpus, "node_gpus");
    same(chip.dcn_bytes_per_s, "dcn_bytes_per_s");
    same(chip.wrap_axis_multiple, "wrap_axis_multiple");
    EXPECT_EQ(chip.is_tpu(), entry["kind"] == "tpu") << chip.id();
  }
}

}  // namespace
