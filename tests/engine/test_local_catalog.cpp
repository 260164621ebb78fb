// The local-hardware part of the catalogs: every weight format carries its bits and a source,
// and decode reads exactly those bits; every non-TPU, non-book device and every model names
// where its numbers come from; each kind of device the local calculator knows is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "catalog/catalog.hpp"  // engine/src: the format table
#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::testing::json;

json model_entry(const std::string& id);  // the catalog's entry of a model (below)

TEST(Formats, EveryFormatHasBitsUsesAndASource) {
  const auto& formats = scalelab::format_catalog();
  ASSERT_GE(formats.size(), 16u);
  for (const auto& f : formats) {
    std::string id = f.at("id");
    EXPECT_GT(f.at("bits").get<double>(), 0) << id;
    EXPECT_FALSE(f.at("source").get<std::string>().empty()) << id;
    EXPECT_FALSE(f.at("uses").empty()) << id;
    EXPECT_DOUBLE_EQ(scalelab::format_bits(id), f.at("bits").get<double>()) << id;
  }
  for (const char* kv : {"fp16", "q8_0", "q4_0"}) {
    const auto& names = scalelab::kv_format_names();
    EXPECT_NE(std::find(names.begin(), names.end(), kv), names.end()) << kv << " is a KV-cache format";
  }
}

TEST(Formats, DecodeReadsTheFormatsBits) {
  for (const std::string& id : scalelab::weight_format_names()) {
    json in = {{"chip", "rtx-4090"}, {"model", "llama3.1-8b"}, {"chips", 1}, {"batch", 1}, {"weight_dtype", id}};
    scalelab::Evaluation e = scalelab::evaluate("decode", in.dump());
    ASSERT_EQ(e.status, scalelab::Status::ok) << id << ": " << e.message;
    json out = json::parse(e.json)["outputs"];
    EXPECT_NEAR(out["weight_bytes"].get<double>(), 8030257152.0 * scalelab::format_bits(id) / 8, 1) << id;
  }
}

TEST(LocalCatalog, DevicesAndModelsNameTheirSources) {
  json chips = json::parse(scalelab::chips_json());
  std::set<std::string> kinds;
  for (const auto& c : chips) {
    std::string kind = c.value("kind", "");
    kinds.insert(kind);
    if (kind == "tpu") continue;  // the book's TPUs: sourced from the book, checked in test_catalog
    ASSERT_TRUE(c.contains("sources") && c["sources"].contains("source")) << c["id"];
    // The book gives the H800 no memory figures (its chip table lists only its NVLink cut).
    if (c["id"] == "h800") continue;
    EXPECT_GT(c["hbm_bytes"].get<double>(), 0) << c["id"];
    EXPECT_GT(c["hbm_bytes_per_s"].get<double>(), 0) << c["id"];
    if (kind == "unified-memory") {
      EXPECT_TRUE(c.contains("gpu_memory_share") && c["sources"].contains("gpu_memory_share")) << c["id"];
    }
  }
  for (const char* kind : {"consumer-gpu", "workstation-gpu", "datacenter-gpu", "unified-memory", "cpu"}) {
    EXPECT_TRUE(kinds.count(kind)) << kind;
  }
  for (const auto& m : json::parse(scalelab::models_json())) EXPECT_FALSE(m.value("source", "").empty()) << m["id"];
}

// Every chip's memory kind is spelled one way, as the memory makers (and JEDEC) write it: HBM3E,
// HBM2E, LPDDR5X (never HBM3e beside HBM3E), and has a source.
TEST(LocalCatalog, MemoryKindsAreSpelledOneWayAndSourced) {
  const std::regex spelling("(HBM[0-9]?E?|GDDR[0-9]X?|LPDDR[0-9]X?|DDR[0-9])");
  int kinds = 0;
  for (const auto& c : json::parse(scalelab::chips_json())) {
    if (!c.contains("memory_kind")) continue;
    ++kinds;
    std::string kind = c["memory_kind"];
    EXPECT_TRUE(std::regex_match(kind, spelling)) << c["id"] << ": " << kind;
    EXPECT_TRUE(c["sources"].contains("memory_kind")) << c["id"];
  }
  EXPECT_GE(kinds, 60);
}

// The chip's memory in a reader's words (Chip::memory_name) and as the ladder's rung, from the
// catalog's memory kind: HBM on TPUs and datacenter GPUs, the card's, the Mac's and the CPU's own.
TEST(LocalCatalog, TheChipNamesItsMemory) {
  struct Case { const char* chip; const char* name; const char* rung; };
  for (const Case& c : {Case{"tpu-v5e", "HBM", "HBM (off-chip memory)"}, Case{"h100", "HBM", "HBM (off-chip memory)"},
                        Case{"rtx-4090", "GDDR6X memory", "GDDR6X memory"},
                        Case{"apple-m2-max", "unified LPDDR5 memory", "unified LPDDR5 memory"},
                        Case{"desktop-ddr5", "DDR5 system RAM", "DDR5 system RAM"}}) {
    scalelab::Evaluation e = scalelab::evaluate("chip", json{{"chip", c.chip}}.dump());
    ASSERT_EQ(e.status, scalelab::Status::ok) << c.chip << ": " << e.message;
    json out = json::parse(e.json)["outputs"];
    EXPECT_EQ(out["memory_name"], c.name) << c.chip;
    EXPECT_EQ(out["memory_rung"], c.rung) << c.chip;
  }
}

// Issue 34: the engine's own messages about the chip's memory say that memory, not "HBM": decode of
// a 70B model on one RTX 4090 names its GDDR6X; on an H100 the book's HBM; one sweep over both
// chips' points keeps each its own words.
TEST(LocalCatalog, DecodeWarningsNameTheChipsMemory) {
  auto warnings = [](const char* chip) {
    json in = {{"chip", chip}, {"model", "llama3-70b"}, {"chips", 1}, {"batch", 1}};
    scalelab::Evaluation e = scalelab::evaluate("decode", in.dump());
    EXPECT_EQ(e.status, scalelab::Status::ok) << chip << ": " << e.message;
    return json::parse(e.json)["warnings"].dump();
  };
  std::string card = warnings("rtx-4090"), h100 = warnings("h100");
  // a card is one of the reader's own devices: "device", not "chip", and no slice
  EXPECT_NE(card.find("exceed the GDDR6X memory of 1 device (25.8 GB): they need at least 6 devices"), std::string::npos) << card;
  EXPECT_EQ(card.find("HBM"), std::string::npos) << card;
  EXPECT_NE(h100.find("exceed the HBM of 1 chip (80 GB)"), std::string::npos) << h100;
  json fits = {{"chip", "rtx-4090"}, {"model", "llama3.1-8b"}, {"chips", 1}, {"batch", 4096}, {"context", 8192}};
  scalelab::Evaluation e = scalelab::evaluate("decode", fits.dump());
  ASSERT_EQ(e.status, scalelab::Status::ok) << e.message;
  std::string text = json::parse(e.json)["warnings"].dump();
  EXPECT_NE(text.find("of GDDR6X memory on 1 device"), std::string::npos) << text;
  EXPECT_EQ(text.find("slice"), std::string::npos) << text;
  // on a TPU the book's slice, with its article: "an 8-chip slice"
  scalelab::Evaluation tpu = scalelab::evaluate("decode", json{{"chip", "tpu-v5e"}, {"model", "llama3-8b"}, {"chips", 4}, {"batch", 100}}.dump());
  std::string slice = json::parse(tpu.json)["warnings"].dump();
  EXPECT_NE(slice.find("This batch needs 8 chips (an 8-chip slice)"), std::string::npos) << slice;
  // The overflow is said in words, on any chip (no output identifier in the message).
  EXPECT_EQ(card.find("free_hbm_bytes"), std::string::npos) << card;
  EXPECT_NE(h100.find("They overflow it by"), std::string::npos) << h100;
}

// Issue 34: decode's fit steps name the chip's memory: "HBM of the slice" on a TPU or an H100, the
// card's GDDR6X (symbol "mem") on an RTX 4090, the Mac's unified memory; the chip calculator's
// critical-intensity step too. Each step still evaluates to the value beside it.
TEST(LocalCatalog, DecodeStepsNameTheChipsMemory) {
  auto steps = [](const char* calc, const json& in) {
    scalelab::Evaluation e = scalelab::evaluate(calc, in.dump());
    EXPECT_EQ(e.status, scalelab::Status::ok) << in.dump() << ": " << e.message;
    return json::parse(e.json)["steps"];
  };
  auto labels = [](const json& list) {
    std::string all;
    for (const auto& s : list) all += s["label"].get<std::string>() + "\n";
    return all;
  };
  auto step = [](const json& list, const std::string& label) {
    for (const auto& s : list) {
      if (s["label"] == label) return s;
    }
    ADD_FAILURE() << "no step " << label;
    return json::object();
  };
  json card = steps("decode", {{"chip", "rtx-4090"}, {"model", "llama3.1-8b"}, {"chips", 2}});
  json h100 = steps("decode", {{"chip", "h100"}, {"model", "llama3.1-8b"}});
  json mac = steps("decode", {{"chip", "apple-m2-max"}, {"model", "llama3.1-8b"}});
  EXPECT_EQ(labels(card).find("HBM"), std::string::npos) << labels(card);
  json all = step(card, "GDDR6X memory of the devices together");
  EXPECT_NE(all["formula"].get<std::string>().find("\\text{mem}"), std::string::npos) << all.dump();
  json chip = json::parse(scalelab::evaluate("chip", json{{"chip", "rtx-4090"}}.dump()).json)["outputs"];
  EXPECT_DOUBLE_EQ(all["value"].get<double>(), 2 * chip["hbm_bytes"].get<double>());
  json left = step(card, "GDDR6X memory left for KV caches");
  json weights = step(card, "Weight bytes");
  EXPECT_DOUBLE_EQ(left["value"].get<double>(), all["value"].get<double>() - weights["value"].get<double>());
  step(card, "GDDR6X memory bandwidth of the devices together");
  step(mac, "Unified LPDDR5 memory of the devices together");
  EXPECT_NE(step(h100, "HBM of the slice")["formula"].get<std::string>().find("\\text{HBM}_{slice}"), std::string::npos);
  step(h100, "HBM left for KV caches");
  step(steps("chip", {{"chip", "rtx-4090"}}), "Critical arithmetic intensity (GDDR6X memory)");
  step(steps("chip", {{"chip", "tpu-v5e"}}), "Critical arithmetic intensity (HBM)");
}

// Issue 34: several consumer cards without NVLink reach each other over PCIe: decode prices the
// tensor-parallel collectives at each card's PCIe link (one way), T_comm = 2 L · 2 b_a B D / (M W);
// a Mac has no such link, and says so in words.
TEST(LocalCatalog, CardsWithoutNVLinkTalkOverPCIe) {
  json in = {{"chip", "rtx-4090"}, {"model", "llama3.1-8b"}, {"chips", 2}, {"batch", 8}};
  scalelab::Evaluation e = scalelab::evaluate("decode", in.dump());
  ASSERT_EQ(e.status, scalelab::Status::ok) << e.message;
  json out = json::parse(e.json);
  json chip = json::parse(scalelab::evaluate("chip", json{{"chip", "rtx-4090"}}.dump()).json)["outputs"];
  json model = model_entry("llama3.1-8b");
  double W = chip["pcie_bytes_per_s"].get<double>(), L = model["L"].get<double>(), D = model["D"].get<double>();
  double mlp = 2 * 2.0 * 8 * D / (1 * W);
  ASSERT_TRUE(out["outputs"]["t_comm_s"].is_number()) << out["warnings"].dump();
  EXPECT_NEAR(out["outputs"]["t_comm_s"].get<double>(), 2 * L * mlp, 1e-12 * 2 * L * mlp);
  bool named = false;
  for (const auto& s : out["steps"]) {
    if (s["label"].get<std::string>().find("over PCIe") != std::string::npos) named = true;
  }
  EXPECT_TRUE(named) << "a step names PCIe";
  EXPECT_EQ(out["warnings"].dump().find("not timed"), std::string::npos) << out["warnings"].dump();
  // An NVLink pair stays on NVLink; a third RTX 3090 is past the bridge and goes over PCIe.
  json pair = json::parse(scalelab::evaluate("decode", json{{"chip", "rtx-3090"}, {"model", "llama3.1-8b"}, {"chips", 2}}.dump()).json);
  json three = json::parse(scalelab::evaluate("decode", json{{"chip", "rtx-3090"}, {"model", "llama3.1-8b"}, {"chips", 4}}.dump()).json);
  EXPECT_NE(pair["steps"].dump().find("over NVLink"), std::string::npos);
  EXPECT_NE(three["steps"].dump().find("over PCIe"), std::string::npos);
  json mac = json::parse(scalelab::evaluate("decode", json{{"chip", "apple-m2-max"}, {"model", "llama3.1-8b"}, {"chips", 2}}.dump()).json);
  EXPECT_TRUE(mac["outputs"]["t_comm_s"].is_null());
  EXPECT_NE(mac["warnings"].dump().find("has no link between chips that this prices"), std::string::npos) << mac["warnings"].dump();
  EXPECT_EQ(mac["warnings"].dump().find("null"), std::string::npos) << mac["warnings"].dump();
}

// Issue 34: decode, serving and prefill split the model over the book's 16-chip slice on a TPU or a
// datacenter GPU, and over one device on a reader's own (no link between two is priced there); the
// schema gives the default per kind of chip, and the inputs echo the count used.
TEST(LocalCatalog, ServedModelsDefaultToOneOwnDevice) {
  json schema = json::parse(scalelab::calculators_json());
  for (const char* calc : {"decode", "serving", "prefill"}) {
    json chips;
    for (const auto& c : schema["calculators"]) {
      if (c["name"] != calc) continue;
      for (const auto& p : c["params"]) {
        if (p["name"] == "chips") chips = p;
      }
    }
    ASSERT_TRUE(chips.is_object()) << calc;
    EXPECT_TRUE(chips["default"].is_null()) << calc;
    const json& by_kind = chips["default_by_chip_kind"];
    EXPECT_EQ(by_kind.size(), 6u) << calc;
    struct Case { json chip; double chips; };
    json card = {{"id", "my-card"}, {"name", "My card"}, {"kind", "consumer-gpu"}, {"hbm_bytes", 24e9},
                 {"hbm_bytes_per_s", 1e12}, {"flops_per_s", {{"bf16", 1e14}}}};
    for (const Case& c : {Case{"tpu-v5e", 16}, Case{"h100", 16}, Case{"l4", 16}, Case{"rtx-4090", 1},
                          Case{"rtx-a6000", 1}, Case{"apple-m2-max", 1}, Case{"desktop-ddr5", 1}, Case{card, 1}}) {
      json in = {{"chip", c.chip}, {"model", "llama3.1-8b"}};
      scalelab::Evaluation e = scalelab::evaluate(calc, in.dump());
      ASSERT_EQ(e.status, scalelab::Status::ok) << calc << " " << c.chip.dump() << ": " << e.message;
      json out = json::parse(e.json);
      EXPECT_EQ(out["inputs"]["chips"], c.chips) << calc << " " << c.chip.dump();
      json chip = scalelab::testing::json::parse(scalelab::evaluate("chip", json{{"chip", c.chip}}.dump()).json);
      EXPECT_EQ(by_kind[chip["outputs"]["kind"].get<std::string>()], c.chips) << calc << " " << c.chip.dump();
      EXPECT_EQ(out["warnings"].dump().find("comms figures"), std::string::npos) << calc << " " << out["warnings"].dump();
    }
    // A count given is the count used, on any chip.
    json four = {{"chip", "rtx-4090"}, {"model", "llama3.1-8b"}, {"chips", 4}};
    EXPECT_EQ(json::parse(scalelab::evaluate(calc, four.dump()).json)["inputs"]["chips"], 4) << calc;
  }
  // Bad input still names the parameter and its range.
  scalelab::Evaluation bad = scalelab::evaluate("decode", json{{"chip", "rtx-4090"}, {"chips", 0}}.dump());
  EXPECT_EQ(bad.status, scalelab::Status::bad_input);
  EXPECT_NE(bad.message.find("chips"), std::string::npos) << bad.message;
}

json local(json in) {
  scalelab::Evaluation e = scalelab::evaluate("local_inference", in.dump());
  EXPECT_EQ(e.status, scalelab::Status::ok) << in.dump() << ": " << e.message;
  return e.status == scalelab::Status::ok ? json::parse(e.json)["outputs"] : json::object();
}

json model_entry(const std::string& id) {
  for (const auto& m : json::parse(scalelab::models_json())) {
    if (m["id"] == id) return m;
  }
  ADD_FAILURE() << id << " is not in the catalog";
  return json::object();
}

// Issue 35: no catalog model is refused by local_inference, decode or serving on their defaults
// (latent attention, sliding windows and MoE included).
// Each on the calculator's defaults and on one chip of every kind (the catalog's first of the kind:
// TPU v3, V100, RTX A6000, RTX 3060 12 GB, DGX Spark, a DDR5 desktop): a model too big for the chip
// is a result that says fits false, never a refusal.
TEST(LocalInference, EveryCatalogModelEvaluates) {
  std::map<std::string, std::string> first_of_kind;
  for (const auto& c : json::parse(scalelab::chips_json())) first_of_kind.emplace(c["kind"], c["id"]);
  EXPECT_EQ(first_of_kind.size(), 6u);
  std::size_t evaluated = 0, misfits = 0;
  for (const auto& m : json::parse(scalelab::models_json())) {
    std::vector<json> inputs = {json{{"model", m["id"]}}};
    for (const auto& [kind, chip] : first_of_kind) inputs.push_back(json{{"model", m["id"]}, {"chip", chip}});
    for (const json& in : inputs) {
      for (const char* calc : {"local_inference", "decode", "serving"}) {
        scalelab::Evaluation e = scalelab::evaluate(calc, in.dump());
        EXPECT_EQ(e.status, scalelab::Status::ok) << calc << " " << in.dump() << ": " << e.message;
        if (e.status != scalelab::Status::ok) continue;
        ++evaluated;
        if (std::string(calc) == "local_inference" && !json::parse(e.json)["outputs"]["fits"].get<bool>()) ++misfits;
      }
    }
  }
  EXPECT_EQ(evaluated, 62u * 7 * 3);
  EXPECT_GT(misfits, 0u) << "the large models do not fit a 12 GB card: fits false, not an error";
}

// MLA caches its latent: (r_kv + d_rope) numbers a token and layer. DeepSeek-R1 in Q4_K_M on the
// 512 GB M3 Ultra (the case): 61 x (512 + 64) x 2 bytes a token in fp16, every layer global.
TEST(LocalInference, LatentAttentionCachesTheLatent) {
  json out = local({{"chip", "apple-m3-ultra"}, {"model", "deepseek-r1"}, {"weight_format", "q4_k_m"}, {"context", 8192}});
  json m = model_entry("deepseek-r1");
  double per_token = m["L"].get<double>() * (m["kv_lora_rank"].get<double>() + m["qk_rope_head_dim"].get<double>()) * 2;
  EXPECT_DOUBLE_EQ(per_token, 61 * 576 * 2);
  EXPECT_DOUBLE_EQ(out["kv_bytes_per_token"].get<double>(), per_token);
  EXPECT_NEAR(out["kv_bytes"].get<double>(), 8192 * per_token, 1e-6 * 8192 * per_token);
  EXPECT_TRUE(out["fits"].get<bool>());
}

// A local layer keeps at most its window: Gemma 3 27B at 32k tokens holds 10 global layers x 32768
// + 52 local layers x 1024 tokens, each 2 K H b_kv bytes; at a context inside the window, every
// layer holds all of it.
TEST(LocalInference, SlidingWindowLayersKeepTheirWindow) {
  json m = model_entry("gemma3-27b");
  double L = m["L"], local_layers = m["local_layers"], window = m["sliding_window"];
  double per_layer = 2 * m["K"].get<double>() * m["H"].get<double>() * 2;
  json out = local({{"chip", "rtx-4090"}, {"model", "gemma3-27b"}, {"context", 32768}});
  EXPECT_NEAR(out["kv_bytes"].get<double>(), ((L - local_layers) * 32768 + local_layers * window) * per_layer, 1);
  EXPECT_LT(out["kv_bytes"].get<double>(), 0.25 * L * 32768 * per_layer);
  json inside = local({{"chip", "rtx-4090"}, {"model", "gemma3-27b"}, {"context", 512}});
  EXPECT_NEAR(inside["kv_bytes"].get<double>(), L * 512 * per_layer, 1);
}

// The shorter context suggested for a windowed model is the longest whose cache fits: the cache
// grows only in the global layers past the window, so it is far longer than the all-global one.
TEST(LocalInference, SuggestedContextOfAWindowedModelIsTheLongestThatFits) {
  json in = {{"chip", "rtx-3060-12gb"}, {"model", "gemma3-12b"}, {"weight_format", "q4_k_m"}, {"context", 1000000}};
  json out = local(in);
  ASSERT_FALSE(out["fits"].get<bool>());
  ASSERT_EQ(out["suggestion_kind"], "shorter_context");
  double context = out["suggested_context"];
  in["context"] = context;
  EXPECT_TRUE(local(in)["fits"].get<bool>()) << context;
  in["context"] = context + 1;
  EXPECT_FALSE(local(in)["fits"].get<bool>()) << context;
  json m = model_entry("gemma3-12b");
  double L = m["L"], local_layers = m["local_layers"], window = m["sliding_window"];
  double per_layer = 2 * m["K"].get<double>() * m["H"].get<double>() * 2;
  double tokens = (out["usable_bytes"].get<double>() - out["overhead_bytes"].get<double>() - out["weight_bytes"].get<double>()) / per_layer;
  EXPECT_EQ(context, std::floor((tokens - local_layers * window) / (L - local_layers)));
  EXPECT_GT(context, 3 * tokens / L);  // all-global layers would hold a sixth of it
}

// Expert offload (issue 35 §1): gpt-oss-120b in MXFP4 beside a 24 GB RTX 3090. With the experts
// placed last, the always-active weights and the KV cache fill the card first and the routed
// experts take what is left, then system RAM; a step reads the k/E = 4/128 of the experts its
// token routes to from where they lie. Whole layers spilling instead put 60 % of every kind of
// weight in RAM and read 60 % of the step from there: slower.
TEST(LocalInference, ExpertsPlacedLastLeaveTheCardWhatEveryTokenReads) {
  json in = {{"chip", "rtx-3090"}, {"model", "gpt-oss-120b"}, {"weight_format", "mxfp4"}, {"context", 8192}};
  json layers = local(in);
  in["expert_placement"] = "experts_last";
  json last = local(in);
  json m = model_entry("gpt-oss-120b");
  double routed = m["L"].get<double>() * m["E"].get<double>() * 3 * m["D"].get<double>() * m["F"].get<double>() * 4.25 / 8;
  double share = 4.0 / 128, resident = last["weight_bytes"].get<double>() + last["kv_bytes"].get<double>();
  double device = last["tiers"][0]["stored_bytes"], in_ram = last["tiers"][1]["stored_bytes"];
  EXPECT_NEAR(device + in_ram, resident, 1e-6 * resident);
  EXPECT_GT(resident - routed, 0);
  EXPECT_LT(resident - routed, device) << "every always-active byte and the KV cache sit on the card";
  // RAM holds experts only: its reads are the experts' read share of what it stores
  EXPECT_NEAR(last["tiers"][1]["read_bytes"].get<double>(), routed * share * in_ram / routed, 1e-6 * in_ram * share);
  EXPECT_EQ(last["read_bytes_per_step"], layers["read_bytes_per_step"]) << "the same bytes, read from other places";
  EXPECT_GT(last["tokens_per_s"].get<double>(), 1.4 * layers["tokens_per_s"].get<double>());
  EXPECT_EQ(last["bound_tier"], "ram");
  // a dense model has no experts to place: the default's answer, with a warning that says so
  scalelab::Evaluation dense = scalelab::evaluate("local_inference", json{{"model", "llama3.1-8b"}, {"expert_placement", "experts_last"}}.dump());
  ASSERT_EQ(dense.status, scalelab::Status::ok);
  json d = json::parse(dense.json);
  EXPECT_EQ(d["outputs"]["tokens_per_s"], local({{"model", "llama3.1-8b"}})["tokens_per_s"]);
  EXPECT_NE(d["warnings"].dump().find("dense model"), std::string::npos) << d["warnings"].dump();
}

// Several devices (issue 35 §3): LLaMA-3 70B in Q4_K_M on two RTX 3090s. Their memory adds up
// (one overhead each) and the model fits; split by layers, each card reads its own layers in
// turn, so a step reads all the bytes at one card's bandwidth; split by rows, both read at once
// and exchange 2 (n - 1)/n U D 16-bit activations twice a layer, over the 3090s' NVLink bridge
// (over PCIe for two RTX 4090s, which have none).
TEST(LocalInference, TwoCardsAddTheirMemoryAndALayerSplitTheirTurns) {
  json one = local({{"chip", "rtx-3090"}, {"model", "llama3-70b"}, {"weight_format", "q4_k_m"}, {"context", 8192}});
  json two = local({{"chip", "rtx-3090"}, {"model", "llama3-70b"}, {"weight_format", "q4_k_m"}, {"context", 8192}, {"devices", 2}});
  EXPECT_FALSE(one["fits"].get<bool>());
  EXPECT_TRUE(two["fits"].get<bool>());
  EXPECT_DOUBLE_EQ(two["usable_bytes"].get<double>(), 2 * one["usable_bytes"].get<double>());
  EXPECT_DOUBLE_EQ(two["needed_bytes"].get<double>(), one["needed_bytes"].get<double>() + one["overhead_bytes"].get<double>());
  double bw = two["tiers"][0]["bytes_per_s"];
  EXPECT_DOUBLE_EQ(bw, one["tiers"][0]["bytes_per_s"].get<double>()) << "a layer split reads one card at a time";
  EXPECT_NEAR(two["step_s"].get<double>(), two["read_bytes_per_step"].get<double>() / bw, 1e-12);
  EXPECT_TRUE(two["t_comm_s"].is_null());
  json row = local({{"chip", "rtx-3090"}, {"model", "llama3-70b"}, {"weight_format", "q4_k_m"}, {"context", 8192}, {"devices", 2}, {"split", "row"}});
  EXPECT_DOUBLE_EQ(row["tiers"][0]["bytes_per_s"].get<double>(), 2 * bw);
  json m = model_entry("llama3-70b"), c;
  for (const auto& chip : json::parse(scalelab::chips_json())) if (chip["id"] == "rtx-3090") c = chip;
  double exchange = 2 * m["L"].get<double>() * (2 * 0.5 * m["D"].get<double>() * 2) / c["nvlink_bytes_per_s"].get<double>();
  EXPECT_NEAR(row["t_comm_s"].get<double>(), exchange, 1e-12 * exchange);
  EXPECT_NEAR(row["step_s"].get<double>(), two["step_s"].get<double>() / 2 + exchange, 1e-12);
  json pcie = local({{"chip", "rtx-4090"}, {"model", "llama3-70b"}, {"weight_format", "q4_k_m"}, {"devices", 2}, {"split", "row"}});
  EXPECT_GT(pcie["t_comm_s"].get<double>(), 0);
  // a Mac is one device
  scalelab::Evaluation mac = scalelab::evaluate("local_inference", json{{"chip", "apple-m3-ultra"}, {"devices", 2}}.dump());
  EXPECT_EQ(mac.status, scalelab::Status::bad_input);
  EXPECT_NE(mac.json.find("\"devices\""), std::string::npos) << mac.json;
}

// Mixed devices (issue 35 §3): a layer split over an RTX 4090 and a card of another kind. Each
// device holds layers in proportion to its usable memory less its 1 GiB overhead, and reads them
// at its own bandwidth in its turn, so a token step at batch 1 is the sum of the stages.
//
// RTX 4090 + RTX 3090, LLaMA-3 70B in Q4_K_M, 8k fp16 context: both cards have 24 GiB
// (25,769,803,776 bytes), so each holds half. The step reads 70,553,698,304 × 4.84 / 8 =
// 42,684,987,473.92 weight bytes + 80 × 8 × 128 × 2 × 2 × 8192 = 2,684,354,560 KV bytes =
// 45,369,342,033.92 bytes; stage 1 reads half at 1.008e12 B/s = 0.0225046 s, stage 2 half at
// 0.936e12 B/s = 0.0242358 s; their sum 0.0467404 s is 21.39 tokens/s (one 4090 alone could not
// hold the model; two 3090s in turn: 45.37e9 / 0.936e12 = 0.0484715 s).
//
// RTX 4090 + RTX 4060 Ti 16 GB, LLaMA-3 70B in Q3_K_M, 4k context: rooms 23 GiB and 15 GiB, so
// shares 23/38 and 15/38. Bytes read 34,483,120,046.08 + 1,342,177,280 = 35,825,297,326.08;
// stage 1: 23/38 × 35,825,297,326.08 / 1.008e12 = 0.0215116 s; stage 2: 15/38 × … / 0.288e12 =
// 0.0491027 s; sum 0.0706143 s, 14.16 tokens/s: the slower card's stage is two thirds of the step.
TEST(LocalInference, MixedCardsSplitLayersByMemoryAndAddTheirStages) {
  json a = local({{"chip", "rtx-4090"}, {"other_devices", {"rtx-3090"}}, {"model", "llama3-70b"},
                  {"weight_format", "q4_k_m"}, {"context", 8192}});
  ASSERT_EQ(a["devices"].size(), 2u);
  EXPECT_TRUE(a["fits"].get<bool>());
  EXPECT_DOUBLE_EQ(a["usable_bytes"].get<double>(), 2 * 25769803776.0);
  EXPECT_NEAR(a["read_bytes_per_step"].get<double>(), 45369342033.92, 1e-3);
  for (int i : {0, 1}) EXPECT_DOUBLE_EQ(a["devices"][i]["layer_share"].get<double>(), 0.5);
  EXPECT_EQ(a["devices"][0]["chip"], "rtx-4090");
  EXPECT_EQ(a["devices"][1]["chip"], "rtx-3090");
  EXPECT_NEAR(a["devices"][0]["t_s"].get<double>(), 45369342033.92 / 2 / 1.008e12, 1e-12);
  EXPECT_NEAR(a["devices"][1]["t_s"].get<double>(), 45369342033.92 / 2 / 0.936e12, 1e-12);
  EXPECT_NEAR(a["step_s"].get<double>(), 0.0467403935789, 1e-12);
  EXPECT_NEAR(a["tokens_per_s"].get<double>(), 21.3947706348, 1e-9);
  // each device's meter: its half of the weights and cache plus its own overhead, in its 24 GiB
  EXPECT_NEAR(a["devices"][1]["needed_bytes"].get<double>(), 1073741824 + 45369342033.92 / 2, 1e-3);
  EXPECT_TRUE(a["devices"][1]["fits"].get<bool>());
  // the same pair, identical: two 3090s read every byte at 0.936e12 in turn (the one definition)
  json twins = local({{"chip", "rtx-3090"}, {"devices", 2}, {"model", "llama3-70b"}, {"weight_format", "q4_k_m"}, {"context", 8192}});
  EXPECT_NEAR(twins["step_s"].get<double>(), 45369342033.92 / 0.936e12, 1e-12);
  EXPECT_NEAR(twins["devices"][0]["t_s"].get<double>() + twins["devices"][1]["t_s"].get<double>(), twins["step_s"].get<double>(), 1e-12);

  json b = local({{"chip", "rtx-4090"}, {"other_devices", {"rtx-4060-ti-16gb"}}, {"model", "llama3-70b"},
                  {"weight_format", "q3_k_m"}, {"context", 4096}});
  EXPECT_NEAR(b["devices"][0]["layer_share"].get<double>(), 23.0 / 38, 1e-15);
  EXPECT_NEAR(b["devices"][1]["layer_share"].get<double>(), 15.0 / 38, 1e-15);
  EXPECT_NEAR(b["devices"][0]["t_s"].get<double>(), 0.0215116395, 1e-9);
  EXPECT_NEAR(b["devices"][1]["t_s"].get<double>(), 0.0491026553, 1e-9);
  EXPECT_NEAR(b["step_s"].get<double>(), 0.0706142948, 1e-9);
  // shares as given (llama.cpp's --tensor-split 3,1): the 4090 fills first and sets what fits
  json c = local({{"chip", "rtx-4090"}, {"other_devices", {"rtx-4060-ti-16gb"}}, {"layer_shares", {3, 1}},
                  {"model", "llama3-70b"}, {"weight_format", "q3_k_m"}, {"context", 4096}});
  EXPECT_FALSE(c["fits"].get<bool>()) << "three quarters of 35.8 GB do not fit in 23 GiB";
  EXPECT_NEAR(c["margin_bytes"].get<double>(), 24696061952.0 / 0.75 - 35825297326.08, 1e-3);
  EXPECT_FALSE(c["devices"][0]["fits"].get<bool>());
  EXPECT_TRUE(c["devices"][1]["fits"].get<bool>());
}

TEST(LocalInference, MixedCardsRefuseBadListsInWords) {
  auto refused = [](const json& in, const std::string& param, const std::string& words) {
    scalelab::Evaluation e = scalelab::evaluate("local_inference", in.dump());
    EXPECT_EQ(e.status, scalelab::Status::bad_input) << in.dump();
    json err = json::parse(e.json)["error"];
    EXPECT_EQ(err["param"], param) << e.json;
    EXPECT_NE(err["message"].get<std::string>().find(words), std::string::npos) << e.json;
  };
  refused({{"other_devices", {"rtx-9999"}}}, "other_devices[0]", "unknown chip \"rtx-9999\"");
  refused({{"other_devices", json::array()}}, "other_devices", "between 1 and 7 items, got 0");
  refused({{"devices", 4}, {"other_devices", {"rtx-3090", "rtx-3090", "rtx-3090", "rtx-3090", "rtx-3090"}}},
          "other_devices", "4 of GeForce RTX 4090 and 5 more make 9");
  refused({{"other_devices", {"apple-m3-ultra"}}}, "other_devices", "is not a discrete GPU");
  refused({{"chip", "apple-m3-ultra"}, {"other_devices", {"rtx-3090"}}}, "other_devices", "cannot join");
  refused({{"other_devices", {"rtx-3090"}}, {"layer_shares", {1}}}, "layer_shares", "gives 1 share for 2 devices");
}

// A row split over cards of different kinds (llama.cpp's --split-mode row with --tensor-split): every
// card reads its rows of each layer at once, so the card slowest over its share sets the pace, and
// the activations cross PCIe (no bridge joins two kinds of card), at the slower card's link.
TEST(LocalInference, ARowSplitOverMixedCardsRunsAtItsSlowestShare) {
  const json base = {{"chip", "rtx-4090"}, {"other_devices", {"rtx-3090"}}, {"model", "llama3-70b"}, {"weight_format", "q4_k_m"}};
  json layer = local(base), in = base;
  in["split"] = "row";
  json row = local(in);
  ASSERT_TRUE(row["fits"].get<bool>());
  const double read = row["read_bytes_per_step"], w4090 = 1008e9, w3090 = 936e9, pcie = 31507692307.7;
  // equal memory, equal shares: the 3090's half is the slower
  EXPECT_NEAR(row["t_memory_s"].get<double>(), 0.5 * read / w3090, 1e-9);
  EXPECT_NEAR(row["devices"][0]["t_s"].get<double>(), 0.5 * read / w4090, 1e-9);
  const double exchange = 2 * 80 * (2 * 0.5 * 1 * 8192 * 2) / pcie;  // 2 L x all-reduce bytes of U D fp16 / W_pcie
  EXPECT_NEAR(row["t_comm_s"].get<double>(), exchange, 1e-12);
  EXPECT_NEAR(row["step_s"].get<double>(), 0.5 * read / w3090 + exchange, 1e-9);
  EXPECT_GT(row["tokens_per_s"].get<double>(), 1.9 * layer["tokens_per_s"].get<double>());  // 41.1 against 20.2
  // given shares: 3 of 5 rows on the 4090 make its share the slower one (an 8B model, that both halves hold)
  in["layer_shares"] = {3, 2};
  in["model"] = "llama3-8b";
  json shares = local(in);
  ASSERT_TRUE(shares["fits"].get<bool>());
  EXPECT_NEAR(shares["t_memory_s"].get<double>(), std::max(0.6 / w4090, 0.4 / w3090) * shares["read_bytes_per_step"].get<double>(), 1e-9);
}

// A layer split at several users pipelines: m = min(n, U) micro-batches, each device reading its
// weights once per micro-batch and its KV once a round; the round is the slowest device's, and never
// shorter than one micro-batch's way through every stage. It is taken where it beats the stages in
// turn (the KV reads and the math spread over the devices; the weights are read m times).
TEST(LocalInference, ALayerSplitPipelinesItsUsersAcrossTheDevices) {
  json one = local({{"chip", "rtx-3090"}, {"devices", 2}, {"model", "llama3-70b"}, {"weight_format", "q4_k_m"}});
  EXPECT_TRUE(one["pipeline_step_s"].is_null()) << "one user: the stages run in turn";
  json eight = local({{"chip", "rtx-3090"}, {"devices", 2}, {"model", "llama3-70b"}, {"weight_format", "q4_k_m"},
                      {"users", 8}, {"context", 2048}});
  ASSERT_TRUE(eight["fits"].get<bool>());
  EXPECT_EQ(eight["pipeline_microbatches"], 2);
  const double W = eight["weight_bytes"], KV = eight["kv_bytes"], bw = 936e9;
  const double in_turn = (W + KV) / bw, round = (2 * 0.5 * W + 0.5 * KV) / bw, pass = 2 * 0.5 * (W + KV / 2) / bw;
  EXPECT_NEAR(eight["t_memory_s"].get<double>(), in_turn, 1e-9);
  EXPECT_NEAR(eight["pipeline_step_s"].get<double>(), std::max(round, pass), 1e-9);
  EXPECT_NEAR(eight["step_s"].get<double>(), std::max(round, pass), 1e-9);
  EXPECT_LT(eight["step_s"].get<double>(), in_turn);
  // 64 users on four cards: the math that binds the stages in turn spreads over the four at once
  json many = local({{"chip", "rtx-3090"}, {"devices", 4}, {"model", "llama3-70b"}, {"weight_format", "q4_k_m"},
                     {"users", 64}, {"context", 1024}});
  EXPECT_EQ(many["pipeline_microbatches"], 4);
  EXPECT_GT(many["t_math_s"].get<double>(), many["t_memory_s"].get<double>());
  EXPECT_LT(many["step_s"].get<double>(), 0.5 * many["t_math_s"].get<double>());
  EXPECT_EQ(many["bound"], "memory");
  EXPECT_EQ(many["bound_tier"], "device");
  // a 4090 beside a 3090: the 3090's round is the slower
  json mixed = local({{"chip", "rtx-4090"}, {"other_devices", {"rtx-3090"}}, {"model", "llama3-70b"},
                      {"weight_format", "q4_k_m"}, {"users", 8}, {"context", 2048}});
  EXPECT_NEAR(mixed["pipeline_step_s"].get<double>(),
              (2 * mixed["devices"][1]["layer_share"].get<double>() * mixed["weight_bytes"].get<double>() +
               mixed["devices"][1]["layer_share"].get<double>() * mixed["kv_bytes"].get<double>()) / 936e9, 1e-9);
  // a row split, or weights spilled to RAM: no pipeline
  EXPECT_TRUE(local({{"chip", "rtx-3090"}, {"devices", 2}, {"model", "llama3-70b"}, {"weight_format", "q4_k_m"},
                     {"users", 8}, {"split", "row"}})["pipeline_step_s"].is_null());
  EXPECT_TRUE(local({{"chip", "rtx-3090"}, {"devices", 2}, {"model", "llama3-70b"}, {"weight_format", "q8_0"},
                     {"users", 8}})["pipeline_step_s"].is_null());
}

}  // namespace

namespace {

json eval_full(const char* calculator, const json& in) {
  scalelab::Evaluation e = scalelab::evaluate(calculator, in.dump());
  EXPECT_EQ(e.status, scalelab::Status::ok) << in.dump() << ": " << e.message;
  return e.status == scalelab::Status::ok ? json::parse(e.json) : json::object();
}

std::vector<std::string> strings(const json& list) { return list.get<std::vector<std::string>>(); }

// Each format names the runtimes that run it, on which platforms, with a source; the chip lists
// what runs on it: no GGUF on a TPU, llama.cpp's everywhere else; QLoRA's NF4 on NVIDIA only.
TEST(Formats, EachFormatRunsWhereItsRuntimesDo) {
  const std::set<std::string> platforms = {"tpu", "cpu", "nvidia", "amd", "intel", "apple"};
  for (const auto& f : scalelab::format_catalog()) {
    ASSERT_TRUE(f.contains("runs_on") && !f["runs_on"].empty()) << f["id"];
    for (const auto& r : f["runs_on"]) {
      EXPECT_FALSE(r.at("runtime").get<std::string>().empty()) << f["id"];
      EXPECT_FALSE(r.at("source").get<std::string>().empty()) << f["id"];
      for (const auto& on : r.at("on")) EXPECT_TRUE(platforms.count(on.get<std::string>())) << f["id"] << " " << on;
    }
  }
  auto formats = [](const char* chip, const char* list) {
    return strings(eval_full("chip", {{"chip", chip}})["outputs"][list]);
  };
  auto has = [](const std::vector<std::string>& l, const char* id) { return std::find(l.begin(), l.end(), id) != l.end(); };
  const auto tpu = formats("tpu-v5e", "weight_formats");
  EXPECT_TRUE(has(tpu, "bf16") && has(tpu, "int8"));
  for (const char* gguf : {"q8_0", "q4_k_m", "q4_0", "q2_k"}) EXPECT_FALSE(has(tpu, gguf)) << gguf;
  EXPECT_FALSE(has(formats("tpu-v5e", "kv_formats"), "fp16"));
  for (const char* chip : {"h100", "rtx-4090", "apple-m2-max", "desktop-ddr5"}) {
    EXPECT_TRUE(has(formats(chip, "weight_formats"), "q4_k_m")) << chip;
  }
  EXPECT_TRUE(formats("tpu-v5e", "adapter_formats").empty());
  EXPECT_TRUE(has(formats("rtx-4090", "adapter_formats"), "nf4"));
  EXPECT_FALSE(has(formats("apple-m2-max", "adapter_formats"), "nf4"));
  EXPECT_TRUE(has(formats("apple-m2-max", "adapter_formats"), "mxfp4"));
}

// Can I run it?'s suggestions follow the chip: a TPU is never offered GGUF, a datacenter part is
// offered the format its matrix units multiply (FP8 on an H100, INT8 on a TPU v5e), a card keeps
// llama.cpp's next step down; a format the chip's runtimes do not run is warned about, in words.
TEST(LocalInference, SuggestionsFollowTheChipsRuntimes) {
  json tpu = eval_full("local_inference", {{"chip", "tpu-v5e"}, {"weight_format", "bf16"}, {"kv_format", "bf16"}});
  EXPECT_EQ(tpu["outputs"]["suggested_format"], "int8");
  EXPECT_TRUE(tpu["warnings"].dump().find("does not run on") == std::string::npos) << tpu["warnings"];
  json h100 = eval_full("local_inference", {{"chip", "h100"}, {"weight_format", "bf16"}, {"kv_format", "bf16"}});
  EXPECT_EQ(h100["outputs"]["suggested_format"], "fp8");
  // a card already at 4.85 bits is not offered 4.5 for about 6 % more speed at a loss of quality:
  // the first change is a smaller model or faster memory; from 16 bits, 8-bit is (about twice the speed)
  json card = local({{"chip", "rtx-4090"}});
  EXPECT_TRUE(card["suggested_format"].is_null()) << card["suggestion"];
  EXPECT_EQ(card["suggestion_kind"], "none");
  EXPECT_NE(card["suggestion"].get<std::string>().find("smaller model"), std::string::npos) << card["suggestion"];
  json card16 = local({{"chip", "rtx-4090"}, {"model", "llama3.2-1b"}, {"weight_format", "bf16"}});
  EXPECT_EQ(card16["suggestion_kind"], "smaller_format") << card16["suggestion"];
  EXPECT_NE(card16["suggestion"].get<std::string>().find("quality"), std::string::npos) << card16["suggestion"];
  json gguf = eval_full("local_inference", {{"chip", "tpu-v5e"}, {"weight_format", "q4_k_m"}, {"kv_format", "bf16"}});
  ASSERT_EQ(gguf["warnings"].size(), 1u);
  EXPECT_EQ(gguf["warnings"][0].get<std::string>().rfind("GGUF Q4_K_M weights run through llama.cpp, which does not run on the TPU v5e", 0), 0u)
      << gguf["warnings"][0];
  EXPECT_NE(gguf["outputs"]["suggested_format"].get<std::string>().rfind("q", 0), 0u);
  // Can I fine-tune it?: QLoRA where a runtime trains adapters over its format on the chip
  json mac = eval_full("finetune", {{"chip", "apple-m2-max"}, {"method", "qlora"}, {"quant_format", "mxfp4"}});
  EXPECT_TRUE(mac["warnings"].empty()) << mac["warnings"];
  json nf4 = eval_full("finetune", {{"chip", "apple-m2-max"}, {"method", "qlora"}});
  ASSERT_FALSE(nf4["warnings"].empty());
  EXPECT_NE(nf4["warnings"][0].get<std::string>().find("bitsandbytes, which does not run on"), std::string::npos);
  // LoRA of an 8B model overflows a 16 GB Mac: the first change offered is QLoRA over a format MLX
  // trains adapters over there (NF4 has no runtime on a Mac), not "a device with more memory"
  json m1 = eval_full("finetune", {{"chip", "apple-m1"}});
  EXPECT_FALSE(m1["outputs"]["fits"].get<bool>());
  EXPECT_EQ(m1["outputs"]["suggested_method"], "qlora") << m1["outputs"]["suggestion"];
  EXPECT_EQ(m1["outputs"]["suggestion"].get<std::string>().find("NF4"), std::string::npos) << m1["outputs"]["suggestion"];
  json after = eval_full("finetune", {{"chip", "apple-m1"}, {"method", "qlora"}, {"quant_format", "mxfp4"}});
  EXPECT_TRUE(after["outputs"]["fits"].get<bool>()) << after["outputs"]["suggestion"];
}

}  // namespace
