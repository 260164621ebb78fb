// Validation through the public entry point: every bad input is an error that names the
// parameter; the error JSON has one shape; the limits on the input text hold.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "scalelab/engine.hpp"
#include "scalelab/limits.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::Evaluation;
using scalelab::Status;
using scalelab::testing::json;

Evaluation eval(const std::string& name, const std::string& input) {
  return scalelab::evaluate(name, input);
}

// The error JSON is exactly {"error": {"status": "bad_input"|"unknown_calculator",
// "param": string|null, "message": string}}, with "field" (a string) where a chip's figure is
// missing; the status matches the Evaluation's.
void expect_error_shape(const Evaluation& e, const std::string& param) {
  ASSERT_NE(e.status, Status::ok) << e.json;
  json j = json::parse(e.json);
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j.size(), 1u) << e.json;
  ASSERT_TRUE(j.contains("error")) << e.json;
  const json& err = j["error"];
  ASSERT_EQ(err.size(), err.contains("field") ? 4u : 3u) << e.json;
  if (err.contains("field")) {
    ASSERT_TRUE(err["field"].is_string()) << e.json;
  }
  EXPECT_EQ(err["status"], scalelab::status_name(e.status)) << e.json;
  EXPECT_NE(e.status, Status::internal) << "a caller's mistake reported as an engine fault: " << e.json;
  if (param.empty()) {
    EXPECT_TRUE(err["param"].is_null()) << e.json;
  } else {
    EXPECT_EQ(err["param"], param) << e.json;
  }
  EXPECT_EQ(e.param, param);
  ASSERT_TRUE(err["message"].is_string());
  EXPECT_EQ(err["message"].get<std::string>(), e.message);
  EXPECT_FALSE(e.message.empty());
}

// A calculator that needs a figure the chip lacks names it as the error's "field", a field of the
// chip schema (the memory ladder shows its words); other refusals have none.
TEST(Validation, AMissingChipFigureIsNamedAsAField) {
  json chip_fields = json::parse(scalelab::object_fields_json("chip"));
  auto is_chip_field = [&](const std::string& name) {
    for (const json& f : chip_fields) {
      if (f.at("name") == name) return true;
    }
    return false;
  };
  for (auto [chip, path, field] : {std::tuple{"tpu-v5e", "nvlink", "nvlink_bytes_per_s"},
                                   std::tuple{"h100", "ici", "ici_link_bytes_per_s"}}) {
    Evaluation e = eval("transfer", std::string(R"({"bytes": 1e9, "chip": ")") + chip + R"(", "path": ")" + path + "\"}");
    expect_error_shape(e, "chip");
    json err = json::parse(e.json)["error"];
    EXPECT_EQ(err.value("field", ""), field) << e.json;
    EXPECT_TRUE(is_chip_field(field)) << field;
    EXPECT_NE(e.message.find(std::string("(chip_overrides.") + field + ")"), std::string::npos) << e.message;
  }
  EXPECT_FALSE(json::parse(eval("transfer", R"({"bytes": -1})").json)["error"].contains("field"));
  // A sweep's refused points name it too.
  Evaluation s = scalelab::sweep("transfer", R"({"chip": "tpu-v5e", "path": "nvlink"})",
                                 R"({"x": {"param": "bytes", "values": [1e6, 1e9]}})");
  ASSERT_EQ(s.status, Status::ok) << s.json;
  json errors = json::parse(s.json).at("errors");
  ASSERT_EQ(errors.size(), 2u) << s.json;
  for (const json& e : errors) EXPECT_EQ(e.value("field", ""), "nvlink_bytes_per_s") << s.json;
}

TEST(Validation, UnknownKeyIsAnErrorNamingIt) {
  Evaluation e = eval("transfer", R"({"bytes": 1e9, "byts": 2})");
  expect_error_shape(e, "byts");
  EXPECT_EQ(e.status, Status::bad_input);
  EXPECT_NE(e.message.find("unknown parameter"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("bytes"), std::string::npos) << "lists the allowed names: " << e.message;
}

// The first unknown key in the order given is the one named, among a few members and among more
// members than any schema has fields (the two ways validation finds where each member stands).
TEST(Validation, TheFirstUnknownKeyIsNamedAmongFewOrManyMembers) {
  expect_error_shape(eval("decode", R"({"model": "llama2-13b", "batch": 8, "zeta": 1, "alpha": 2})"), "zeta");
  std::string many = R"({"model": "llama2-13b", "batch": 8)";
  for (int i = 0; i < 80; ++i) many += ", \"p" + std::to_string(i) + "\": " + std::to_string(i);
  expect_error_shape(eval("decode", many + "}"), "p0");
}

TEST(Validation, NestedUnknownKeyHasDottedPath) {
  Evaluation e = eval("roofline", R"({"matmul": {"B": 1, "D": 2, "F": 3, "Q": 4}})");
  expect_error_shape(e, "matmul.Q");
}

TEST(Validation, NullIsATypeErrorNotTheDefault) {
  Evaluation e = eval("transfer", R"({"chips": null})");
  expect_error_shape(e, "chips");
  EXPECT_NE(e.message.find("null"), std::string::npos) << e.message;
}

TEST(Validation, WrongTypes) {
  expect_error_shape(eval("transfer", R"({"bytes": "1e9"})"), "bytes");
  expect_error_shape(eval("transfer", R"({"bytes": true})"), "bytes");
  expect_error_shape(eval("transfer", R"({"bytes": [1]})"), "bytes");
  expect_error_shape(eval("transfer", R"({"bytes": {"v": 1}})"), "bytes");
  expect_error_shape(eval("transfer", R"({"path": 3})"), "path");
  expect_error_shape(eval("roofline", R"({"matmul": 3})"), "matmul");
  expect_error_shape(eval("chip", R"({"chip": 3})"), "chip");
}

TEST(Validation, RangesAndWholeNumbers) {
  Evaluation zero = eval("transfer", R"({"chips": 0})");
  expect_error_shape(zero, "chips");
  EXPECT_NE(zero.message.find("got 0"), std::string::npos) << "says what it got: " << zero.message;
  EXPECT_NE(zero.message.find("1"), std::string::npos) << "says what is allowed: " << zero.message;
  expect_error_shape(eval("transfer", R"({"chips": -1})"), "chips");
  expect_error_shape(eval("transfer", R"({"chips": 1e308})"), "chips");
  expect_error_shape(eval("transfer", R"({"chips": 2.5})"), "chips");
  expect_error_shape(eval("transfer", R"({"bytes": -1})"), "bytes");
  expect_error_shape(eval("transfer", R"({"bytes": 1e21})"), "bytes");
  // the edges themselves are accepted
  EXPECT_EQ(eval("transfer", R"({"chips": 1})").status, Status::ok);
  EXPECT_EQ(eval("transfer", R"({"bytes": 0})").status, Status::ok);
  EXPECT_EQ(eval("transfer", R"({"bytes": 1e20})").status, Status::ok);
}

TEST(Validation, NonFiniteNumbersAreRefused) {
  // JSON has no NaN or Infinity: as text they are malformed; 1e400 overflows.
  for (const char* text : {R"({"bytes": NaN})", R"({"bytes": Infinity})", R"({"bytes": -Infinity})",
                           R"({"bytes": nan})", R"({"bytes": inf})"}) {
    Evaluation e = eval("transfer", text);
    expect_error_shape(e, "");
    EXPECT_NE(e.message.find("malformed JSON"), std::string::npos) << text << ": " << e.message;
  }
  for (const char* text : {R"({"bytes": 1e400})", R"({"bytes": -1e400})"}) {
    Evaluation e = eval("transfer", text);
    expect_error_shape(e, "");
    EXPECT_NE(e.message.find("too large"), std::string::npos) << text << ": " << e.message;
  }
}

TEST(Validation, MalformedJson) {
  for (const char* text : {"{", "}", "{\"bytes\": }", "{\"bytes\" 1}", "{'bytes': 1}", "{bytes: 1}",
                           "{\"bytes\": 1,}", "{\"bytes\": 1} trailing", "nul", "\"unterminated",
                           "{\"bytes\": 01}", "{\"bytes\": .5}", "{\"bytes\": 1e}"}) {
    Evaluation e = eval("transfer", text);
    expect_error_shape(e, "");
    EXPECT_EQ(e.status, Status::bad_input);
    EXPECT_NE(e.message.find("malformed JSON"), std::string::npos) << text << ": " << e.message;
  }
}

TEST(Validation, InputMustBeAnObject) {
  for (const char* text : {"[]", "[1]", "1", "\"roofline\"", "true", "null"}) {
    Evaluation e = eval("chip", text);
    expect_error_shape(e, "");
    EXPECT_NE(e.message.find("must be a JSON object"), std::string::npos) << text << ": " << e.message;
  }
}

TEST(Validation, EmptyInputMeansAllDefaults) {
  EXPECT_EQ(eval("transfer", "").status, Status::ok);
  EXPECT_EQ(eval("transfer", "  \n\t ").status, Status::ok);
  EXPECT_EQ(eval("transfer", "{}").status, Status::ok);
}

std::string nested(int depth) {
  std::string s = "{\"bytes\": 1, \"x\": ";
  for (int i = 0; i < depth - 1; ++i) s += "[";
  s += "0";
  for (int i = 0; i < depth - 1; ++i) s += "]";
  return s + "}";
}

TEST(Validation, TooDeep) {
  Evaluation deep = eval("transfer", nested(scalelab::kMaxInputDepth + 1));
  expect_error_shape(deep, "");
  EXPECT_NE(deep.message.find("deeper than 32"), std::string::npos) << deep.message;
  // at the limit the depth check passes (the unknown key "x" is then refused)
  Evaluation at_limit = eval("transfer", nested(scalelab::kMaxInputDepth));
  expect_error_shape(at_limit, "x");
  // brackets inside strings do not count
  Evaluation in_string = eval("transfer", "{\"path\": \"" + std::string(100, '[') + "\"}");
  expect_error_shape(in_string, "path");
  Evaluation very_deep = eval("transfer", std::string(100000, '['));
  EXPECT_EQ(very_deep.status, Status::bad_input);
}

TEST(Validation, TooLarge) {
  std::string valid = R"({"bytes": 1e9})";
  std::string at_limit = valid + std::string(scalelab::kMaxInputBytes - valid.size(), ' ');
  ASSERT_EQ(at_limit.size(), scalelab::kMaxInputBytes);
  EXPECT_EQ(eval("transfer", at_limit).status, Status::ok);
  Evaluation over = eval("transfer", at_limit + " ");
  expect_error_shape(over, "");
  EXPECT_NE(over.message.find("64 KiB"), std::string::npos) << over.message;
}

TEST(Validation, UnknownCalculator) {
  Evaluation e = eval("no_such_calculator", "{}");
  EXPECT_EQ(e.status, Status::unknown_calculator);
  expect_error_shape(e, "");
  EXPECT_NE(e.message.find("roofline"), std::string::npos) << "lists what exists: " << e.message;
  EXPECT_EQ(eval("", "{}").status, Status::unknown_calculator);
  EXPECT_EQ(eval("ROOFLINE", "{}").status, Status::unknown_calculator);
  EXPECT_EQ(eval(std::string(10000, 'x'), "{}").status, Status::unknown_calculator);
}

// Text that is not UTF-8 must give an error, never an exception or a crash.
TEST(Validation, InvalidUtf8IsAnErrorNotACrash) {
  for (const std::string& text : {std::string("{\"chip\": \"\xff\"}"), std::string("{\"\xc3\x28\": 1}"),
                                  std::string("\xff\xfe"), std::string("{\"path\": \"\xed\xa0\x80\"}")}) {
    Evaluation e;
    ASSERT_NO_THROW(e = eval("transfer", text));
    EXPECT_EQ(e.status, Status::bad_input);
    EXPECT_NO_THROW(json::parse(e.json)) << "the error is valid JSON";
  }
  Evaluation bad_name;
  ASSERT_NO_THROW(bad_name = eval("x\xff", "{}"));
  EXPECT_EQ(bad_name.status, Status::unknown_calculator);
  EXPECT_NO_THROW(json::parse(bad_name.json));
}

TEST(Validation, ChipOverridesNeedValidFields) {
  expect_error_shape(eval("chip", R"({"chip_overrides": {"hbm_bytes_per_s": 0}})"),
                     "chip_overrides.hbm_bytes_per_s");
  expect_error_shape(eval("chip", R"({"chip_overrides": {"nonsense": 1}})"), "chip_overrides.nonsense");
  expect_error_shape(eval("chip", R"({"chip_overrides": {"flops_per_s": {"fp64": 1}}})"),
                     "chip_overrides.flops_per_s.fp64");
}

TEST(Validation, CatalogGapsAreErrorsSuggestingAnOverride) {
  // A custom chip without HBM bandwidth: roofline over HBM cannot run and says why.
  Evaluation e = eval("roofline", R"({"chip": {"kind": "tpu", "flops_per_s": {"bf16": 1e14}},
                                     "flops": 1e9, "bytes": 1e6})");
  expect_error_shape(e, "chip");
  EXPECT_NE(e.message.find("hbm_bytes_per_s"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("chip_overrides"), std::string::npos) << e.message;
}

TEST(Validation, ErrorsAreDeterministic) {
  for (const char* text : {"{", R"({"chips": 0})", R"({"zz": 1})"}) {
    EXPECT_EQ(eval("transfer", text).json, eval("transfer", text).json);
  }
}

}  // namespace
