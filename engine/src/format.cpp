#include "format.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace scalelab {
namespace {

std::string printf_g(double value, int digits) {
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), "%.*g", digits, value);
  return buf.data();
}

// 1.97e14 -> mantissa "1.97", exponent 14 (at most `digits` significant digits)
void split_exponent(double value, int digits, std::string& mantissa, int& exponent) {
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), "%.*e", digits - 1, value);
  std::string s = buf.data();
  auto e = s.find('e');
  mantissa = s.substr(0, e);
  exponent = std::atoi(s.c_str() + e + 1);
  if (mantissa.find('.') != std::string::npos) {
    while (mantissa.back() == '0') mantissa.pop_back();
    if (mantissa.back() == '.') mantissa.pop_back();
  }
}

// 4 significant digits in fixed notation: 0.001395, 240.2, 4096
std::string fixed4(double value) {
  double magnitude = std::fabs(value);
  int decimals = std::max(0, 3 - static_cast<int>(std::floor(std::log10(magnitude))));
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), "%.*f", decimals, value);
  std::string s = buf.data();
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

struct Prefix {
  double scale;
  const char* symbol;
};

constexpr std::array<Prefix, 11> kPrefixes{{{1e24, "Y"}, {1e21, "Z"}, {1e18, "E"}, {1e15, "P"},
                                            {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"},
                                            {1, ""}, {1e-3, "m"}, {1e-6, "µ"}}};

// Units that are spelled out after an SI prefix: bytes -> "GB", FLOP/s -> "TFLOP/s".
std::string unit_symbol(std::string_view unit) {
  if (unit == "bytes") return "B";
  if (unit == "bytes/s") return "B/s";
  if (unit == "FLOPs") return "FLOPs";
  if (unit == "FLOP/s") return "FLOP/s";
  return std::string(unit);
}

bool takes_prefix(std::string_view unit) {
  return unit == "bytes" || unit == "bytes/s" || unit == "FLOPs" || unit == "FLOP/s" ||
         unit == "s" || unit == "Hz" || unit == "tokens" || unit == "params" ||
         unit == "tokens/s" || unit == "count";
}

std::string with_prefix(double value, std::string_view unit) {
  double magnitude = std::fabs(value);
  bool seconds = unit == "s";
  for (const Prefix& p : kPrefixes) {
    if (seconds && p.scale > 1) continue;  // no kiloseconds: minutes/hours handled below
    if (magnitude >= p.scale * 0.9995 || &p == &kPrefixes.back()) {
      if (unit == "count" || unit == "tokens" || unit == "params") {
        if (p.scale < 1) break;  // plain small counts
        std::string sym = p.scale == 1e3 ? "k" : p.scale == 1e6 ? "M" : p.scale == 1e9 ? "B"
                          : p.scale == 1e12 ? "T" : p.symbol;
        std::string n = printf_g(value / p.scale, 3);
        std::string suffix = unit == "count" ? "" : " " + std::string(unit);
        return n + sym + suffix;
      }
      if (&p == &kPrefixes.back() && magnitude < 1e-6 * 0.9995) {
        return printf_g(value * 1e9, 3) + " n" + unit_symbol(unit);
      }
      return printf_g(value / p.scale, 3) + " " + p.symbol + unit_symbol(unit);
    }
  }
  return printf_g(value, 3) + " " + unit_symbol(unit);
}

}  // namespace

double canonical(double value) {
  if (!std::isfinite(value) || value == 0) return value == 0 ? 0.0 : value;
  return std::strtod(printf_g(value, 15).c_str(), nullptr);
}

std::string plain(double value) {
  std::string mantissa;
  int exponent = 0;
  if (std::fabs(value) >= 1e6 || (value != 0 && std::fabs(value) < 1e-4)) {
    split_exponent(value, 6, mantissa, exponent);
    return mantissa + "e" + std::to_string(exponent);
  }
  return printf_g(value, 10);
}

std::string tex(double value) {
  if (value == 0) return "0";
  double magnitude = std::fabs(value);
  if (magnitude >= 1e-3 && magnitude < 1e6) {
    if (std::floor(value) == value) return printf_g(value, 7);
    return fixed4(value);
  }
  std::string mantissa;
  int exponent = 0;
  split_exponent(value, 4, mantissa, exponent);
  // Braced, so that a formula may raise it to a power: {4.59\times10^{14}}^2.
  if (mantissa == "1") return "{10^{" + std::to_string(exponent) + "}}";
  if (mantissa == "-1") return "{-10^{" + std::to_string(exponent) + "}}";
  return "{" + mantissa + "\\times10^{" + std::to_string(exponent) + "}}";
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
    if (magnitude >= 86400 * 365.25 * 2) return printf_g(value / (86400 * 365.25), 3) + " years";
    if (magnitude >= 86400 * 2) return printf_g(value / 86400, 3) + " days";
    if (magnitude >= 3600) return printf_g(value / 3600, 3) + " h";
    return printf_g(value / 60, 3) + " min";
  }
  if (unit == "usd") return "$" + printf_g(value, 3);
  if (unit == "ratio" || unit.empty() || unit == "FLOPs/byte") {
    std::string n = std::fabs(value) >= 1e6 ? plain(canonical(value)) : printf_g(value, 3);
    return unit == "FLOPs/byte" ? n + " FLOPs/byte" : n;
  }
  if (!takes_prefix(unit)) return printf_g(value, 3) + " " + std::string(unit);
  if (value == 0) return "0 " + unit_symbol(unit);
  return with_prefix(value, unit);
}

}  // namespace scalelab
