#include "core/format.hpp"
#include "core/format_words.hpp"

#include <charconv>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace scalelab {
namespace {

// Powers of ten a double holds exactly.
constexpr std::array<double, 23> kExactPowersOfTen = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// printf's "%.*g" / "%.*e" / "%.*f", exactly. Where the library has floating-point to_chars
// (native builds), that: the standard defines its output with a precision as printf's. Emscripten's
// libc++ lacks it, so WebAssembly takes snprintf; the digits are the same. The length written
// into `buf` (64 bytes).
std::size_t printf_exact(double value, int precision, char conversion, std::array<char, 64>& buf) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  auto format = conversion == 'e' ? std::chars_format::scientific
                : conversion == 'f' ? std::chars_format::fixed : std::chars_format::general;
  auto written = std::to_chars(buf.data(), buf.data() + buf.size() - 1, value, format, precision);
  return static_cast<std::size_t>(written.ptr - buf.data());
#else
  const char* pattern = conversion == 'e' ? "%.*e" : conversion == 'f' ? "%.*f" : "%.*g";
  std::snprintf(buf.data(), buf.size(), pattern, precision, value);
  return std::strlen(buf.data());
#endif
}

// A positive finite value's decimal digits d[0..n) and the exponent of the first: value is about
// d0.d1d2... × 10^exponent.
struct Digits {
  std::array<char, 32> d{};
  int n = 0;
  int exponent = 0;
};

// Digits that round as `magnitude` does to 12 or fewer significant digits: its 15 correctly
// rounded digits (fifteen_digits) where arithmetic finds them, else the shortest that read back
// as it (nlohmann's grisu2, which writes every number of a result, within half an ulp of it).
Digits leading_digits(double magnitude) {
  Digits x;
  if (std::optional<Decimal> fifteen = fifteen_digits(magnitude)) {
    x.n = write_digits(*fifteen, x.d.data());
    x.exponent = fifteen->leading_exponent();
    return x;
  }
  int decimal_exponent = 0;
  nlohmann::detail::dtoa_impl::grisu2(x.d.data(), x.n, decimal_exponent, magnitude);
  x.exponent = x.n + decimal_exponent - 1;
  return x;
}

// Rounds `x` to `keep` significant digits (1 to 12) as printf rounds the value itself. The digits
// are the value's own rounded to 15 digits (or within half an ulp of it), so they round the same
// way unless they lie on or near a midpoint (...5000 or ...4999 up to the 14th digit): false then,
// and the caller takes printf_exact.
bool round_digits(Digits& x, int keep) {
  auto digit = [&](int i) { return i < x.n ? x.d[static_cast<std::size_t>(i)] : '0'; };
  auto rest_is = [&](char c) {
    for (int i = keep + 1; i <= 13; ++i) {
      if (digit(i) != c) return false;
    }
    return true;
  };
  const char next = digit(keep);
  if ((next == '5' && rest_is('0')) || (next == '4' && rest_is('9'))) return false;
  for (int i = x.n; i < keep; ++i) x.d[static_cast<std::size_t>(i)] = '0';
  x.n = keep;
  if (next < '5') return true;
  int i = keep - 1;
  while (i >= 0 && x.d[static_cast<std::size_t>(i)] == '9') x.d[static_cast<std::size_t>(i--)] = '0';
  if (i >= 0) {
    ++x.d[static_cast<std::size_t>(i)];
  } else {  // 9.99 -> 10.0: one digit more before the point
    x.d[0] = '1';
    ++x.exponent;
  }
  return true;
}

// Writes the digits d[0..count) (past n: zeros) with the point after `before` of them (before ≤ 0:
// "0." and zeros first); if `strip`, without the fraction's trailing zeros and a bare point.
char* write_fixed(const Digits& x, int count, int before, bool strip, char* w) {
  auto digit = [&](int i) { return i >= 0 && i < x.n ? x.d[static_cast<std::size_t>(i)] : '0'; };
  if (before <= 0) *w++ = '0';
  for (int i = 0; i < before; ++i) *w++ = digit(i);
  if (count <= before) return w;
  *w++ = '.';
  for (int i = before; i < count; ++i) *w++ = digit(i);
  if (strip) {
    while (w[-1] == '0') --w;
    if (w[-1] == '.') --w;
  }
  return w;
}

char* write_exponent(int exponent, char* w) {  // e+14, e-05: two digits at least
  *w++ = 'e';
  *w++ = exponent < 0 ? '-' : '+';
  const int e = exponent < 0 ? -exponent : exponent;
  if (e >= 100) *w++ = static_cast<char>('0' + e / 100);
  *w++ = static_cast<char>('0' + e / 10 % 10);
  *w++ = static_cast<char>('0' + e % 10);
  return w;
}

// printf's "%.*e", "%.*f" or "%.*g" of `value` into `buf` (64 bytes): its length. A finite normal
// value rounded to at most 12 significant digits is written from its leading digits, rounded
// (several times faster than printf_exact natively, and than snprintf in WebAssembly); anything
// else, and digits too near a midpoint to decide, by printf_exact.
std::size_t printf_into(double value, int precision, char conversion, std::array<char, 64>& buf) {
  // Subnormal values hold too few bits for their digits to decide: printf_exact.
  if (!std::isfinite(value) || std::fabs(value) < std::numeric_limits<double>::min()) {
    return printf_exact(value, precision, conversion, buf);
  }
  Digits x = leading_digits(std::fabs(value));
  const int g_digits = precision == 0 ? 1 : precision;
  const int keep = conversion == 'e' ? precision + 1 : conversion == 'f' ? x.exponent + 1 + precision : g_digits;
  if (precision > 40 || keep < 1 || keep > 12 || !round_digits(x, keep)) return printf_exact(value, precision, conversion, buf);
  char* w = buf.data();
  if (value < 0) *w++ = '-';
  if (conversion == 'e') {
    w = write_exponent(x.exponent, write_fixed(x, keep, 1, false, w));
  } else if (conversion == 'f') {
    // After a carry (9.99 -> 10.0) the same decimals take one digit more.
    w = write_fixed(x, x.exponent + 1 + precision, x.exponent + 1, false, w);
  } else if (x.exponent < -4 || x.exponent >= g_digits) {
    w = write_exponent(x.exponent, write_fixed(x, keep, 1, true, w));
  } else {
    w = write_fixed(x, keep, x.exponent + 1, true, w);
  }
  return static_cast<std::size_t>(w - buf.data());
}

std::size_t printf_like_into(double value, int precision, bool scientific, std::array<char, 64>& buf) {
  return printf_into(value, precision, scientific ? 'e' : 'g', buf);
}

}  // namespace

std::string printf_format(double value, int precision, char conversion) {
  std::array<char, 64> buf{};
  return std::string(buf.data(), printf_into(value, precision, conversion, buf));
}

namespace {

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
  append_chars(out, buf.data(), written.ptr);
}

// 4 significant digits in fixed notation: 0.001395, 240.2, 4096
std::string fixed4(double value) {
  double magnitude = std::fabs(value);
  int decimals = std::max(0, 3 - static_cast<int>(std::floor(std::log10(magnitude))));
  std::array<char, 64> buf{};
  std::string s(buf.data(), printf_into(value, decimals, 'f', buf));
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

// 3640 -> "3,640"; the value is rounded to a whole number. Appended.
void append_with_separators(double value, std::string& out) {
  std::array<char, 24> buf{};
  auto written = std::to_chars(buf.data(), buf.data() + buf.size(), std::llround(std::fabs(value)));
  const auto n = static_cast<std::size_t>(written.ptr - buf.data());
  if (value < 0) out += '-';
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += buf[i];
  }
}

// printf's "%.*g" of `value`, appended.
void append_g(double value, int digits, std::string& out) {
  std::array<char, 64> buf{};
  out.append(buf.data(), printf_like_into(value, digits, false, buf));
}

// 6.35e24 -> "6.35 × 10²⁴"
std::string power_of_ten(double value) {
  std::string mantissa;
  int exponent = 0;
  split_exponent(value, 3, mantissa, exponent);
  return (mantissa == "1" ? "" : mantissa + " × ") + "10" + superscript(exponent);
}

// The decimal exponent of a value once rounded to 3 significant digits (999.7 -> 3): that of its
// leading digits rounded, as printf_into rounds them, where they decide it.
int rounded_exponent(double value) {
  if (std::isfinite(value) && std::fabs(value) >= std::numeric_limits<double>::min()) {
    Digits x = leading_digits(std::fabs(value));
    if (round_digits(x, 3)) return x.exponent;
  }
  std::string mantissa;
  int exponent = 0;
  split_exponent(value, 3, mantissa, exponent);
  return exponent;
}

// 10^(3 group) for a group of thousands (2: million, 3: billion, 4: trillion).
double thousands(int group) { return kExactPowersOfTen[static_cast<std::size_t>(3 * group)]; }

// A number in words people use: 0.5, 240, 3,640, 26.9 million, 6.35 × 10²⁴; `exponent` is
// rounded_exponent(value) (0 for 0). Appended.
void append_readable(double value, int exponent, std::string& out) {
  if (value == 0) {
    out += '0';
    return;
  }
  if (exponent < -4 || exponent >= 15) {
    out += power_of_ten(value);
  } else if (exponent < 3) {
    append_g(value, 3, out);
  } else if (exponent < 6) {
    append_with_separators(value, out);
  } else {
    static const char* const kGroups[] = {"million", "billion", "trillion"};
    const int group = exponent / 3;  // 2, 3 or 4
    append_g(value / thousands(group), 3, out);
    out += ' ';
    out += kGroups[group - 2];
  }
}

// A whole number that rounds to fewer than seven digits (|value| < 999,500) reads as its digits
// with separators, in both branches of append_readable it reaches ("%.3g" of up to three digits
// is those digits): written so without finding its rounded exponent. A warning's counts (a batch,
// chips, a context) are nearly all such numbers.
bool append_small_whole(double value, std::string& out) {
  if (!(std::fabs(value) < 999500) || std::floor(value) != value) return false;
  append_with_separators(value, out);
  return true;
}

void append_readable(double value, std::string& out) {
  if (append_small_whole(value, out)) return;
  append_readable(value, value == 0 ? 0 : rounded_exponent(value), out);
}

// "$12.5", "$12,500", "$26.9 M", "$1.55 B"
void append_dollars(double value, std::string& out) {
  if (value < 0) out += '-';
  out += '$';
  const double magnitude = std::fabs(value);
  const int exponent = magnitude == 0 ? 0 : rounded_exponent(magnitude);
  if (exponent < 6 || exponent >= 15) {
    append_readable(magnitude, exponent, out);
    return;
  }
  static const char* const kSymbols[] = {"M", "B", "T"};
  const int group = exponent / 3;
  append_g(magnitude / thousands(group), 3, out);
  out += ' ';
  out += kSymbols[group - 2];
}

// Counts of things: "2,400", "240 tokens", "70B params", "15T tokens".
// The unit after a number that takes no prefix: a plural noun is singular after one ("1 chip",
// "1 token", "1 sequence"); a rate with no noun before its slash reads "0.096/s", not "0.096 1/s".
void append_unit_word(const std::string& number, std::string_view unit, std::string& out) {
  if (unit == "1/s") {
    out += "/s";
    return;
  }
  if (unit == "1/min" || unit == "1/h" || unit == "1/day") {
    out += unit.substr(1);
    return;
  }
  if (unit.starts_with("responses/")) {
    // "5.77 responses/min", "1 response/s": the noun before the slash, singular after one
    out += number == "1" ? " response" : " responses";
    out += unit.substr(unit.find('/'));
    return;
  }
  const bool noun = unit.size() > 1 && unit.back() == 's' &&
                    std::all_of(unit.begin(), unit.end(), [](char c) { return c >= 'a' && c <= 'z'; });
  if (noun && number == "1") unit.remove_suffix(1);
  out += ' ';
  out += unit;
}

void append_count(double value, std::string_view unit, std::string& out) {
  const size_t start = out.size();
  if (!append_small_whole(value, out)) {
    const int exponent = value == 0 ? 0 : rounded_exponent(value);
    if (exponent < 6 || exponent >= 15) {
      append_readable(value, exponent, out);
    } else {
      static const char* const kSymbols[] = {"M", "B", "T"};
      const int group = exponent / 3;
      append_g(value / thousands(group), 3, out);
      out += kSymbols[group - 2];
    }
  }
  if (unit != "count") append_unit_word(out.substr(start), unit, out);
}

struct Prefix {
  double scale;
  const char* symbol;
};

// Up to peta: beyond it (EB, ZFLOPs, YFLOPs) a power of ten reads better.
constexpr std::array<Prefix, 8> kPrefixes{{{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"},
                                           {1e3, "k"}, {1, ""}, {1e-3, "m"}, {1e-6, "µ"}}};

// Units that are spelled out after an SI prefix: bytes -> "GB", FLOP/s -> "TFLOP/s".
std::string_view unit_symbol(std::string_view unit) {
  if (unit == "bytes") return "B";
  if (unit == "bytes/s") return "B/s";
  return unit;
}

bool is_count(std::string_view unit) {
  return unit == "count" || unit == "tokens" || unit == "params" || unit == "tokens/s";
}

bool takes_prefix(std::string_view unit) {
  return unit == "bytes" || unit == "bytes/s" || unit == "FLOPs" || unit == "FLOP/s" ||
         unit == "s" || unit == "Hz";
}

// "1.39 m", "140 G", "6.35 × 10²⁴ ": the number and its SI prefix (up to peta; a power of ten
// beyond), appended, for the unit's symbol to follow.
void append_prefixed(double value, bool seconds, std::string& out) {
  const double magnitude = std::fabs(value);
  if (magnitude < 1e18 * 0.9995) {
    for (const Prefix& p : kPrefixes) {
      if (seconds && p.scale > 1) continue;  // no kiloseconds: minutes/hours handled apart
      if (magnitude >= p.scale * 0.9995) {
        append_g(value / p.scale, 3, out);
        out += ' ';
        out += p.symbol;
        return;
      }
    }
    if (magnitude >= 1e-9 * 0.9995) {
      append_g(value * 1e9, 3, out);
      out += " n";
      return;
    }
  }
  out += power_of_ten(value);
  out += ' ';
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

}  // namespace

// Scaled by an exact power of ten P = 10^j (j from -22 to 22: a product, or a quotient for j < 0)
// into [1e14, 1e15], the value's 15 significant digits are the nearest integer m to the exactly
// scaled |value|. The scaling is rounded, but fma gives its exact error (of a product, or the
// remainder of a quotient), which decides a scaled value that lands on a half; an exact half
// rounds to even, as printing does.
std::optional<Decimal> fifteen_digits(double value) {
  double magnitude = std::fabs(value);
  if (!(magnitude >= 1e-8 && magnitude < 1e36)) return std::nullopt;
  // floor(log10(magnitude)) to within one, from the binary exponent e (floor(e log10 2), in
  // integer arithmetic: no libm call); j moves by one below where the scaled value falls outside
  // [1e14, 1e15).
  std::uint64_t bits = 0;
  std::memcpy(&bits, &magnitude, sizeof bits);  // std::bit_cast, which Emscripten's libc++ lacks
  const int binary_exponent = static_cast<int>(bits >> 52) - 1023;
  const int last = static_cast<int>(kExactPowersOfTen.size()) - 1;
  int j = std::clamp(14 - ((binary_exponent * 315653) >> 20), -last, last);
  auto scaled = [&](int k) __attribute__((always_inline)) {  // inlined in WebAssembly too
    double p = kExactPowersOfTen[static_cast<std::size_t>(k < 0 ? -k : k)];
    return k < 0 ? magnitude / p : magnitude * p;
  };
  double product = scaled(j);
  if (product >= 1e15) --j;
  else if (product < 1e14) ++j;
  if (j < -last || j > last) return std::nullopt;
  product = scaled(j);
  if (product < 1e14 || product > 1e15) return std::nullopt;
  const double power = kExactPowersOfTen[static_cast<std::size_t>(j < 0 ? -j : j)];
  const auto whole = static_cast<std::uint64_t>(product);  // its floor: product is positive
  const double fraction = product - static_cast<double>(whole);  // exact
  bool up = fraction > 0.5;
  if (fraction == 0.5) {
    // The exact scaled value is product + error / power (a quotient) or product + error (a
    // product): only the error's sign is used.
    double error = j < 0 ? std::fma(-product, power, magnitude) : std::fma(magnitude, power, -product);
    up = error > 0 || (error == 0 && whole % 2 != 0);
  }
  const std::uint64_t digits = up ? whole + 1 : whole;
  const double m = static_cast<double>(digits);
  // m / 10^j is the correctly rounded double of m × 10^-j, as reading it back gives it (a
  // division or product of exact doubles rounds correctly).
  return Decimal{digits, -j, std::copysign(j < 0 ? m * power : m / power, value)};
}

// Four digits at a time in 32-bit arithmetic (cheaper than 64-bit division, in WebAssembly above
// all), each written as two pairs; then the trailing zeros dropped.
int write_digits(const Decimal& d, char* w) {
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "4041424344454647484950515253545556575859606162636465666768697071727374757677787980"
      "81828384858687888990919293949596979899";
  auto four = [&](std::uint32_t n, char* at) __attribute__((always_inline)) {
    std::memcpy(at, kPairs + 2 * (n / 100), 2);
    std::memcpy(at + 2, kPairs + 2 * (n % 100), 2);
  };
  const int count = d.digits >= 1000000000000000ULL ? 16 : 15;
  auto high = static_cast<std::uint32_t>(d.digits / 100000000), low = static_cast<std::uint32_t>(d.digits % 100000000);
  char* end = w + count;
  four(low % 10000, end - 4);
  four(low / 10000, end - 8);
  four(high % 10000, end - 12);
  const std::uint32_t top = high / 10000;  // 100 to 999 (1000 for 10^15)
  if (count == 16) {
    four(top, w);
  } else {
    w[0] = static_cast<char>('0' + top / 100);
    std::memcpy(w + 1, kPairs + 2 * (top % 100), 2);
  }
  int significant = count;
  while (w[significant - 1] == '0') --significant;
  return significant;
}

double canonical(double value) {
  if (!std::isfinite(value) || value == 0) return value == 0 ? 0.0 : value;
  if (std::optional<Decimal> d = fifteen_digits(value)) return d->value;
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

// "{1.97\times10^{14}}" from mantissa "1.97" and exponent "+14" (or "14", "-5"): braced, so that
// a formula may raise it to a power; a mantissa of 1 is left out ("{10^{14}}").
void append_power_of_ten(std::string_view mantissa, std::string_view exponent, std::string_view times,
                         std::string& out) {
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
  if (negative || exponent.front() == '+') exponent.remove_prefix(1);
  while (exponent.size() > 1 && exponent.front() == '0') exponent.remove_prefix(1);
  if (negative) out += '-';
  out += exponent;
  out += "}}";
}

// append_tex's text, with `times` for its \times (JSON-escaped or not), by printf: "%.7g" for a
// whole number under a million, "%.*f" with 4 significant digits, "%.3e" (its mantissa's zeros
// dropped) otherwise.
void append_tex_printed(double value, std::string_view times, std::string& out) {
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
  append_power_of_ten(mantissa, exponent, times, out);
}

// The same text from the value's leading digits, rounded once (no printf, no strings made), for
// any value but a whole number under a million: false, and nothing written, where those digits
// cannot decide the rounding (round_digits).
bool append_tex_from_digits(double value, std::string_view times, std::string& out) {
  const double magnitude = std::fabs(value);
  if (!std::isfinite(value) || magnitude < std::numeric_limits<double>::min()) return false;
  Digits x = leading_digits(magnitude);  // a whole number under a million was written by append_tex_with
  std::array<char, 64> buf{};
  char* w = buf.data();
  if (value < 0) *w++ = '-';
  if (magnitude >= 1e-3 && magnitude < 1e6) {  // fixed4: "%.*f", then its zeros dropped
    const int decimals = std::max(0, 3 - static_cast<int>(std::floor(std::log10(magnitude))));
    const int keep = x.exponent + 1 + decimals;
    if (keep < 1 || keep > 12 || !round_digits(x, keep)) return false;
    w = write_fixed(x, x.exponent + 1 + decimals, x.exponent + 1, true, w);
    append_chars(out, buf.data(), w);
    return true;
  }
  if (!round_digits(x, 4)) return false;  // "%.3e"
  w = write_fixed(x, 4, 1, true, w);
  std::array<char, 8> e{};
  auto written = std::to_chars(e.data(), e.data() + e.size(), x.exponent);
  append_power_of_ten(std::string_view(buf.data(), static_cast<std::size_t>(w - buf.data())),
                      std::string_view(e.data(), static_cast<std::size_t>(written.ptr - e.data())), times, out);
  return true;
}

void append_tex_with(double value, std::string_view times, std::string& out) {
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e-3 && magnitude < 1e6 && std::floor(value) == value) {
    append_whole(static_cast<std::int64_t>(value), out);
    return;
  }
  if (!append_tex_from_digits(value, times, out)) append_tex_printed(value, times, out);
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

void append_quantity(double value, std::string_view unit, std::string& out) {
  if (!std::isfinite(value)) {
    out += "—";
    return;
  }
  const double magnitude = std::fabs(value);
  if (unit == "s" && magnitude >= 60) {
    if (magnitude >= kSecondsPerDay * 365.25 * 2) {
      append_readable(value / (kSecondsPerDay * 365.25), out);
      out += " years";
    } else if (magnitude >= kSecondsPerDay * 2) {
      append_readable(value / kSecondsPerDay, out);
      out += " days";
    } else {
      append_g(magnitude >= 3600 ? value / 3600 : value / 60, 3, out);
      out += magnitude >= 3600 ? " h" : " min";
    }
  } else if (unit == "days" && magnitude < 1) {
    // less than a day in its own unit: "3.13 s", "12 h", not "3.62 × 10⁻⁵ days"
    append_quantity(value * kSecondsPerDay, "s", out);
  } else if ((unit == "1/s" || unit == "responses/s") && magnitude > 0 && magnitude < 1) {
    // a slow rate per minute, hour or day: "5.77/min", not "0.0961/s"; "5.77 responses/min"
    const bool minute = magnitude * 60 >= 1, hour = magnitude * 3600 >= 1;
    const bool responses = unit != "1/s";
    append_quantity(value * (minute ? 60 : hour ? 3600 : kSecondsPerDay),
                    minute   ? (responses ? "responses/min" : "1/min")
                    : hour   ? (responses ? "responses/h" : "1/h")
                             : (responses ? "responses/day" : "1/day"),
                    out);
  } else if (unit == "usd" || unit == "USD") {
    append_dollars(value, out);
  } else if (unit == "ratio" || unit.empty()) {
    append_readable(value, out);
  } else if (unit == "share") {
    // a part of a whole, in percent: "7.07 %"
    append_readable(value * 100, out);
    out += " %";
  } else if (is_count(unit)) {
    append_count(value, unit, out);
  } else if (!takes_prefix(unit)) {
    const size_t start = out.size();
    append_readable(value, out);
    append_unit_word(out.substr(start), unit, out);
  } else if (value == 0) {
    out += "0 ";
    out += unit_symbol(unit);
  } else {
    append_prefixed(value, unit == "s", out);
    out += unit_symbol(unit);
  }
}

std::string format_quantity(double value, std::string_view unit) {
  std::string out;
  append_quantity(value, unit, out);
  return out;
}

std::string grouped(double value) { return format_quantity(value, "count"); }

std::string count_words(double value, std::string_view noun) {
  if (!std::isfinite(value) || std::floor(value) == value) return format_quantity(value, noun);
  return "about " + format_quantity(std::round(value), noun);
}

}  // namespace scalelab
