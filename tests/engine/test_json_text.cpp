// to_text writes the bytes json::dump(-1, ' ', false, replace) writes (each double with its
// shortest digits, where dump's grisu2 can give one or two more), for every result the engine gives (book cases, with and without steps; the bad-input matrix) and for strings that
// need escaping, UTF-8 and invalid bytes.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "json_text.hpp"
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
