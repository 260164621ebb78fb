// to_text writes the bytes json::dump(-1, ' ', false, replace) writes (each double with its
// shortest digits, where dump's grisu2 can give one or two more), for every result the engine gives (book cases, with and without steps; the bad-input matrix) and for strings that
// need escaping, UTF-8 and invalid bytes.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "core/result.hpp"
#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::json;

// What dump writes, each double with its shortest digits (the engine's rule, append_double).
std::string dumped(const json& j) { return scalelab::testing::shortest_dump(j); }

TEST(JsonText, EveryCaseResultIsWrittenAsDumpWritesIt) {
  int checked = 0;
  for (const auto& c : scalelab::testing::cases()) {
    std::string input = c.raw["params"].dump();
    for (bool steps : {true, false}) {
      scalelab::Evaluation e = scalelab::evaluate(c.calculator, input, scalelab::EvalOptions{.steps = steps});
      json parsed = json::parse(e.json);
      EXPECT_EQ(scalelab::to_text(parsed), dumped(parsed)) << c.id;
      EXPECT_EQ(scalelab::to_text(parsed), e.json) << c.id;
      ++checked;
    }
  }
  for (const auto& b : scalelab::testing::bad_inputs()) {
    json parsed = json::parse(scalelab::evaluate(b.calculator, b.input).json);
    EXPECT_EQ(scalelab::to_text(parsed), dumped(parsed)) << b.id;
  }
  EXPECT_GT(checked, 100);
}

// The inputs are echoed member by member (Args::append_inputs): plain scalars written in place,
// an object (a model given as one, with a name to escape) and integers past int64 in their turn.
TEST(JsonText, InputsThatNeedCareAreEchoedAsDumpWritesThem) {
  const std::pair<const char*, const char*> inputs[] = {
      {"roofline", R"({"chip": "h100", "flops": 10000000000000000000, "bytes": 18446744073709551615})"},
      {"decode", R"({"model": {"name": "my \"7B\" ≥ model\ttabbed", "L": 32, "D": 4096, "F": 14336, "N": 32,
                     "K": 8, "H": 128, "V": 128256}, "chip": "h100", "chips": 1, "batch": 1.0})"},
      {"decode", R"({"model": "llama2-13b", "chip": "tpu-v5e", "chip_overrides": {"hbm_bytes": 17179869184}, "chips": 8})"},
  };
  for (const auto& [calculator, input] : inputs) {
    scalelab::Evaluation e = scalelab::evaluate(calculator, input, scalelab::EvalOptions{.steps = false});
    ASSERT_EQ(e.status, scalelab::Status::ok) << e.message;
    json parsed = json::parse(e.json);
    EXPECT_EQ(scalelab::to_text(parsed), e.json) << input;
    EXPECT_NE(e.json.find("\"inputs\":" + dumped(parsed["inputs"]) + ","), std::string::npos) << input;
  }
}

TEST(JsonText, StringsAndNumbersThatNeedCare) {
  json j = {{"quote \" and \\ backslash", "tab\tnew\nline\x01\x1f"},
            {"utf8", "≥ 4096 × B ≪ D"},
            {"invalid", std::string("bad \xff\xfe bytes \xe2\x82")},
            {"del", std::string("\x7f")},
            {"numbers", {0, -1, 1e20, 1.5e-300, -0.0, 0.1, 123456789012345.0, std::numeric_limits<std::int64_t>::min(),
                         std::numeric_limits<std::uint64_t>::max(), std::numeric_limits<double>::max(),
                         std::numeric_limits<double>::infinity()}},
            {"empty", {{"object", json::object()}, {"array", json::array()}, {"string", ""}}},
            {"flags", {true, false, nullptr}}};
  EXPECT_EQ(scalelab::to_text(j), dumped(j));
}

}  // namespace

namespace {

// The plain-ASCII check reads eight bytes at a time: every byte value at every position of
// strings 1 to 19 bytes long (the others 'a' or '~', the edges of the plain range) is written as
// dump writes it.
TEST(JsonText, EveryByteAtEveryPositionIsWrittenAsDumpWritesIt) {
  for (std::size_t length = 1; length <= 19; ++length) {
    for (char fill : {'a', '~', ' '}) {
      for (std::size_t at = 0; at < length; ++at) {
        for (int byte = 0; byte < 256; ++byte) {
          std::string s(length, fill);
          s[at] = static_cast<char>(byte);
          json j = s;
          ASSERT_EQ(scalelab::to_text(j), dumped(j)) << "length " << length << ", byte " << byte << " at " << at;
        }
      }
    }
  }
}

// Seven-bit strings that need escaping (the TeX of the steps: backslashes, and any control
// character, several in one string) are escaped without nlohmann, so random ones are checked.
TEST(JsonText, RandomSevenBitStringsAreWrittenAsDumpWritesThem) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> length(0, 40), byte(0, 127), pick(0, 3);
  const std::string common = "\\\"{} ^_tex";
  for (int n = 0; n < 100000; ++n) {
    std::string s(static_cast<std::size_t>(length(rng)), ' ');
    for (char& c : s) c = pick(rng) == 0 ? static_cast<char>(byte(rng)) : common[static_cast<std::size_t>(byte(rng)) % common.size()];
    json j = s;
    ASSERT_EQ(scalelab::to_text(j), dumped(j)) << n;
  }
}

}  // namespace

// Well-formed UTF-8 is copied as it is without nlohmann; anything else still goes to nlohmann's
// replacement. Every pair of bytes, every lead byte with every second byte and the edges of the
// continuation range after it, and random mixes of valid sequences, stray bytes and escapes.
TEST(JsonText, Utf8IsWrittenAsDumpWritesIt) {
  for (int a = 0x80; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      for (int c : {0x20, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0}) {
        for (int d : {-1, 0x80, 0xbf, 0xc0, 0x41}) {
          std::string s = "x\\";
          s += static_cast<char>(a);
          s += static_cast<char>(b);
          s += static_cast<char>(c);
          if (d >= 0) s += static_cast<char>(d);
          json j = s;
          ASSERT_EQ(scalelab::to_text(j), dumped(j)) << std::hex << a << " " << b << " " << c << " " << d;
        }
      }
    }
  }
  std::mt19937 rng(11);
  const std::vector<std::string> pieces = {"a", "\\", "\"", "\n", "\x01", "\x7f", "\xc2\xb5", "\xc3\x97", "\xe2\x89\xa4",
                                           "\xe2\x80\x94", "\xf0\x9f\x98\x80", "\xed\x9f\xbf", "\xef\xbf\xbd", "\x80",
                                           "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x89", "\xff"};
  std::uniform_int_distribution<int> count(0, 12);
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  for (int n = 0; n < 100000; ++n) {
    std::string s;
    for (int k = count(rng); k > 0; --k) s += pieces[pick(rng)];
    json j = s;
    ASSERT_EQ(scalelab::to_text(j), dumped(j)) << n;
  }
}

// A warning's sentence is written straight into the result and then escaped in place
// (escape_tail): the same bytes as escaping it on its own, for the strings of the tests above
// after any prefix, and nothing changed for a plain one.
TEST(JsonText, TextEscapedInPlaceIsTextEscapedOnItsOwn) {
  const std::vector<std::string> pieces = {"plain words, 8 bytes", "\\", "\"", "\n", "\x01", "\x7f", "\xc2\xb5",
                                           "\xe2\x89\xa4", "\xf0\x9f\x98\x80", "\x80", "\xe2\x89", "\xff"};
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> count(0, 6);
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  for (int n = 0; n < 20000; ++n) {
    std::string text;
    for (int k = count(rng); k > 0; --k) text += pieces[pick(rng)];
    const std::string prefix = n % 2 ? "[\"done\"," : "";
    std::string expected = prefix;
    scalelab::append_escaped(text, expected);
    std::string out = prefix + text;
    scalelab::escape_tail(out, prefix.size());
    ASSERT_EQ(out, expected) << n;
  }
}

// A literal's form inside a JSON string is told at compile time (StepText): most read as they
// are, TeX with backslashes needs them doubled, and anything else is escaped at run time.
static_assert(scalelab::literal_form("") == scalelab::LiteralForm::as_is);
static_assert(scalelab::literal_form("B_{flip}") == scalelab::LiteralForm::as_is);
static_assert(scalelab::literal_form("\\text{KV}_{tok}") == scalelab::LiteralForm::backslashes_doubled);
static_assert(scalelab::literal_form("\\") == scalelab::LiteralForm::backslashes_doubled);
static_assert(scalelab::literal_form("a \"quoted\" \\word") == scalelab::LiteralForm::escaped_at_run_time);
static_assert(scalelab::literal_form("10 \xc3\x97 2") == scalelab::LiteralForm::escaped_at_run_time);
static_assert(scalelab::literal_form("tab\there") == scalelab::LiteralForm::escaped_at_run_time);
static_assert(scalelab::literal_form("del\x7f") == scalelab::LiteralForm::escaped_at_run_time);

namespace {

// Random strings of backslashes, quotes, braces, letters and a few other bytes, each written in
// the form literal_form gives it (and in the run-time form, which fits any text): what
// append_escaped writes.
TEST(JsonText, LiteralsWrittenInTheirFormAreWrittenAsAppendEscapedWritesThem) {
  std::mt19937 rng(13);
  const std::vector<std::string> pieces = {"a", "_{tok}", "\\", "\\\\", "\\text{", "}", " ", "\"", "\n", "\x7f", "\xc3\x97", "\xff"};
  std::uniform_int_distribution<int> count(0, 8);
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  int forms[3] = {0, 0, 0};
  for (int n = 0; n < 50000; ++n) {
    std::string s;
    for (int k = count(rng); k > 0; --k) s += pieces[pick(rng)];
    std::string expected = "x";
    scalelab::append_escaped(s, expected);
    const scalelab::LiteralForm form = scalelab::literal_form(s);
    ++forms[static_cast<int>(form)];
    std::string out = "x", general = "x";
    scalelab::append_literal(s, form, out);
    scalelab::append_literal(s, scalelab::LiteralForm::escaped_at_run_time, general);
    ASSERT_EQ(out, expected) << n;
    ASSERT_EQ(general, expected) << n;
  }
  for (int f : forms) EXPECT_GT(f, 1000);  // every form was met often
}

// A symbol, a label, a left-hand side and a unit given as literals (kept as views, written in
// their form) and as strings of the same text (copied, escaped at run time) write the same step;
// a symbol copied from a string no longer needs the string.
TEST(JsonText, StepTextFromALiteralWritesAsFromAString) {
  scalelab::StepList list;
  const scalelab::Steps log(&list, nullptr);
  auto symbol_tex = [](const scalelab::Expr& e) {
    std::string t;
    e.append_json_tex(t);
    return t;
  };
  scalelab::Expr from_literal = log.sym("\\text{KV}_{tok}", 2.5);
  auto owned = std::make_unique<std::string>("\\text{KV}_{tok}");
  scalelab::Expr from_string = log.sym(*owned, 2.5);
  owned->assign(64, 'z');
  owned.reset();
  EXPECT_EQ(symbol_tex(from_literal), "\\\\text{KV}_{tok}");
  EXPECT_EQ(symbol_tex(from_string), symbol_tex(from_literal));

  scalelab::Expr named_from_literal =
      log.step("Bytes \"per\" token \xe2\x80\x94 a \\check", "B^* \\approx", from_literal * from_string, "bytes");
  const std::string label = "Bytes \"per\" token \xe2\x80\x94 a \\check", lhs = "B^* \\approx", unit = "bytes";
  auto lhs_copy = std::make_unique<std::string>(lhs);
  scalelab::Expr named_from_string = log.step(label, *lhs_copy, from_literal * from_string, unit);
  lhs_copy.reset();
  EXPECT_EQ(symbol_tex(named_from_literal), "B^*");
  EXPECT_EQ(symbol_tex(named_from_string), "B^*");

  const json steps = json::parse("[" + list.text() + "]");
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0], steps[1]);
  EXPECT_EQ(steps[0]["label"], label);
  EXPECT_EQ(steps[0]["formula"], "B^* \\approx \\text{KV}_{tok} \\, \\text{KV}_{tok}");
  EXPECT_EQ(steps[0]["unit"], unit);
}

// TeX drops the space between juxtaposed factors: a word (\text{…}) beside another factor takes a
// thin space, or two words read as one ("capacityshare") and a word runs into a symbol
// ("reads_1"). Symbols alone still juxtapose with a plain space; the substitution multiplies by ×.
TEST(JsonText, AWordBesideAFactorIsSetApart) {
  scalelab::StepList list;
  const scalelab::Steps log(&list, nullptr);
  auto tex = [](const scalelab::Expr& e, bool substituted) {
    std::string t;
    if (substituted) e.append_json_substituted(t);
    else e.append_json_tex(t);
    return json::parse("\"" + t + "\"").get<std::string>();
  };
  scalelab::Expr capacity = log.sym("\\text{capacity}", 24e9), share = log.sym("\\text{share}", 0.9);
  scalelab::Expr s = log.sym("s_1", 0.5), W = log.sym("W_1", 1e12), B = log.sym("B", 4), D = log.sym("D", 8);
  EXPECT_EQ(tex(capacity * share, false), "\\text{capacity} \\, \\text{share}");
  EXPECT_EQ(tex(log.sym("\\text{read}", 8e9) * s / W, false), "\\text{read} \\, s_1 / W_1");
  EXPECT_EQ(tex(B * (D * log.sym("\\text{KV}_{tok}", 2)), false), "B D \\, \\text{KV}_{tok}");
  EXPECT_EQ(tex(2 * B * D, false), "2 B D");
  EXPECT_EQ(tex((B + D) * share, false), "(B + D) \\, \\text{share}");
  EXPECT_EQ(tex(capacity * share, true), "{2.4\\times10^{10}} \\times 0.9");
}

}  // namespace
