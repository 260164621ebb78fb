// format_quantity and output_unit (from the declared outputs): the one formatter every front uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/format.hpp"
#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::format_quantity;
using scalelab::output_unit;
using scalelab::testing::json;

TEST(FormatQuantity, BookExamples) {
  EXPECT_EQ(format_quantity(1.39e-3, "s"), "1.39 ms");
  EXPECT_EQ(format_quantity(1.4e11, "bytes"), "140 GB");
  EXPECT_EQ(format_quantity(1.97e14, "FLOP/s"), "197 TFLOP/s");
  EXPECT_EQ(format_quantity(8.2e11, "bytes/s"), "820 GB/s");
  EXPECT_EQ(format_quantity(4.5e10, "bytes/s"), "45 GB/s");
}

TEST(FormatQuantity, SecondsUseSubUnitsAndClockUnits) {
  EXPECT_EQ(format_quantity(2.5e-9, "s"), "2.5 ns");
  EXPECT_EQ(format_quantity(4.5e-6, "s"), "4.5 µs");
  EXPECT_EQ(format_quantity(0.25, "s"), "250 ms");
  EXPECT_EQ(format_quantity(12, "s"), "12 s");
  EXPECT_EQ(format_quantity(90, "s"), "1.5 min");
  EXPECT_EQ(format_quantity(7200, "s"), "2 h");
  EXPECT_EQ(format_quantity(3 * 86400, "s"), "3 days");
  EXPECT_EQ(format_quantity(-1.39e-3, "s"), "-1.39 ms");
  // no kiloseconds
  EXPECT_EQ(format_quantity(59, "s"), "59 s");
}

// Issue 34: a run of days shorter than a day is said in its natural unit (a consumer GPU's
// training-pod figure read "3.62 × 10⁻⁵ days"); a day or more stays in days.
TEST(FormatQuantity, DaysUnderADayUseTheirNaturalUnit) {
  EXPECT_EQ(format_quantity(3.62e-5, "days"), "3.13 s");
  EXPECT_EQ(format_quantity(0.01, "days"), "14.4 min");
  EXPECT_EQ(format_quantity(0.5, "days"), "12 h");
  EXPECT_EQ(format_quantity(2, "days"), "2 days");
  EXPECT_EQ(format_quantity(3643, "days"), "3,643 days");
}

TEST(FormatQuantity, ZeroAndNonFinite) {
  EXPECT_EQ(format_quantity(0, "s"), "0 s");
  EXPECT_EQ(format_quantity(0, "bytes"), "0 B");
  EXPECT_EQ(format_quantity(std::numeric_limits<double>::quiet_NaN(), "s"), "—");
  EXPECT_EQ(format_quantity(std::numeric_limits<double>::infinity(), "bytes"), "—");
  EXPECT_EQ(format_quantity(-std::numeric_limits<double>::infinity(), ""), "—");
}

TEST(FormatQuantity, CountsRatiosAndMoney) {
  EXPECT_EQ(format_quantity(240.243902439, "FLOPs/byte"), "240 FLOPs/byte");
  EXPECT_EQ(format_quantity(0.5, ""), "0.5");
  EXPECT_EQ(format_quantity(7e10, "params"), "70B params");
  EXPECT_EQ(format_quantity(12.5, "usd"), "$12.5");
}

TEST(FormatQuantity, APluralNounIsSingularAfterOne) {
  EXPECT_EQ(format_quantity(1, "chips"), "1 chip");
  EXPECT_EQ(format_quantity(2, "chips"), "2 chips");
  EXPECT_EQ(format_quantity(1, "tokens"), "1 token");
  EXPECT_EQ(format_quantity(1, "sequences"), "1 sequence");
  EXPECT_EQ(format_quantity(0, "sequences"), "0 sequences");
  EXPECT_EQ(format_quantity(1.5, "chips"), "1.5 chips");
  EXPECT_EQ(format_quantity(1, "tokens/s"), "1 tokens/s");
}

TEST(FormatQuantity, ARatePerSecondWithoutANoun) {
  EXPECT_EQ(format_quantity(2.5, "1/s"), "2.5/s");
}

// A rate below one per second is said per minute, hour or day, as people count slow events.
TEST(FormatQuantity, ASlowRateIsSaidPerMinuteHourOrDay) {
  EXPECT_EQ(format_quantity(0.0961, "1/s"), "5.77/min");
  EXPECT_EQ(format_quantity(0.001, "1/s"), "3.6/h");
  EXPECT_EQ(format_quantity(1e-5, "1/s"), "0.864/day");
  // a rate of things names them: "5.77 responses/min", not a bare "5.77/min"
  EXPECT_EQ(format_quantity(0.0961, "responses/s"), "5.77 responses/min");
  EXPECT_EQ(format_quantity(0.001, "responses/s"), "3.6 responses/h");
  EXPECT_EQ(format_quantity(2.5, "responses/s"), "2.5 responses/s");
  EXPECT_EQ(format_quantity(1, "responses/s"), "1 response/s");
}

TEST(FormatQuantity, AShareIsAPercentAndChipHoursAreNamed) {
  EXPECT_EQ(format_quantity(0.0707, "share"), "7.07 %");
  EXPECT_EQ(format_quantity(4.45e6, "chip-hours"), "4.45 million chip-hours");
}

TEST(FormatQuantity, CountsUseThousandsSeparatorsThenWords) {
  EXPECT_EQ(format_quantity(2400, "count"), "2,400");
  EXPECT_EQ(format_quantity(8960, "count"), "8,960");
  EXPECT_EQ(format_quantity(1, "count"), "1");
  EXPECT_EQ(format_quantity(240, "tokens"), "240 tokens");
  EXPECT_EQ(format_quantity(999.7, "tokens"), "1,000 tokens");  // rounds up into the next form
  EXPECT_EQ(format_quantity(131072, "tokens"), "131,072 tokens");
  EXPECT_EQ(format_quantity(1.5e13, "tokens"), "15T tokens");
  EXPECT_EQ(format_quantity(2400, "tokens/s"), "2,400 tokens/s");
  EXPECT_EQ(format_quantity(-2400, "count"), "-2,400");
  // units the formatter does not prefix: chips, sequences, FLOPs/byte
  EXPECT_EQ(format_quantity(1800, "chips"), "1,800 chips");
  EXPECT_EQ(format_quantity(1920, "sequences"), "1,920 sequences");
  EXPECT_EQ(format_quantity(2194.3, "FLOPs/byte"), "2,194 FLOPs/byte");
  EXPECT_EQ(format_quantity(2.24e7, "h"), "22.4 million h");
  // Whole numbers keep their digits up to the last that does not round to a million.
  EXPECT_EQ(format_quantity(999499, "chips"), "999,499 chips");
  EXPECT_EQ(format_quantity(999500, "chips"), "1 million chips");
  EXPECT_EQ(format_quantity(999499, "tokens"), "999,499 tokens");
  EXPECT_EQ(format_quantity(999500, "tokens"), "1M tokens");
  EXPECT_EQ(format_quantity(-999, "sequences"), "-999 sequences");
  EXPECT_EQ(format_quantity(-0.0, "count"), "0");
}

TEST(FormatQuantity, PlainNumbersReadAsWords) {
  EXPECT_EQ(format_quantity(3640, ""), "3,640");
  EXPECT_EQ(format_quantity(2.24e7, ""), "22.4 million");
  EXPECT_EQ(format_quantity(1.55e9, "ratio"), "1.55 billion");
  EXPECT_EQ(format_quantity(3e12, ""), "3 trillion");
  EXPECT_EQ(format_quantity(999.96e6, ""), "1 billion");
  EXPECT_EQ(format_quantity(6.35e24, ""), "6.35 × 10²⁴");
  EXPECT_EQ(format_quantity(1e-7, ""), "10⁻⁷");
  EXPECT_EQ(format_quantity(0.000123, ""), "0.000123");
}

TEST(FormatQuantity, LongDurationsInDaysThenYears) {
  EXPECT_EQ(format_quantity(104 * 86400, "s"), "104 days");
  EXPECT_EQ(format_quantity(700 * 86400, "s"), "700 days");
  EXPECT_EQ(format_quantity(10 * 365.25 * 86400, "s"), "10 years");
  EXPECT_EQ(format_quantity(3640 * 365.25 * 86400, "s"), "3,640 years");
  EXPECT_EQ(format_quantity(2e6 * 365.25 * 86400, "s"), "2 million years");
}

TEST(FormatQuantity, DollarsWithThousandsThenMillionsAndBillions) {
  EXPECT_EQ(format_quantity(0.42, "usd"), "$0.42");
  EXPECT_EQ(format_quantity(12500, "usd"), "$12,500");
  EXPECT_EQ(format_quantity(2.69e7, "usd"), "$26.9 M");
  EXPECT_EQ(format_quantity(1.55e8, "USD"), "$155 M");
  EXPECT_EQ(format_quantity(1.55e9, "usd"), "$1.55 B");
  EXPECT_EQ(format_quantity(-2.69e7, "usd"), "-$26.9 M");
  EXPECT_EQ(format_quantity(0, "usd"), "$0");
}

TEST(FormatQuantity, HugeQuantitiesUsePowersOfTenNotExoticPrefixes) {
  EXPECT_EQ(format_quantity(6.35e24, "FLOPs"), "6.35 × 10²⁴ FLOPs");
  EXPECT_EQ(format_quantity(1e21, "FLOPs"), "10²¹ FLOPs");
  EXPECT_EQ(format_quantity(3.2e18, "FLOP/s"), "3.2 × 10¹⁸ FLOP/s");
  EXPECT_EQ(format_quantity(4.59e17, "FLOP/s"), "459 PFLOP/s");
  EXPECT_EQ(format_quantity(2e15, "FLOPs"), "2 PFLOPs");
  EXPECT_EQ(format_quantity(5e19, "bytes"), "5 × 10¹⁹ B");
}

// Whatever the value and unit, the formatter returns short, non-empty text without
// "nan"/"inf", and it is deterministic.
TEST(FormatQuantity, TotalOverMagnitudesAndUnits) {
  const char* units[] = {"s", "bytes", "bytes/s", "FLOPs", "FLOP/s", "FLOPs/byte", "count",
                         "tokens", "params", "tokens/s", "usd", "ratio", "Hz", "", "1/s", "days"};
  for (const char* unit : units) {
    for (int exp = -30; exp <= 30; ++exp) {
      for (double sign : {1.0, -1.0}) {
        double v = sign * 1.2345 * std::pow(10.0, exp);
        std::string text = format_quantity(v, unit);
        EXPECT_FALSE(text.empty()) << v << " " << unit;
        EXPECT_LT(text.size(), 40u) << text;
        EXPECT_EQ(text.find("nan"), std::string::npos) << text;
        EXPECT_EQ(text.find("inf"), std::string::npos) << text;
        EXPECT_EQ(text.find("e+"), std::string::npos) << text;  // never C's scientific notation
        EXPECT_EQ(text.find("e-"), std::string::npos) << text;
        EXPECT_EQ(text, format_quantity(v, unit));
      }
    }
  }
}

TEST(OutputUnit, ComesFromTheDeclaration) {
  EXPECT_EQ(output_unit("roofline", "t_math_s"), "s");
  EXPECT_EQ(output_unit("decode", "kv_bytes_per_sequence"), "bytes");
  EXPECT_EQ(output_unit("decode", "critical_batch"), "sequences");
  EXPECT_EQ(output_unit("serving", "throughput_tokens_per_s"), "tokens/s");
  EXPECT_EQ(output_unit("chip", "critical_intensity"), "FLOPs/byte");
  EXPECT_EQ(output_unit("chip", "hbm_bytes_per_s"), "bytes/s");  // a chip field, from chip_fields
  EXPECT_EQ(output_unit("roofline", "bound"), "");
}

TEST(OutputUnit, NestedPathsTakeTheirOutputsUnitAndUnknownNamesHaveNone) {
  EXPECT_EQ(output_unit("chip", "flops_per_s.bf16"), "FLOP/s");
  EXPECT_EQ(output_unit("collective", "levels[0].t_s"), "");
  EXPECT_EQ(output_unit("roofline", "no_such_output"), "");
  EXPECT_EQ(output_unit("no_such_calculator", "t_s"), "");
}

// The API's naming convention (API.md: a suffix names the unit) holds for every declaration.
TEST(OutputUnit, DeclarationsFollowTheNamingConvention) {
  auto ends = [](const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  json all = json::parse(scalelab::calculators_json());
  for (const json& c : all["calculators"]) {
    for (const json& o : c["outputs"]) {
      std::string name = o["name"], unit = o["unit"];
      std::string where = c["name"].get<std::string>() + "." + name;
      std::string expected = ends(name, "_bytes_per_s")    ? "bytes/s"
                             : ends(name, "_flops_per_s")  ? "FLOP/s"
                             : ends(name, "_tokens_per_s") ? "tokens/s"
                             : ends(name, "_bytes")        ? "bytes"
                             : ends(name, "_usd") && !ends(name, "_per_usd") ? "usd"
                             : ends(name, "_s") && !ends(name, "_per_s") ? "s"
                                                                         : unit;
      EXPECT_EQ(unit, expected) << where;
    }
  }
}

}  // namespace

// printf_format writes most numbers from their shortest digits, rounded: it must give printf's
// bytes for every value, at every precision the formatting uses and beyond. Random doubles of
// every exponent, values of the decades results hold, and decimals on and next to the midpoints
// of each precision (1.2345, 0.00125, 2.5e-5 and their neighbours), where rounding is decided.
TEST(Format, PrintfFormatIsPrintf) {
  std::mt19937_64 random(5);
  int mismatches = 0;
  auto check = [&](double v) {
    for (char conversion : {'e', 'f', 'g'}) {
      for (int precision : {0, 1, 2, 3, 4, 6, 9, 10, 11, 12, 15}) {
        if (conversion == 'f' && std::fabs(v) > 1e30) continue;
        std::array<char, 512> buf{};
        const char pattern[] = {'%', '.', '*', conversion, '\0'};
        std::snprintf(buf.data(), buf.size(), pattern, precision, v);
        std::string got = scalelab::printf_format(v, precision, conversion);
        if (got != buf.data() && ++mismatches <= 10) {
          ADD_FAILURE() << std::hexfloat << v << std::defaultfloat << " %." << precision << conversion << ": "
                        << got << " against printf's " << buf.data();
        }
      }
    }
  };
  for (int i = 0; i < 30000; ++i) {
    std::uint64_t bits = random();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (std::isfinite(v)) check(v);
  }
  std::uniform_real_distribution<double> unit(1, 10);
  std::uniform_int_distribution<int> decade(-12, 20), digits(1, 13);
  for (int i = 0; i < 30000; ++i) check(unit(random) * std::pow(10.0, decade(random)) * (i % 2 ? 1 : -1));
  for (int i = 0; i < 30000; ++i) {
    std::string mantissa = std::to_string(std::uniform_int_distribution<long long>(1, 999999999999LL)(random));
    mantissa.resize(static_cast<std::size_t>(std::min<int>(digits(random), static_cast<int>(mantissa.size()))));
    double v = std::strtod((mantissa + "5e" + std::to_string(decade(random))).c_str(), nullptr);
    check(v);
    check(std::nextafter(v, 0.0));
    check(std::nextafter(v, 1e300));
  }
  for (double v : {0.0, -0.0, 9.9995, 9.9994999999, 999.95, 0.00125, 2.5e-5, 1e-3, 0.5, 1.5, 2.5, 1e22, 1e-300, 5e-324,
                   1.7976931348623157e308, 0.1, 0.3, 123456.5, 0.99999999, 9.5, 99.5}) {
    check(v);
  }
  EXPECT_EQ(mismatches, 0);
}

// A number in a substituted formula, by its definition in printf's terms (format.hpp): the engine
// writes it from the shortest digits where they decide, and must give these bytes everywhere.
std::string tex_by_printf(double v) {
  if (v == 0) return "0";
  std::array<char, 512> buf{};
  double m = std::fabs(v);
  if (m >= 1e-3 && m < 1e6) {
    if (std::floor(v) == v) return std::to_string(static_cast<long long>(v));
    int decimals = std::max(0, 3 - static_cast<int>(std::floor(std::log10(m))));
    std::snprintf(buf.data(), buf.size(), "%.*f", decimals, v);
    std::string s = buf.data();
    if (s.find('.') != std::string::npos) {
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
    }
    return s;
  }
  std::snprintf(buf.data(), buf.size(), "%.3e", v);
  std::string s = buf.data();
  std::string mantissa = s.substr(0, s.find('e'));
  int exponent = std::atoi(s.c_str() + s.find('e') + 1);
  while (mantissa.back() == '0') mantissa.pop_back();
  if (mantissa.back() == '.') mantissa.pop_back();
  std::string power = "10^{" + std::to_string(exponent) + "}";
  if (mantissa == "1") return "{" + power + "}";
  if (mantissa == "-1") return "{-" + power + "}";
  return "{" + mantissa + "\\times" + power + "}";
}

TEST(Format, TexNumbersAreTheirPrintfDefinition) {
  std::mt19937_64 random(9);
  std::uniform_real_distribution<double> unit(1, 10);
  std::uniform_int_distribution<int> decade(-20, 25);
  int mismatches = 0;
  auto check = [&](double v) {
    if (scalelab::tex(v) != tex_by_printf(v) && ++mismatches <= 10) {
      ADD_FAILURE() << std::hexfloat << v << ": " << scalelab::tex(v) << " against " << tex_by_printf(v);
    }
  };
  for (int i = 0; i < 100000; ++i) {
    double v = unit(random) * std::pow(10.0, decade(random)) * (i % 3 == 0 ? -1 : 1);
    check(v);
    check(std::round(v));
    check(std::nextafter(v, 0.0));
  }
  for (double v : {0.0012345, 9.9995e-4, 0.00099995, 999999.5, 999.95, 1e6, 1e-3, 123456.25, 0.5, 1e300, -2.5e-7}) check(v);
  EXPECT_EQ(mismatches, 0);
}

// A value's TeX is kept for the next time it is written (a slot per value's bits, by which \\times):
// written again and again, in both forms, among values that take its slot, it is the same text.
TEST(Format, TexNumbersWrittenAgainAreTheSame) {
  std::mt19937_64 random(10);
  std::uniform_real_distribution<double> unit(1, 10);
  std::uniform_int_distribution<int> decade(-12, 20);
  std::vector<double> values;
  for (int i = 0; i < 300; ++i) values.push_back(unit(random) * std::pow(10.0, decade(random)) * (i % 4 == 0 ? -1 : 1));
  values.insert(values.end(), {0.0, -0.0, 1e6, 999999.5, 1e-3, 0.00099995});
  int mismatches = 0;
  for (int round = 0; round < 20; ++round) {
    std::shuffle(values.begin(), values.end(), random);
    for (double v : values) {
      const std::string expected = tex_by_printf(v);
      std::string json_form;
      scalelab::append_json_tex(v, json_form);
      std::string escaped = expected;
      for (std::size_t at = escaped.find('\\'); at != std::string::npos; at = escaped.find('\\', at + 2)) escaped.insert(at, 1, '\\');
      if ((scalelab::tex(v) != expected || json_form != escaped) && ++mismatches <= 10) {
        ADD_FAILURE() << std::hexfloat << v << ": " << scalelab::tex(v) << " / " << json_form << " against " << expected;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}
