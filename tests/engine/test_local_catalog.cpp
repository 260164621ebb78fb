// The local-hardware part of the catalogs: every weight format carries its bits and a source,
// and decode reads exactly those bits; every non-TPU, non-book device and every model names
// where its numbers come from; each kind of device the local calculator knows is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "catalog/catalog.hpp"  // engine/src: the format table
#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::testing::json;

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

}  // namespace
