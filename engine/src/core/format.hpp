// Number formatting: for people (format_quantity), for TeX steps (tex), for messages (plain).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace scalelab {

// Seconds in a day: the one place a time in seconds becomes days (outputs and the formatter).
inline constexpr double kSecondsPerDay = 86400;

// The units an output or a parameter states a time in, one list: a measured time is compared
// with its bound the other way up from a rate (calibration), and a range of times runs from
// shortest to longest (expected.cpp).
inline constexpr std::string_view kTimeUnits[] = {"s", "h", "chip-hours", "days", "years"};
constexpr bool is_time_unit(std::string_view unit) {
  for (std::string_view u : kTimeUnits) {
    if (u == unit) return true;
  }
  return false;
}

// The characters [first, last) appended: by pointer and length, which is a copy. append(first,
// last) is libc++'s iterator form, which in the WebAssembly build copies character by character
// (3 % of a numbers-only decode evaluation there).
inline void append_chars(std::string& out, const char* first, const char* last) {
  out.append(first, static_cast<std::size_t>(last - first));
}

// "1.39 ms", "140 GB", "197 TFLOP/s", "2,400 tokens", "3,640 days", "$26.9 M",
// "6.35 × 10²⁴ FLOPs": SI prefixes up to peta, 3 significant digits, counts with thousands
// separators, large plain numbers in words (million, billion, trillion) or powers of ten.
std::string format_quantity(double value, std::string_view unit);
// The same, appended to `out` (a message written piece by piece).
void append_quantity(double value, std::string_view unit, std::string& out);
// TeX for a number in a substituted formula: 1.97\times10^{14}, 4096, 0.5.
std::string tex(double value);
void append_tex(double value, std::string& out);       // the same, appended
void append_json_tex(double value, std::string& out);  // appended as it reads in a JSON string (\\times)
// Words inside a TeX formula: \text{big\_matmuls} (escapes TeX's special characters).
std::string tex_text(const std::string& words);
// Plain text for a number in a message: 1e+07 -> "1e7", 0.5 -> "0.5", 4096 -> "4096".
std::string plain(double value);
// printf's "%.*e", "%.*f" or "%.*g" (conversion 'e', 'f' or 'g') of `value`, exactly: the digits
// every function here formats with.
std::string printf_format(double value, int precision, char conversion);
// Rounds to 15 significant digits, so that results do not depend on the last ulp of libm
// and are byte-identical between native and WebAssembly builds.
double canonical(double value);

// A number's 15 significant digits, correctly rounded (those "%.14e" prints): |value| rounds to
// digits × 10^exponent, with 10^14 ≤ digits ≤ 10^15; `value` is that decimal as a double, which
// is canonical(value). Every decimal of 15 digits reads back as itself, so no shorter digits
// read back as `value` than these without their trailing zeros.
struct Decimal {
  std::uint64_t digits;
  int exponent;
  double value;
  // The decimal exponent of the first digit: value ≈ d.ddd × 10^leading_exponent().
  int leading_exponent() const { return exponent + (digits >= 1000000000000000ULL ? 15 : 14); }
};
// Found by arithmetic, for magnitudes from 1e-8 to 1e36 (every number a result holds but the
// rarest); nullopt outside.
std::optional<Decimal> fifteen_digits(double value);
// Its significant digits (of the 15, or 16 for 10^15, those before the trailing zeros) written
// into `w`: their count. These are the shortest digits that read back as d.value.
int write_digits(const Decimal& d, char* w);

}  // namespace scalelab
