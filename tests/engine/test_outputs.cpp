// Outputs are declared in the schema: every output a result holds is declared, every declared
// output is there, and null only where the declaration says nullable. Checked over every book
// case, every calculator's defaults and every bad-input row the engine answers. Parameters and
// outputs all carry a label and a unit field for people.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>

#include "calculators/registry.hpp"
#include "core/output_rows.hpp"
#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::testing::json;

std::map<std::string, json> declarations() {
  std::map<std::string, json> out;
  json all = json::parse(scalelab::calculators_json());
  for (const json& c : all["calculators"]) out[c["name"].get<std::string>()] = c["outputs"];
  return out;
}

// "" when `outputs` matches the declaration both ways, else what differs.
std::string mismatch(const json& declared, const json& outputs) {
  std::string problems;
  std::set<std::string> names;
  for (const json& o : declared) {
    std::string name = o["name"].get<std::string>();
    names.insert(name);
    if (!outputs.contains(name)) problems += " declared but missing: " + name + ";";
    else if (outputs[name].is_null() && !o["nullable"].get<bool>()) problems += " null but not nullable: " + name + ";";
  }
  for (auto it = outputs.begin(); it != outputs.end(); ++it) {
    if (!names.count(it.key())) problems += " emitted but undeclared: " + it.key() + ";";
  }
  return problems;
}

using scalelab::testing::Evaluated;
std::vector<Evaluated> runs() { return scalelab::testing::evaluations(/*with_bad_inputs=*/true); }

TEST(DeclaredOutputs, EveryResultMatchesItsDeclarationBothWays) {
  auto declared = declarations();
  int answered = 0;
  for (const Evaluated& r : runs()) {
    scalelab::Evaluation e = scalelab::evaluate(r.calculator, r.input);
    EXPECT_NE(e.status, scalelab::Status::internal) << r.where << ": " << e.message;
    if (e.status != scalelab::Status::ok) continue;
    ++answered;
    json out = json::parse(e.json);
    EXPECT_EQ(mismatch(declared.at(r.calculator), out["outputs"]), "") << r.where;
  }
  EXPECT_GT(answered, 100);
}

TEST(DeclaredOutputs, EveryOutputHasAUnitFieldALabelAndADoc) {
  for (const auto& [calculator, outputs] : declarations()) {
    EXPECT_FALSE(outputs.empty()) << calculator;
    std::set<std::string> names;
    for (const json& o : outputs) {
      std::string name = o["name"].get<std::string>();
      EXPECT_TRUE(names.insert(name).second) << calculator << " declares " << name << " twice";
      EXPECT_TRUE(o["unit"].is_string()) << calculator << "." << name;
      EXPECT_FALSE(o["label"].get<std::string>().empty()) << calculator << "." << name << " has no label";
      EXPECT_FALSE(o["doc"].get<std::string>().empty()) << calculator << "." << name << " has no doc";
    }
  }
}

void expect_labels(const json& params, const std::string& where) {
  for (const json& p : params) {
    std::string name = where + p["name"].get<std::string>();
    EXPECT_FALSE(p["label"].get<std::string>().empty()) << name << " has no label";
    if (p["type"] == "choice") {  // every choice has a name for people, one per value
      EXPECT_TRUE(p.contains("choice_titles")) << name << " has no choice_titles";
      EXPECT_EQ(p.value("choice_titles", json::array()).size(), p["choices"].size()) << name;
    }
    if (p["type"] == "object" && p.contains("fields")) expect_labels(p["fields"], name + ".");
  }
}

TEST(DeclaredOutputs, EveryParameterAndCatalogFieldHasALabel) {
  json all = json::parse(scalelab::calculators_json());
  for (const json& c : all["calculators"]) expect_labels(c["params"], c["name"].get<std::string>() + ": ");
  expect_labels(all["chip_fields"], "chip field ");
  expect_labels(all["model_fields"], "model field ");
}

}  // namespace

namespace {

// Inputs that leave an optional figure out: a chip with no price (serving's cost), a chip with no
// HBM figure (training_memory's fit). The fuzzer found the first; both were declared non-nullable.
TEST(DeclaredOutputs, FiguresAChipLacksComeOutNullNotAsAFault) {
  auto decl = declarations();
  const std::pair<const char*, const char*> inputs[] = {
      {"serving", R"({"chip": "tpu-v6e", "model": "llama3-70b", "chips": 13, "disaggregated": true})"},
      {"training_memory", R"({"chip": "h800", "model": "llama3-70b", "chips": 8})"},
  };
  for (const auto& [calc, input] : inputs) {
    auto e = scalelab::evaluate(calc, input);
    ASSERT_EQ(e.status, scalelab::Status::ok) << calc << ": " << e.json;
    EXPECT_EQ(mismatch(decl[calc], json::parse(e.json)["outputs"]), "") << calc;
  }
}

// A table of rows read from members: its declarations are its rows in order, a row's position is
// found when compiled, and write_members writes exactly the rows with a member, by position.
struct Figures {
  double t_s = 0;
  std::optional<double> share;
  bool fits = false;
  scalelab::Word bound;
};
constexpr scalelab::OutputRow<Figures> kRows[] = {
    {"t_s", "s", "time", "a time", false, &Figures::t_s},
    {"made", "", "made", "written where it is made", false},
    {"share", "ratio", "share", "a share (null without one)", true, &Figures::share},
    {"fits", "", "fits", "whether it fits", false, &Figures::fits},
    {"bound", "", "bound", "what bounds it", false, &Figures::bound},
};
static_assert(scalelab::well_formed(kRows));
static_assert(scalelab::output_index(kRows, "share") == 2);

TEST(DeclaredOutputs, RowsWriteTheirMembersByPosition) {
  std::vector<scalelab::Output> declared = scalelab::outputs_of(kRows);
  ASSERT_EQ(declared.size(), 5u);
  EXPECT_EQ(declared[2].name, "share");
  EXPECT_TRUE(declared[2].nullable);
  scalelab::Result r(declared);
  write_members<kRows>(Figures{.t_s = 2.5, .share = std::nullopt, .fits = true, .bound = "memory"}, r);
  EXPECT_FALSE(r.outputs.is_set(1));  // no member: the calculator writes it
  EXPECT_EQ(r.outputs.number(0), 2.5);
  EXPECT_EQ(r.outputs.kind(2), scalelab::Outputs::Kind::null);
  EXPECT_TRUE(r.outputs.flag(3));
  EXPECT_EQ(r.outputs.word(4), "memory");
}

// decode's table is what a decode result is declared with, in the same order (its writer sets
// them by position).
TEST(DeclaredOutputs, DecodePositionsAreItsDeclaredOrder) {
  const scalelab::Calculator* decode = scalelab::find_calculator("decode");
  ASSERT_NE(decode, nullptr);
  EXPECT_EQ(decode->outputs[0].name, "kv_bytes_per_token");
  EXPECT_EQ(decode->outputs[14].name, "step_s");
}

}  // namespace
