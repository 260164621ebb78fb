// read_plain_json builds what json::parse builds, number kinds included, for every text it
// accepts, and leaves to json::parse every text outside plain JSON: the cases' requests (written
// compactly and indented), the bad-input matrix, edge numbers, escapes, UTF-8, repeated keys and
// 20,000 texts cut and mutated from the cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "io/plain_json.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::json;

// Equal values of equal kinds, member order included (json's == takes 8 and 8.0 for equal).
bool same(const json& a, const json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object() || a.is_array()) {
    if (a.size() != b.size()) return false;
    auto ia = a.begin();
    for (auto ib = b.begin(); ib != b.end(); ++ia, ++ib) {
      if (a.is_object() && ia.key() != ib.key()) return false;
      if (!same(ia.value(), ib.value())) return false;
    }
    return true;
  }
  if (a.is_number_float()) {  // bit for bit: -0.0 is not 0.0
    const double x = a.get<double>(), y = b.get<double>();
    return x == y && std::signbit(x) == std::signbit(y);
  }
  return a == b;
}

// What read_plain_json did with `text`: "plain" (and agreed with json::parse), or "left" to it.
std::string outcome(const std::string& text) {
  json plain;
  if (!scalelab::read_plain_json(text, plain)) return "left";
  json parsed;
  try {
    parsed = json::parse(text);
  } catch (const json::exception& e) {
    return std::string("read, but json::parse refuses it: ") + e.what();
  }
  return same(plain, parsed) ? "plain" : "read differently: " + plain.dump() + " vs " + parsed.dump();
}

bool ascii_without_escapes(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte >= 0x20 && byte < 0x80 && c != '\\') || c == '\n';
  });
}

TEST(PlainJson, EveryCaseRequestIsReadAsJsonParseReadsIt) {
  int plain = 0;
  for (const auto& c : scalelab::testing::cases()) {
    for (const std::string& text : {c.raw["params"].dump(), c.raw["params"].dump(2)}) {
      // A case that writes book notation (x subscripted with a UTF-8 letter) is for json::parse.
      const bool expected_plain = ascii_without_escapes(text);
      EXPECT_EQ(outcome(text), expected_plain ? "plain" : "left") << c.id;
      plain += expected_plain;
    }
  }
  EXPECT_GT(plain, 400);
}

TEST(PlainJson, EdgeNumbersKeepTheKindAndValueJsonParseGives) {
  for (const char* text : {"0", "-0", "-0.0", "0.0", "8", "-8", "8.0", "1e3", "1E+3", "1e-3", "-1.5e-300",
                           "18446744073709551615", "-9223372036854775808", "9223372036854775808",
                           "4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308",
                           "0.1", "123456789012345678901234567890e-10", "[1, -2, 3.5, true, false, null]",
                           "{\"a\": {\"b\": [{}, []]}}", "  {\"batch\" :\t32\r\n}  "}) {
    EXPECT_EQ(outcome(text), "plain") << text;
  }
}

TEST(PlainJson, LeavesEverythingElseToJsonParse) {
  for (const char* text : {"18446744073709551616", "-9223372036854775809", "1e400", "-1e400", "01", "1.", ".5",
                           "-", "+1", "1e", "1e+", "0x10", "NaN", "Infinity", "tru", "nul", "{\"a\": 1,}",
                           "[1,]", "{\"a\" 1}", "{\"a\": 1} x", "{\"a\": 1}{}", "{\"a\": 1, \"a\": 2}",
                           "\"tab\\tescaped\"", "\"caf\xc3\xa9\"", "\"\x01\"", "\"unterminated", "{'a': 1}",
                           "{\"a\": 1", "[", "", " ", "/* no */ {}", "\xef\xbb\xbf{}"}) {
    EXPECT_EQ(outcome(text), "left") << text;
  }
}

TEST(PlainJson, TheBadInputMatrixIsReadOnlyWhereJsonParseAgrees) {
  for (const auto& b : scalelab::testing::bad_inputs()) {
    std::string result = outcome(b.input);
    EXPECT_TRUE(result == "plain" || result == "left") << b.id << ": " << result;
  }
}

TEST(PlainJson, MutatedRequestsAreReadOnlyWhereJsonParseAgrees) {
  std::vector<std::string> seeds;
  for (const auto& c : scalelab::testing::cases()) seeds.push_back(c.raw["params"].dump());
  const std::string alphabet = "{}[]:,\" -+.eE0123456789tfnul\\\t\nabc\x7f\x80";
  std::mt19937 random(20261203);
  int plain = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text = seeds[random() % seeds.size()];
    for (int edits = 1 + static_cast<int>(random() % 3); edits > 0 && !text.empty(); --edits) {
      const std::size_t at = random() % text.size();
      switch (random() % 3) {
        case 0: text[at] = alphabet[random() % alphabet.size()]; break;
        case 1: text.insert(at, 1, alphabet[random() % alphabet.size()]); break;
        default: text.erase(at, 1 + random() % 4); break;
      }
    }
    std::string result = outcome(text);
    ASSERT_TRUE(result == "plain" || result == "left") << text << "\n" << result;
    plain += result == "plain";
  }
  EXPECT_GT(plain, 2000);  // the mutations reach numbers and strings that stay valid
}

}  // namespace
