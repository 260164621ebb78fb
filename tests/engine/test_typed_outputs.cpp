// Outputs are kept by declared position and canonicalised where they are written. The text must
// be what the earlier path gave: each value canonicalised as a json (canonicalise) and dumped by
// nlohmann, each double with its shortest digits (the steps, written as text when recorded: what
// dump writes of them canonicalised). Checked for every output and every step of every book case and every calculator's
// defaults, with and without steps, by computing both ways here; and the faults (undeclared,
// left out, non-finite) stay engine faults.
#include <gtest/gtest.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "schema/args.hpp"
#include "core/errors.hpp"
#include "core/format.hpp"
#include "core/json_text.hpp"
#include "io/pipeline.hpp"
#include "calculators/registry.hpp"
#include "core/result.hpp"
#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

using scalelab::json;

// What dump writes, each double with its shortest digits (the engine's rule, append_double).
std::string dumped(const json& j) { return scalelab::testing::shortest_dump(j); }

// The earlier path: canonicalise a copy, then dump it.
std::string canonicalised_then_dumped(const json& value, const std::string& calculator) {
  json copy = value;
  scalelab::canonicalise(copy, calculator);
  return dumped(copy);
}

std::string written(const json& value, const std::string& calculator) {
  std::string out;
  scalelab::append_canonical(value, out, calculator);
  return out;
}

std::string written_steps(const scalelab::StepList& steps, const std::string& calculator) {
  std::string out;
  scalelab::append_steps(steps, out, calculator);
  return out;
}

using scalelab::testing::Evaluated;
std::vector<Evaluated> runs() { return scalelab::testing::evaluations(/*with_bad_inputs=*/false); }

// Compares one run's outputs and steps, computed directly, with the earlier path's text; and the
// evaluate() text's outputs with the same values in declaration order. False when refused.
bool check_run(const Evaluated& run, bool steps) {
  const scalelab::Calculator& calc = *scalelab::find_calculator(run.calculator);
  json input = json::parse(run.input);
  scalelab::Result result(calc.outputs);
  result.record_steps = steps;
  try {
    scalelab::Args args(calc, input);
    calc.compute(args, result);
  } catch (const scalelab::InputError&) {
    return false;
  }
  json evaluated = json::parse(scalelab::evaluate(run.calculator, run.input, scalelab::EvalOptions{.steps = steps}).json);
  const json& outputs = evaluated["outputs"];
  EXPECT_EQ(outputs.size(), calc.outputs.size()) << run.where;
  std::size_t i = 0;
  for (auto it = outputs.begin(); it != outputs.end() && i < calc.outputs.size(); ++it, ++i) {
    std::string_view name = calc.outputs[i].name;
    EXPECT_EQ(it.key(), name) << run.where << ": outputs out of declaration order";
    std::string earlier = canonicalised_then_dumped(result.outputs.at(i), calc.name);
    EXPECT_EQ(written(result.outputs.at(i), calc.name), earlier) << run.where << ": " << name;
    EXPECT_EQ(dumped(it.value()), earlier) << run.where << ": " << name;
  }
  // The steps are written as text when recorded: that text is what dump writes of the same list
  // with every value canonical (every string escaped as dump escapes it, every number canonical).
  const std::string steps_text = written_steps(result.steps, calc.name);
  const json steps_read = json::parse(steps_text);
  EXPECT_EQ(steps_read.size(), result.steps.size()) << run.where;
  EXPECT_EQ(steps_text, canonicalised_then_dumped(steps_read, calc.name)) << run.where;
  EXPECT_EQ(dumped(evaluated["steps"]), steps_text) << run.where;
  return true;
}

TEST(TypedOutputs, EveryOutputAndStepIsWrittenAsCanonicaliseThenDumpWroteIt) {
  int checked = 0;
  for (const Evaluated& run : runs()) {
    for (bool steps : {true, false}) checked += check_run(run, steps) ? 1 : 0;
  }
  EXPECT_GT(checked, 200);
}

TEST(TypedOutputs, NumbersOnlyOutputsAreTheOutputsWithSteps) {
  for (const Evaluated& run : runs()) {
    auto with = scalelab::evaluate(run.calculator, run.input, scalelab::EvalOptions{.steps = true});
    auto without = scalelab::evaluate(run.calculator, run.input, scalelab::EvalOptions{.steps = false});
    ASSERT_EQ(with.status, without.status) << run.where;
    if (with.status != scalelab::Status::ok) continue;
    json a = json::parse(with.json), b = json::parse(without.json);
    EXPECT_EQ(dumped(a["outputs"]), dumped(b["outputs"])) << run.where;
    EXPECT_EQ(dumped(a["warnings"]), dumped(b["warnings"])) << run.where;
    EXPECT_EQ(b["steps"], json::array()) << run.where;
  }
}

std::vector<scalelab::Output> two_outputs() {
  return {{"t_s", "s", "time", "a time", false}, {"note", "", "note", "may be null", true}};
}

std::string written_outputs(const scalelab::Outputs& outputs) {
  std::string out;
  scalelab::append_outputs(outputs, out, "test");
  return out;
}

TEST(TypedOutputs, SetInAnyOrderTheLastValueCountsAndNullWhereLeftOut) {
  auto declared = two_outputs();
  scalelab::Outputs outputs(declared);
  outputs.set("note", json("first"));
  outputs.set("t_s", json(0.1 + 0.2));
  outputs.set("note", json("second"));
  json expected = {{"t_s", 0.3}, {"note", "second"}};
  EXPECT_EQ(written_outputs(outputs), dumped(expected));
  scalelab::Outputs partial(declared);
  partial.set("t_s", json(3.0));
  EXPECT_EQ(written_outputs(partial), R"({"t_s":3,"note":null})");
  ASSERT_TRUE(partial.find("t_s").has_value());
  EXPECT_EQ(*partial.find("t_s"), json(3.0));
  EXPECT_FALSE(partial.find("note").has_value());
  EXPECT_EQ(partial.kind(0), scalelab::Outputs::Kind::number);
  EXPECT_EQ(partial.kind(1), scalelab::Outputs::Kind::unset);
  partial.set("note", json(nullptr));
  EXPECT_EQ(partial.kind(1), scalelab::Outputs::Kind::null);
  EXPECT_EQ(written_outputs(partial), R"({"t_s":3,"note":null})");
}

// append_outputs writes numbers, verdicts, flags and nulls in runs at a pointer and appends a
// value of kind other, or a word that needs escaping, between runs: every kind, at the start, in
// the middle and at the end of the list, reads as dump writes the same object.
TEST(TypedOutputs, EveryKindOfOutputInEveryPositionIsWrittenAsDumpWritesIt) {
  std::vector<scalelab::Output> declared = {
      {"first_word", "", "", "", false}, {"n", "s", "", "", false}, {"whole", "bytes", "", "", false},
      {"fits", "", "", "", false},       {"shape", "", "", "", false}, {"quoted", "", "", "", false},
      {"tiny", "s", "", "", false},      {"none", "", "", "", true},   {"unset", "", "", "", true},
      {"no", "", "", "", false},         {"last_other", "", "", "", false}};
  scalelab::Outputs outputs(declared);
  outputs.set_word_at(0, scalelab::Word("memory"));
  outputs.set_number_at(1, 0.1 + 0.2);
  outputs.set_number_at(2, 26031718400.0);
  outputs.set_flag_at(3, true);
  outputs.set_at(4, json{{"x", 4}, {"y", 0.1 + 0.2}});
  outputs.set_word_at(5, scalelab::Word("say \"hi\"\n"));
  outputs.set_number_at(6, -1.5e-300);
  outputs.set_null_at(7);
  outputs.set_flag_at(9, false);
  outputs.set_text_at(10, "µs ≥ 1");
  json expected = {{"first_word", "memory"}, {"n", 0.3}, {"whole", 26031718400}, {"fits", true},
                   {"shape", {{"x", 4}, {"y", 0.3}}}, {"quoted", "say \"hi\"\n"}, {"tiny", -1.5e-300},
                   {"none", nullptr}, {"unset", nullptr}, {"no", false}, {"last_other", "µs ≥ 1"}};
  EXPECT_EQ(written_outputs(outputs), dumped(expected));
  EXPECT_EQ(outputs.kind(3), scalelab::Outputs::Kind::flag);
  EXPECT_EQ(*outputs.find("no"), json(false));
}

std::string fault(const scalelab::Outputs& outputs) {
  try {
    written_outputs(outputs);
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "";
}

TEST(TypedOutputs, UndeclaredLeftOutOrNonFiniteOutputsAreEngineFaults) {
  auto declared = two_outputs();
  scalelab::Outputs undeclared(declared);
  undeclared.set("t_s", json(1.0));
  undeclared.set("warp", json(2.0));
  EXPECT_EQ(fault(undeclared), "test emitted undeclared outputs: warp");
  scalelab::Outputs left_out(declared);
  left_out.set("note", json("n"));
  EXPECT_EQ(fault(left_out), "test left out its output t_s, which is not nullable");
  scalelab::Outputs infinite(declared);
  infinite.set("t_s", json(std::numeric_limits<double>::infinity()));
  EXPECT_EQ(fault(infinite), "non-finite result in test (t_s)");
}

// A step's value is written when the step is recorded; a non-finite one is still the engine fault
// naming the step (its prefixed label), raised where the steps are written, as before.
TEST(TypedOutputs, ANonFiniteStepIsAnEngineFaultNamingTheStep) {
  scalelab::StepList list;
  scalelab::Steps steps(&list, nullptr);
  steps.step("Fine", "", steps.sym("a", 1.5), "s");
  const scalelab::Steps ring = steps.prefixed("Ring: ");
  ring.step("Broken", "", ring.sym("b", std::nan("")), "s");
  steps.step("Also broken", "", steps.sym("c", std::numeric_limits<double>::infinity()), "s");
  EXPECT_EQ(list.size(), 3u);
  try {
    written_steps(list, "test");
    ADD_FAILURE() << "no fault";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "non-finite result in test (Ring: Broken)");
  }
  scalelab::StepList fine;
  const scalelab::Steps quoted(&fine, nullptr);
  quoted.step("Quoted \"x\"", "", frac(quoted.sym("a", 1), quoted.sym("b", 2)), "s");
  EXPECT_EQ(written_steps(fine, "test"),
            R"([{"label":"Quoted \"x\"","formula":"\\frac{a}{b}","substituted":"\\frac{1}{2}","value":0.5,"unit":"s"}])");
}

// canonical() rounds by exact arithmetic where it can; the reference here is the rounding it
// replaced: the value printed to 15 significant digits and read back.
double rounded_exactly(double value) {
  std::array<char, 64> buf{};
  auto written = std::to_chars(buf.data(), buf.data() + buf.size(), value, std::chars_format::general, 15);
  double rounded = value;
  std::from_chars(buf.data(), written.ptr, rounded);
  return rounded;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Random finite doubles of every exponent and of every decade results use, doubles read from
// 16-digit decimals ending in 5 (the halfway points of 15-digit rounding) and their neighbours,
// and exact halves, where a rounding by arithmetic could go the wrong way.
TEST(TypedOutputs, CanonicalRoundsTo15DigitsAsPrintingAndReadingBackDoes) {
  std::mt19937_64 random(12);
  int mismatches = 0;
  auto check = [&](double v) {
    if (!std::isfinite(v) || v == 0 || std::fabs(v) > 1e300) return;
    if (!same_bits(scalelab::canonical(v), rounded_exactly(v)) && ++mismatches <= 5) {
      ADD_FAILURE() << "canonical(" << std::hexfloat << v << ") differs";
    }
  };
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t bits = random();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    check(v);
  }
  std::uniform_int_distribution<std::int64_t> mantissa(100000000000000, 999999999999999);
  std::uniform_int_distribution<int> exponent(-30, 30);
  for (int i = 0; i < 100000; ++i) {
    std::string text = std::to_string(mantissa(random)) + "5e" + std::to_string(exponent(random));
    double v = std::strtod(text.c_str(), nullptr);
    for (double w : {v, std::nextafter(v, 0.0), std::nextafter(v, 1e308), -v}) check(w);
  }
  std::uniform_real_distribution<double> unit(0, 1);
  for (int i = 0; i < 100000; ++i) check(unit(random) * std::pow(10.0, exponent(random)) / 3.0);
  // Every magnitude results hold, spread evenly over the decades from 1e-9 to 1e16.
  std::uniform_real_distribution<double> decades(-9, 16);
  for (int i = 0; i < 300000; ++i) check(std::pow(10.0, decades(random)));
  // Exact halves at the 16th digit (a 14-digit integer and a quarter): ties, which round to even.
  std::uniform_int_distribution<std::int64_t> fourteen(10000000000000, 99999999999999);
  for (int i = 0; i < 50000; ++i) {
    double k = static_cast<double>(fourteen(random));
    for (double w : {k + 0.25, k + 0.75, (k + 0.25) / 1024, (k + 0.75) * 1e-6}) check(w);
  }
  EXPECT_EQ(mismatches, 0);
}

// A canonical number is written with its 15 digits, trailing zeros dropped: the shortest that read
// back as it (the reference: std::to_chars's shortest digits, laid out as dump lays them out),
// where dump's grisu2 gives one or two digits more for about one double in a hundred. The digits
// fifteen_digits finds are those of "%.14e".
TEST(TypedOutputs, ACanonicalNumberIsWrittenWithItsShortestDigits) {
  auto text = [](double v) {
    std::string out;
    scalelab::append_double(v, out);
    return out;
  };
  EXPECT_EQ(text(6.62813333333333e16), "6.62813333333333e+16");
  EXPECT_EQ(json(6.62813333333333e16).dump(), "6.6281333333333296e+16");  // grisu2's, one of those
  EXPECT_EQ(text(7.59054923032501e-06), "7.59054923032501e-06");
  EXPECT_EQ(text(0.1), "0.1");
  EXPECT_EQ(text(1e20), "1e+20");
  EXPECT_EQ(text(-2.5e-5), "-2.5e-05");
  EXPECT_EQ(text(123456789012345.6), "123456789012345.6");
  std::mt19937_64 random(13);
  std::uniform_real_distribution<double> decades(-8, 36);
  int mismatches = 0, longer_in_dump = 0;
  for (int i = 0; i < 200000; ++i) {
    double v = scalelab::canonical(std::pow(10.0, decades(random)) * (i % 2 ? 1 : -1));
    std::string shortest = scalelab::testing::shortest_dump(json(v));
    if (text(v) != shortest && ++mismatches <= 5) ADD_FAILURE() << std::hexfloat << v << ": " << text(v) << " against " << shortest;
    if (json(v).dump().size() > shortest.size()) ++longer_in_dump;
    std::optional<scalelab::Decimal> d = scalelab::fifteen_digits(v);
    ASSERT_TRUE(d.has_value());
    std::array<char, 64> buf{};
    std::snprintf(buf.data(), buf.size(), "%.14e", std::fabs(v));
    std::string printed = buf.data();  // "d.dddddddddddddde±XX"
    std::string digits = printed.substr(0, 1) + printed.substr(2, 14);
    while (digits.back() == '0') digits.pop_back();  // the significant ones
    std::array<char, 32> ours{};
    int count = scalelab::write_digits(*d, ours.data());
    EXPECT_EQ(std::string(ours.data(), static_cast<std::size_t>(count)), digits) << printed;
    EXPECT_EQ(d->leading_exponent(), std::stoi(printed.substr(17))) << printed;
    EXPECT_TRUE(same_bits(d->value, v)) << printed;
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(longer_in_dump, 100);  // the reason for the engine's own digits
}

// plain() writes a whole number under a million as its digits; the reference is "%.10g".
TEST(TypedOutputs, PlainWritesWholeNumbersAsPrintfDoes) {
  for (double v : {0.0, -0.0, 1.0, -1.0, 7.0, 32.0, 4096.0, 131072.0, 999999.0, -999999.0, 0.5, 1e-4, 12.25}) {
    std::array<char, 64> buf{};
    std::snprintf(buf.data(), buf.size(), "%.10g", v);
    EXPECT_EQ(scalelab::plain(v), std::string(buf.data())) << v;
  }
  for (int n = -2000; n <= 2000000; n += 7) {
    double v = n;
    if (std::fabs(v) >= 1e6) continue;
    std::array<char, 64> buf{};
    std::snprintf(buf.data(), buf.size(), "%.10g", v);
    ASSERT_EQ(scalelab::plain(v), std::string(buf.data())) << v;
  }
}

}  // namespace

void some_warning(const scalelab::Warning::Numbers&, std::string_view, std::string& out) { out += "w"; }

// A sweep keys the warnings it has met by warning_hash, truncated to size_t: 32 bits in
// WebAssembly. Numbers that differ only in their high bits (whole numbers, byte counts, powers
// of two: their low mantissa bits are zero) must still spread over those 32 bits.
TEST(TypedOutputs, WarningHashSpreadsNumbersThatDifferOnlyInHighBitsOverItsLow32Bits) {
  std::set<std::uint32_t> low;
  const int keys = 4096;
  for (int i = 0; i < keys; ++i) {
    std::array<std::uint64_t, scalelab::Warning::kMaxNumbers> bits{};
    double context = 32.0 * i, bytes = 1073741824.0 * (i + 1);
    std::memcpy(&bits[0], &context, sizeof context);
    std::memcpy(&bits[1], &bytes, sizeof bytes);
    low.insert(static_cast<std::uint32_t>(scalelab::warning_hash(some_warning, bits)));
  }
  // A uniform 32-bit hash puts two of 4,096 keys together once in 500 runs (the birthday bound,
  // 4096^2 / 2^33), three once in 10^9: the hash that kept the high bits out gave 1 distinct value.
  EXPECT_GE(low.size(), static_cast<std::size_t>(keys - 2));
}

void named_warning(const scalelab::Warning::Numbers& n, std::string_view memory, std::string& out) {
  out += "short of ";
  out += memory;
  out += " by ";
  out += scalelab::plain(n[0]);
}

// Issue 32: a warning made from a kind carries one text argument (the chip's memory) into its
// message, and a sweep tells two warnings of one kind and numbers apart by it.
TEST(TypedOutputs, AWarningCarriesItsTextArgument) {
  scalelab::Warning card(named_warning, {3}, "GDDR6X memory"), tpu(named_warning, {3}, "HBM");
  EXPECT_EQ(card.text(), "short of GDDR6X memory by 3");
  EXPECT_EQ(tpu.text(), "short of HBM by 3");
  EXPECT_EQ(card.argument(), "GDDR6X memory");
  std::array<std::uint64_t, scalelab::Warning::kMaxNumbers> bits{};
  EXPECT_NE(scalelab::warning_hash(named_warning, bits, card.argument()),
            scalelab::warning_hash(named_warning, bits, tpu.argument()));
  EXPECT_NE(scalelab::warning_hash(named_warning, bits, "unified LPDDR5 memory"),
            scalelab::warning_hash(named_warning, bits, "unified LPDDR5 memorz"));
}
