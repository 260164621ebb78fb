// format_quantity and output_unit: the one formatter every front uses.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "scalelab/engine.hpp"

namespace {

using scalelab::format_quantity;
using scalelab::output_unit;

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

TEST(OutputUnit, SuffixesNameUnits) {
  EXPECT_EQ(output_unit("t_s"), "s");
  EXPECT_EQ(output_unit("t_math_s"), "s");
  EXPECT_EQ(output_unit("hbm_bytes_per_s"), "bytes/s");
  EXPECT_EQ(output_unit("pod_flops_per_s"), "FLOP/s");
  EXPECT_EQ(output_unit("train_flops"), "FLOPs");
  EXPECT_EQ(output_unit("flops"), "FLOPs");
  EXPECT_EQ(output_unit("weight_bytes"), "bytes");
  EXPECT_EQ(output_unit("bytes"), "bytes");
  EXPECT_EQ(output_unit("cost_usd"), "usd");
  EXPECT_EQ(output_unit("cost_per_million_tokens_usd"), "usd");
  EXPECT_EQ(output_unit("tokens_per_s"), "tokens/s");
  EXPECT_EQ(output_unit("throughput_tokens_per_s"), "tokens/s");
  EXPECT_EQ(output_unit("clock_hz"), "Hz");
  EXPECT_EQ(output_unit("critical_intensity"), "FLOPs/byte");
  EXPECT_EQ(output_unit("bound"), "");
  EXPECT_EQ(output_unit("pod_chips"), "");
  EXPECT_EQ(output_unit(""), "");
}

TEST(OutputUnit, UnitsInsideNamesAndNestedPaths) {
  EXPECT_EQ(output_unit("flops_per_s.bf16"), "FLOP/s");
  EXPECT_EQ(output_unit("flops_per_s"), "FLOP/s");
  EXPECT_EQ(output_unit("flops_per_s_per_core"), "FLOP/s");
  EXPECT_EQ(output_unit("smem_bytes_total"), "bytes");
  EXPECT_EQ(output_unit("bytes_per_chip"), "bytes");
  EXPECT_EQ(output_unit("tensor_core_flops_per_cycle"), "FLOPs");
  EXPECT_EQ(output_unit("tokens_per_s_per_chip"), "tokens/s");
  EXPECT_EQ(output_unit("levels[0].t_s"), "");
  EXPECT_EQ(output_unit("flops_per_usd"), "");
  EXPECT_EQ(output_unit("hbm_to_pcie_ratio"), "");
  EXPECT_EQ(output_unit("kv_bytes_per_sequence"), "bytes");
  EXPECT_EQ(output_unit("bytes_per_s"), "bytes/s");
  EXPECT_EQ(output_unit("sequences_finished_per_step"), "");
}

}  // namespace
