#include "format.hpp"

#include <charconv>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace scalelab {
namespace {

// printf's "%.*g" / "%.*e". Where the library has floating-point to_chars (native builds), that:
// the standard defines its output with a precision as printf's, and it is several times faster.
// Emscripten's libc++ lacks it, so WebAssembly keeps snprintf; the digits are the same.
// The same into `buf` (64 bytes): its length.
std::size_t printf_like_into(double value, int precision, bool scientific, std::array<char, 64>& buf) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  auto format = scientific ? std::chars_format::scientific : std::chars_format::general;
  auto written = std::to_chars(buf.data(), buf.data() + buf.size() - 1, value, format, precision);
  return static_cast<std::size_t>(written.ptr - buf.data());
#else
  std::snprintf(buf.data(), buf.size(), scientific ? "%.*e" : "%.*g", precision, value);
  return std::strlen(buf.data());
#endif
}

std::string printf_like(double value, int precision, bool scientific) {
  std::array<char, 64> buf{};
  return std::string(buf.data(), printf_like_into(value, precision, scientific, buf));
}

std::string printf_g(double value, int digits) { return printf_like(value, digits, false); }

// 1.97e14 -> mantissa "1.97", exponent 14 (at most `digits` significant digits)
void split_exponent(double value, int digits, std::string& mantissa, int& exponent) {
  std::string s = printf_like(value, digits - 1, true);
  auto e = s.find('e');
  mantissa = s.substr(0, e);
  exponent = std::atoi(s.c_str() + e + 1);
  if (mantissa.find('.') != std::string::npos) {
    while (mantissa.back() == '0') mantissa.pop_back();
    if (mantissa.back() == '.') mantissa.pop_back();
  }
}

// A whole number's digits, as std::to_string writes it, appended.
void append_whole(std::int64_t n, std::string& out) {
  std::array<char, 24> buf{};
  auto written = std::to_chars(buf.data(), buf.data() + buf.size(), n);
  out.append(buf.data(), written.ptr);
}

// 4 significant digits in fixed notation: 0.001395, 240.2, 4096
std::string fixed4(double value) {
  double magnitude = std::fabs(value);
  int decimals = std::max(0, 3 - static_cast<int>(std::floor(std::log10(magnitude))));
  std::array<char, 64> buf{};
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  // printf's "%.*f" digits, as the standard defines to_chars with a precision (see printf_like).
  auto written = std::to_chars(buf.data(), buf.data() + buf.size() - 1, value, std::chars_format::fixed, decimals);
  std::string s(buf.data(), written.ptr);
#else
  std::snprintf(buf.data(), buf.size(), "%.*f", decimals, value);
  std::string s = buf.data();
#endif
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

// "²⁴", "⁻⁵": an exponent written the way people read it.
std::string superscript(int exponent) {
  static const char* const kDigits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string digits = std::to_string(std::abs(exponent));
  std::string out = exponent < 0 ? "⁻" : "";
  for (char d : digits) out += kDigits[d - '0'];
  return out;
}

// 3640 -> "3,640"; the value is rounded to a whole number.
std::string with_separators(double value) {
  std::string digits = std::to_string(std::llround(std::fabs(value)));
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (value < 0 ? "-" : "") + out;
}

// 6.35e24 -> "6.35 × 10²⁴"
std::string power_of_ten(double value) {
  std::string mantissa;
  int exponent = 0;
  split_exponent(value, 3, mantissa, exponent);
  return (mantissa == "1" ? "" : mantissa + " × ") + "10" + superscript(exponent);
}

// The decimal exponent of a value once rounded to 3 significant digits (999.7 -> 3).
int rounded_exponent(double value) {
  std::string mantissa;
  int exponent = 0;
  split_exponent(value, 3, mantissa, exponent);
  return exponent;
}

// A number in words people use: 0.5, 240, 3,640, 26.9 million, 6.35 × 10²⁴.
std::string readable_number(double value) {
  if (value == 0) return "0";
  int exponent = rounded_exponent(value);
  if (exponent < -4 || exponent >= 15) return power_of_ten(value);
  if (exponent < 3) return printf_g(value, 3);
  if (exponent < 6) return with_separators(value);
  static const char* const kGroups[] = {"million", "billion", "trillion"};
  int group = exponent / 3;  // 2, 3 or 4
  return printf_g(value / std::pow(10.0, 3 * group), 3) + " " + kGroups[group - 2];
}

// "$12.5", "$12,500", "$26.9 M", "$1.55 B"
std::string dollars(double value) {
  std::string sign = value < 0 ? "-" : "";
  double magnitude = std::fabs(value);
  int exponent = magnitude == 0 ? 0 : rounded_exponent(magnitude);
  if (exponent < 6 || exponent >= 15) return sign + "$" + readable_number(magnitude);
  static const char* const kSymbols[] = {"M", "B", "T"};
  int group = exponent / 3;
  return sign + "$" + printf_g(magnitude / std::pow(10.0, 3 * group), 3) + " " + kSymbols[group - 2];
}

// Counts of things: "2,400", "240 tokens", "70B params", "15T tokens".
std::string count_of(double value, std::string_view unit) {
  std::string suffix = unit == "count" ? "" : " " + std::string(unit);
  int exponent = value == 0 ? 0 : rounded_exponent(value);
  if (exponent < 6 || exponent >= 15) return readable_number(value) + suffix;
  static const char* const kSymbols[] = {"M", "B", "T"};
  int group = exponent / 3;
  return printf_g(value / std::pow(10.0, 3 * group), 3) + kSymbols[group - 2] + suffix;
}

struct Prefix {
  double scale;
  const char* symbol;
};

// Up to peta: beyond it (EB, ZFLOPs, YFLOPs) a power of ten reads better.
constexpr std::array<Prefix, 8> kPrefixes{{{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"},
                                           {1e3, "k"}, {1, ""}, {1e-3, "m"}, {1e-6, "µ"}}};

// Units that are spelled out after an SI prefix: bytes -> "GB", FLOP/s -> "TFLOP/s".
std::string unit_symbol(std::string_view unit) {
  if (unit == "bytes") return "B";
  if (unit == "bytes/s") return "B/s";
  return std::string(unit);
}

bool is_count(std::string_view unit) {
  return unit == "count" || unit == "tokens" || unit == "params" || unit == "tokens/s";
}

bool takes_prefix(std::string_view unit) {
  return unit == "bytes" || unit == "bytes/s" || unit == "FLOPs" || unit == "FLOP/s" ||
         unit == "s" || unit == "Hz";
}

std::string with_prefix(double value, std::string_view unit) {
  double magnitude = std::fabs(value);
  if (magnitude >= 1e18 * 0.9995) return power_of_ten(value) + " " + unit_symbol(unit);
  bool seconds = unit == "s";
  for (const Prefix& p : kPrefixes) {
    if (seconds && p.scale > 1) continue;  // no kiloseconds: minutes/hours handled below
    if (magnitude >= p.scale * 0.9995) return printf_g(value / p.scale, 3) + " " + p.symbol + unit_symbol(unit);
  }
  if (magnitude >= 1e-9 * 0.9995) return printf_g(value * 1e9, 3) + " n" + unit_symbol(unit);
  return power_of_ten(value) + " " + unit_symbol(unit);
}

}  // namespace

namespace {

// The exact rounding: the value printed to 15 significant digits and read back. Natively with
// to_chars and from_chars (the same correctly rounded digits as "%.15g" and strtod, without
// printf's cost); Emscripten's libc++ has no floating-point from_chars, and takes printf/strtod.
double rounded_by_printing(double value) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  std::array<char, 64> buf{};
  auto written = std::to_chars(buf.data(), buf.data() + buf.size(), value, std::chars_format::general, 15);
  double rounded = value;
  std::from_chars(buf.data(), written.ptr, rounded);
  return rounded;
#else
  return std::strtod(printf_g(value, 15).c_str(), nullptr);
#endif
}

// Powers of ten a double holds exactly.
constexpr std::array<double, 23> kExactPowersOfTen = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// The same rounding by arithmetic, for magnitudes from 1e-8 to 1e14 (nearly every number a
// result holds): scaled by an exact power of ten P into [1e14, 1e15], the value's 15 significant
// digits are the nearest integer m to |value| × P. That product is rounded, but fma gives its
// exact error, which decides a product that lands on a half; an exact half rounds to even, as
// printing does. m / P is then the correctly rounded double of m × 10^-j, as reading m × 10^-j
// back gives it (both are exact doubles, and IEEE division rounds correctly). nullopt outside.
std::optional<double> rounded_by_scaling(double value) {
  double magnitude = std::fabs(value);
  if (!(magnitude >= 1e-8 && magnitude < 1e14)) return std::nullopt;
  int j = 14 - static_cast<int>(std::floor(std::log10(magnitude)));
  double product = magnitude * kExactPowersOfTen[static_cast<std::size_t>(j)];
  if (product >= 1e15) --j;
  else if (product < 1e14) ++j;
  if (j < 0 || j >= static_cast<int>(kExactPowersOfTen.size())) return std::nullopt;
  double power = kExactPowersOfTen[static_cast<std::size_t>(j)];
  product = magnitude * power;
  if (product < 1e14 || product > 1e15) return std::nullopt;
  double error = std::fma(magnitude, power, -product);  // magnitude × power = product + error, exactly
  double whole = std::floor(product);
  double fraction = product - whole;                     // exact
  bool up = fraction > 0.5 || (fraction == 0.5 && (error > 0 || (error == 0 && std::fmod(whole, 2) != 0)));
  double digits = up ? whole + 1 : whole;
  return std::copysign(digits / power, value);
}

}  // namespace

double canonical(double value) {
  if (!std::isfinite(value) || value == 0) return value == 0 ? 0.0 : value;
  if (std::optional<double> rounded = rounded_by_scaling(value)) return *rounded;
  return rounded_by_printing(value);
}

std::string plain(double value) {
  std::string mantissa;
  int exponent = 0;
  if (std::fabs(value) >= 1e6 || (value != 0 && std::fabs(value) < 1e-4)) {
    split_exponent(value, 6, mantissa, exponent);
    return mantissa + "e" + std::to_string(exponent);
  }
  // A whole number under a million (a batch, a chip count, a context) is its digits, as "%.10g"
  // prints it; only -0 keeps its sign there.
  if (std::floor(value) == value && !(value == 0 && std::signbit(value))) {
    return std::to_string(static_cast<std::int64_t>(value));
  }
  return printf_g(value, 10);
}

namespace {

// append_tex's text, with `times` for its \times (JSON-escaped or not). The digits are printf's
// ("%.7g" for a whole number under a million, "%.*f" with 4 significant digits, "%.3e"), written
// into a buffer without a string made per number.
void append_tex_with(double value, std::string_view times, std::string& out) {
  if (value == 0) {
    out += '0';
    return;
  }
  double magnitude = std::fabs(value);
  if (magnitude >= 1e-3 && magnitude < 1e6) {
    // A whole number under a million: its digits, as "%.7g" prints it (six digits at most).
    if (std::floor(value) == value) append_whole(static_cast<std::int64_t>(value), out);
    else out += fixed4(value);
    return;
  }
  // split_exponent(value, 4, ...), in place: "1.970e+14" -> mantissa "1.97", exponent 14.
  std::array<char, 64> buf{};
  std::string_view s(buf.data(), printf_like_into(value, 3, true, buf));
  std::size_t e = s.find('e');
  std::string_view mantissa = s.substr(0, e);
  std::string_view exponent = e == std::string_view::npos ? "+0" : s.substr(e + 1);  // "+14", "-05"
  if (mantissa.find('.') != std::string_view::npos) {
    while (mantissa.back() == '0') mantissa.remove_suffix(1);
    if (mantissa.back() == '.') mantissa.remove_suffix(1);
  }
  // Braced, so that a formula may raise it to a power: {4.59\times10^{14}}^2.
  if (mantissa == "1") {
    out += "{10^{";
  } else if (mantissa == "-1") {
    out += "{-10^{";
  } else {
    out += '{';
    out += mantissa;
    out += times;
    out += "10^{";
  }
  // The exponent as std::to_string(atoi) writes it: no '+', no leading zeros.
  bool negative = exponent.front() == '-';
  exponent.remove_prefix(1);
  while (exponent.size() > 1 && exponent.front() == '0') exponent.remove_prefix(1);
  if (negative) out += '-';
  out += exponent;
  out += "}}";
}

}  // namespace

void append_tex(double value, std::string& out) { append_tex_with(value, "\\times", out); }
void append_json_tex(double value, std::string& out) { append_tex_with(value, "\\\\times", out); }

std::string tex(double value) {
  std::string out;
  append_tex(value, out);
  return out;
}

std::string tex_text(const std::string& words) {
  std::string out = "\\text{";
  for (char c : words) {
    if (c == '_' || c == '%' || c == '&' || c == '#' || c == '$' || c == '{' || c == '}') out += '\\';
    out += c;
  }
  return out + "}";
}

std::string format_quantity(double value, std::string_view unit) {
  if (!std::isfinite(value)) return "—";
  if (unit == "s" && std::fabs(value) >= 60) {
    double magnitude = std::fabs(value);
    if (magnitude >= 86400 * 365.25 * 2) return readable_number(value / (86400 * 365.25)) + " years";
    if (magnitude >= 86400 * 2) return readable_number(value / 86400) + " days";
    if (magnitude >= 3600) return printf_g(value / 3600, 3) + " h";
    return printf_g(value / 60, 3) + " min";
  }
  if (unit == "usd" || unit == "USD") return dollars(value);
  if (unit == "ratio" || unit.empty()) return readable_number(value);
  if (is_count(unit)) return count_of(value, unit);
  if (!takes_prefix(unit)) return readable_number(value) + " " + std::string(unit);
  if (value == 0) return "0 " + unit_symbol(unit);
  return with_prefix(value, unit);
}

}  // namespace scalelab
