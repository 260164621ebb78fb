// The chip and model catalogs: every entry in data/ resolves, overrides merge field by field
// (flops_per_s per dtype), and the schema listing is complete.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "catalog/catalog.hpp"  // engine/src: white-box access to model resolution
#include "calculators/registry.hpp"
#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::Status;
using scalelab::testing::json;

json chips() { return json::parse(scalelab::chips_json()); }
json models() { return json::parse(scalelab::models_json()); }

json eval_ok(const std::string& name, const json& input) {
  scalelab::Evaluation e = scalelab::evaluate(name, input.dump());
  EXPECT_EQ(e.status, Status::ok) << name << " " << input.dump() << ": " << e.param << ": " << e.message;
  return e.status == Status::ok ? json::parse(e.json) : json();
}

TEST(Catalog, EmbeddedCatalogsEqualTheDataFiles) {
  json chips_file = json::parse(scalelab::testing::read_file(scalelab::testing::source_dir() + "/data/chips.json"));
  json models_file = json::parse(scalelab::testing::read_file(scalelab::testing::source_dir() + "/data/models.json"));
  json listed = chips();
  for (auto& c : listed) c.erase("topology");  // added by the engine from the chip's own fields
  EXPECT_EQ(listed, chips_file) << "rebuild: the engine embeds data/chips.json at build time";
  EXPECT_EQ(models(), models_file);
}

// The entries an evaluation parses one at a time are the catalog's own: the same ids in the same
// order, each text parsing to the catalog's object.
void expect_entries_are_the_catalog(const std::vector<scalelab::CatalogEntry>& entries, const json& catalog) {
  ASSERT_EQ(entries.size(), catalog.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ(entries[i].id, catalog[i].at("id").get<std::string>());
    EXPECT_EQ(json::parse(entries[i].text), catalog[i]) << entries[i].id;
    EXPECT_EQ(scalelab::find_entry(entries, entries[i].id), &entries[i]);
  }
  EXPECT_EQ(scalelab::find_entry(entries, "no-such-entry"), nullptr);
}

TEST(Catalog, EntriesAreFoundWithoutParsingAndEqualTheCatalog) {
  expect_entries_are_the_catalog(scalelab::chip_entries(), scalelab::chip_catalog());
  expect_entries_are_the_catalog(scalelab::model_entries(), scalelab::model_catalog());
}

TEST(Catalog, EntryScanReadsStringsAndNestingAsJsonDoes) {
  const std::string text = R"([
    {"name": "a } ] \" {", "sources": {"id": "nested, not the entry's"}, "id": "first", "list": [{"id": 1}]},
    {"id": "se\u0063ond", "notes": "\\"},
    {"id": 3, "name": "no string id"}
  ])";
  std::vector<scalelab::CatalogEntry> entries = scalelab::scan_catalog_entries(text);
  json catalog = json::parse(text);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].id, "first");
  EXPECT_EQ(entries[1].id, "second");
  EXPECT_EQ(entries[2].id, "");
  for (std::size_t i = 0; i < entries.size(); ++i) EXPECT_EQ(json::parse(entries[i].text), catalog[i]);
}

// The formats' choices come from a table the build generates from data/formats.json: the same
// ids and names, in the same order, as the catalog gives for each use.
TEST(Catalog, FormatChoicesAreTheCatalogsFormats) {
  std::vector<std::string> weight_ids, weight_names, kv_ids, kv_names;
  for (const json& f : scalelab::format_catalog()) {
    const json& uses = f.at("uses");
    if (std::find(uses.begin(), uses.end(), "weights") != uses.end()) {
      weight_ids.push_back(f.at("id"));
      weight_names.push_back(f.at("name"));
    }
    if (std::find(uses.begin(), uses.end(), "kv") != uses.end()) {
      kv_ids.push_back(f.at("id"));
      kv_names.push_back(f.at("name"));
    }
  }
  EXPECT_FALSE(weight_ids.empty());
  EXPECT_EQ(scalelab::weight_format_names(), weight_ids);
  EXPECT_EQ(scalelab::weight_format_titles(), weight_names);
  EXPECT_EQ(scalelab::kv_format_names(), kv_ids);
  EXPECT_EQ(scalelab::kv_format_titles(), kv_names);
}

TEST(Catalog, ContractIdsExist) {
  std::set<std::string> chip_ids, model_ids;
  for (const auto& c : chips()) chip_ids.insert(c.at("id").get<std::string>());
  for (const auto& m : models()) model_ids.insert(m.at("id").get<std::string>());
  for (const char* id : {"tpu-v3", "tpu-v4p", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-7x", "v100", "a100",
                         "h100", "h200", "h800", "b200", "gb200", "gh200"}) {
    EXPECT_TRUE(chip_ids.count(id)) << "API.md lists chip " << id;
  }
  for (const char* id : {"llama3-8b", "llama3-70b", "llama3-405b", "llama2-13b", "gemma-7b", "gemma2-27b",
                         "mixtral-8x7b", "deepseek-v3"}) {
    EXPECT_TRUE(model_ids.count(id)) << "API.md lists model " << id;
  }
}

TEST(Catalog, IdsAreUniqueAndEveryChipHasSources) {
  std::set<std::string> ids;
  for (const auto& c : chips()) {
    std::string id = c.at("id").get<std::string>();
    EXPECT_TRUE(ids.insert(id).second) << "duplicate chip id " << id;
    EXPECT_TRUE(c.contains("sources") && !c["sources"].empty()) << id << " has no sources";
    EXPECT_TRUE(c.contains("kind")) << id;
  }
  for (const auto& m : models()) {
    std::string id = m.at("id").get<std::string>();
    EXPECT_TRUE(ids.insert(id).second) << "duplicate id " << id;
    EXPECT_TRUE(m.contains("source")) << id << " has no source";
  }
}

TEST(Catalog, EveryChipResolvesThroughTheChipCalculator) {
  for (const auto& c : chips()) {
    std::string id = c.at("id").get<std::string>();
    json r = eval_ok("chip", {{"chip", id}});
    if (r.is_null()) continue;
    const json& out = r.at("outputs");
    EXPECT_EQ(out.at("id"), id);
    for (const char* field : {"hbm_bytes", "hbm_bytes_per_s", "ici_link_bytes_per_s", "pcie_bytes_per_s"}) {
      if (c.contains(field) && c[field].is_number()) {
        EXPECT_DOUBLE_EQ(out.at(field).get<double>(), c[field].get<double>()) << id << "." << field;
      }
    }
    if (c.contains("flops_per_s")) {
      for (auto it = c["flops_per_s"].begin(); it != c["flops_per_s"].end(); ++it) {
        EXPECT_EQ(out["flops_per_s"][it.key()].is_null(), it.value().is_null()) << id << " " << it.key();
      }
    }
  }
}

TEST(Catalog, EveryChipWorksInRooflineAndTransferWhereItHasTheFigures) {
  for (const auto& c : chips()) {
    std::string id = c.at("id").get<std::string>();
    if (!c.contains("hbm_bytes_per_s") || c["hbm_bytes_per_s"].is_null()) continue;
    eval_ok("transfer", {{"chip", id}, {"bytes", 1e9}, {"path", "hbm"}});
    // roofline needs a rate: bf16's by default, else the chip's fastest with a warning that says
    // so (a T4 has fp16 and int8 but no bf16); a dtype asked for and missing is refused, as is a
    // chip with no rate a compute dtype names (V100's catalog entry)
    bool bf16 = c.contains("flops_per_s") && c["flops_per_s"].contains("bf16") && !c["flops_per_s"]["bf16"].is_null();
    if (!bf16) {
      scalelab::Evaluation asked = scalelab::evaluate(
          "roofline", json{{"chip", id}, {"flops", 1}, {"bytes", 1}, {"compute_dtype", "bf16"}}.dump());
      EXPECT_EQ(asked.param, "compute_dtype") << id << ": a missing rate asked for is refused naming compute_dtype";
      scalelab::Evaluation e = scalelab::evaluate("roofline", json{{"chip", id}, {"flops", 1}, {"bytes", 1}}.dump());
      if (e.status != scalelab::Status::ok) {
        EXPECT_EQ(e.param, "compute_dtype") << id << ": no rate at all is refused naming compute_dtype";
        continue;
      }
      std::string warnings = json::parse(e.json)["warnings"].dump();
      EXPECT_NE(warnings.find("has no bf16 FLOP/s rate, so the math is priced at its fastest rate"), std::string::npos)
          << id << ": " << warnings;
      continue;
    }
    eval_ok("roofline", {{"chip", id}, {"matmul", {{"B", 256}, {"D", 4096}, {"F", 16384}}}});
  }
}

TEST(Catalog, EveryModelResolves) {
  for (const auto& m : models()) {
    std::string id = m.at("id").get<std::string>();
    scalelab::Model model;
    ASSERT_NO_THROW(model = scalelab::resolve_model(id, nullptr)) << id;
    EXPECT_EQ(model.id, id);
    EXPECT_GT(model.L, 0) << id;
    EXPECT_GT(model.D, 0) << id;
    EXPECT_EQ(std::fmod(model.N, model.K), 0) << id << ": K divides N";
    EXPECT_LE(model.k, model.E) << id;
  }
  if (scalelab::testing::registered_calculators().count("transformer")) {
    for (const auto& m : models()) eval_ok("transformer", {{"model", m.at("id")}});
  }
}

TEST(Catalog, ModelOverridesReplaceFields) {
  scalelab::Model m = scalelab::resolve_model("llama3-70b", json{{"L", 40}});
  EXPECT_EQ(m.L, 40);
  EXPECT_EQ(m.D, 8192);
}

TEST(Catalog, OverridesMergeFlopsPerDtype) {
  json base = eval_ok("chip", {{"chip", "tpu-v5e"}});
  json over = eval_ok("chip", {{"chip", "tpu-v5e"}, {"chip_overrides", {{"flops_per_s", {{"bf16", 1e15}}}}}});
  ASSERT_FALSE(base.is_null());
  ASSERT_FALSE(over.is_null());
  const json& b = base["outputs"]["flops_per_s"];
  const json& o = over["outputs"]["flops_per_s"];
  EXPECT_DOUBLE_EQ(o["bf16"].get<double>(), 1e15);
  EXPECT_EQ(o["int8"], b["int8"]) << "the other dtypes are kept";
  EXPECT_EQ(o.size(), b.size());
  // derived figures follow the override
  EXPECT_NEAR(over["outputs"]["critical_intensity"].get<double>(), 1e15 / 8.2e11, 1e-6 * 1e15 / 8.2e11);
}

TEST(Catalog, OverridesReplaceScalarFieldsAndRecomputePodChips) {
  json r = eval_ok("chip", {{"chip", "tpu-v5e"},
                            {"chip_overrides", {{"hbm_bytes_per_s", 1.23e12}, {"pod_shape", {4, 4}}}}});
  ASSERT_FALSE(r.is_null());
  EXPECT_DOUBLE_EQ(r["outputs"]["hbm_bytes_per_s"].get<double>(), 1.23e12);
  EXPECT_EQ(r["outputs"]["pod_chips"], 16);
  EXPECT_EQ(r["outputs"]["hbm_bytes"], 16000000000) << "untouched fields stay";
}

TEST(Catalog, CustomChipObject) {
  json chip = {{"kind", "tpu"}, {"flops_per_s", {{"bf16", 1e14}}}, {"hbm_bytes_per_s", 1e12}};
  json r = eval_ok("roofline", {{"chip", chip}, {"flops", 1e12}, {"bytes", 1e9}});
  ASSERT_FALSE(r.is_null());
  EXPECT_DOUBLE_EQ(r["outputs"]["critical_intensity"].get<double>(), 100);
  EXPECT_EQ(r["outputs"]["bound"], "compute");
}

TEST(Catalog, SchemaListingIsComplete) {
  json all = json::parse(scalelab::calculators_json());
  ASSERT_TRUE(all.contains("calculators"));
  EXPECT_TRUE(all.contains("chip_fields"));
  EXPECT_TRUE(all.contains("model_fields"));
  std::set<std::string> names;
  for (const auto& c : all["calculators"]) {
    std::string name = c.at("name").get<std::string>();
    EXPECT_TRUE(names.insert(name).second) << "duplicate calculator " << name;
    EXPECT_FALSE(c.value("doc", "").empty()) << name;
    EXPECT_TRUE(c.contains("chapters")) << name;
    std::set<std::string> params;
    for (const auto& p : c.at("params")) {
      std::string pname = p.at("name").get<std::string>();
      EXPECT_TRUE(params.insert(pname).second) << name << "." << pname << " listed twice";
      EXPECT_FALSE(p.value("doc", "").empty()) << name << "." << pname << " has no doc line";
      EXPECT_TRUE(p.contains("type")) << name << "." << pname;
      if (p.contains("min") && p.contains("max")) {
        EXPECT_LE(p["min"].get<double>(), p["max"].get<double>()) << name << "." << pname;
      }
    }
    // every calculator runs on its defaults or refuses with a named parameter
    scalelab::Evaluation e = scalelab::evaluate(name, "{}");
    EXPECT_NE(e.status, Status::unknown_calculator) << name;
    EXPECT_NO_THROW(json::parse(e.json)) << name;
  }
  for (const char* spine : {"chip", "roofline", "transfer"}) EXPECT_TRUE(names.count(spine)) << spine;
}

// The registry builds a calculator when it is first asked for, by name, and lists every one.
TEST(Registry, EachCalculatorIsBuiltOnceAndFoundByItsName) {
  std::vector<const scalelab::Calculator*> found;
  for (std::string_view name : scalelab::calculator_names()) {
    const scalelab::Calculator* c = scalelab::find_calculator(name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_EQ(c->name, name);
    EXPECT_FALSE(c->outputs.empty()) << name;
    EXPECT_EQ(scalelab::find_calculator(name), c) << name << " was built twice";
    found.push_back(c);
  }
  EXPECT_EQ(scalelab::calculators(), found);
  EXPECT_EQ(scalelab::find_calculator("no_such_calculator"), nullptr);
}

}  // namespace
