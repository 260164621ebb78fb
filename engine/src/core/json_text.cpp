#include "core/json_text.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

namespace scalelab {
namespace {

// Printable ASCII other than '"' and '\\': written as it is by dump, so by us too. Nearly every
// string is. Eight bytes at a time: a byte below 0x20, above 0x7e, or equal to '"' or '\\' sets
// its high bit in `special` (the exact SWAR tests for a byte less than n ≤ 128, more than
// n < 128, and zero after an xor); the last eight bytes overlap the chunk before them, and a
// string under eight bytes is padded with 'a'.
// Inlined into both callers: a call of its own cost the steps of a serving evaluation 2 %.
[[gnu::always_inline]] inline bool plain_ascii(std::string_view s) {
  constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  auto special = [&](std::uint64_t x) __attribute__((always_inline)) {
    std::uint64_t below_space = (x - ones * 0x20) & ~x;
    std::uint64_t above_tilde = (x + ones * (127 - 0x7e)) | x;
    std::uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');
    std::uint64_t is_quote = (quote - ones) & ~quote, is_backslash = (backslash - ones) & ~backslash;
    return (below_space | above_tilde | is_quote | is_backslash) & highs;
  };
  const char* p = s.data();
  const std::size_t n = s.size();
  auto load = [&](std::size_t at) __attribute__((always_inline)) {
    std::uint64_t x;
    std::memcpy(&x, p + at, 8);
    return x;
  };
  std::uint64_t found = 0;
  if (n >= 8) {
    for (std::size_t i = 0; i + 8 < n; i += 8) found |= special(load(i));
    found |= special(load(n - 8));  // the last eight bytes, overlapping the chunk before
  } else {
    char padded[8] = {'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'};
    for (std::size_t i = 0; i < n; ++i) padded[i] = p[i];
    std::uint64_t x;
    std::memcpy(&x, padded, 8);
    found = special(x);
  }
  return found == 0;
}

template <typename Integer>
void write_integer(Integer n, std::string& out) {
  std::array<char, 24> buf{};
  auto written = std::to_chars(buf.data(), buf.data() + buf.size(), n);
  append_chars(out, buf.data(), written.ptr);
}

void write(const json& j, std::string& out) {
  if (append_container(j, out, [&](const json& member, const std::string*) { write(member, out); })) return;
  switch (j.type()) {
    case json::value_t::string: append_string(j.get_ref<const std::string&>(), out); return;
    case json::value_t::boolean: out += j.get<bool>() ? "true" : "false"; return;
    case json::value_t::number_integer: write_integer(j.get<std::int64_t>(), out); return;
    case json::value_t::number_unsigned: write_integer(j.get<std::uint64_t>(), out); return;
    case json::value_t::number_float: append_double(j.get<double>(), out); return;
    case json::value_t::null: out += "null"; return;
    default: out += j.dump(-1, ' ', false, json::error_handler_t::replace); return;
  }
}

// How dump writes each byte of a seven-bit string (ensure_ascii off): 0 as it is, 'u' as
// \u00xx (lower case hex: the control characters without a short escape), else a backslash and
// that letter. DEL is written as it is.
constexpr std::array<char, 128> kEscape = [] {
  std::array<char, 128> e{};
  for (int c = 0; c < 0x20; ++c) e[c] = 'u';
  e['\b'] = 'b';
  e['\t'] = 't';
  e['\n'] = 'n';
  e['\f'] = 'f';
  e['\r'] = 'r';
  e['"'] = '"';
  e['\\'] = '\\';
  return e;
}();

// The length of the well-formed UTF-8 sequence at the start of `s` (a lead byte at or above
// 0x80), 0 if it is not one: the sequences of the Unicode standard's table 3-7, which are those
// nlohmann's decoder accepts (no overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8_sequence(std::string_view s) {
  auto at = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  auto tail = [&](std::size_t i, unsigned lo = 0x80, unsigned hi = 0xbf) {
    return i < s.size() && at(i) >= lo && at(i) <= hi;
  };
  const unsigned c = at(0);
  if (c >= 0xc2 && c <= 0xdf) return tail(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const unsigned lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    return tail(1, lo, hi) && tail(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    return tail(1, lo, hi) && tail(2) && tail(3) ? 4 : 0;
  }
  return 0;
}

// `s` escaped as dump escapes it (ensure_ascii off), without quotes, if it is well-formed UTF-8:
// seven-bit bytes by the table, each multi-byte sequence copied as it is. False and `out` as it
// was otherwise (invalid bytes are nlohmann's to replace). The bytes between two escapes are
// appended as one run (a TeX symbol holds one or two backslashes among plain letters).
bool append_escaped_utf8(std::string_view s, std::string& out) {
  static constexpr char hex[] = "0123456789abcdef";
  const std::size_t before = out.size();
  std::size_t run = 0;  // where the plain bytes not yet appended start
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t n = utf8_sequence(s.substr(i));
      if (n == 0) {
        out.resize(before);
        return false;
      }
      i += n;
      continue;
    }
    const char e = kEscape[c];
    if (e == 0) {
      ++i;
      continue;
    }
    out.append(s.data() + run, i - run);
    if (e != 'u') {
      const char escape[2] = {'\\', e};
      out.append(escape, 2);
    } else {
      const char escape[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf]};
      out.append(escape, 6);
    }
    run = ++i;
  }
  out.append(s.data() + run, s.size() - run);
  return true;
}

}  // namespace

void append_escaped(std::string_view s, std::string& out) {
  if (plain_ascii(s)) {
    out += s;
  } else if (!append_escaped_utf8(s, out)) {
    // Invalid UTF-8 and its replacement: nlohmann's own rules (its quotes left out).
    std::string quoted = json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
    out.append(quoted, 1, quoted.size() - 2);
  }
}

void append_literal_escaping(std::string_view s, LiteralForm form, std::string& out) {
  switch (form) {
    case LiteralForm::as_is: out += s; return;
    case LiteralForm::backslashes_doubled: {
      std::size_t run = 0;  // where the bytes not yet appended start
      for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\') continue;
        out.append(s.data() + run, i + 1 - run);  // up to and with the backslash
        out += '\\';
        run = i + 1;
      }
      out.append(s.data() + run, s.size() - run);
      return;
    }
    case LiteralForm::escaped_at_run_time: append_escaped(s, out); return;
  }
}

void escape_tail(std::string& out, std::size_t from) {
  if (plain_ascii(std::string_view(out).substr(from))) return;  // nearly always: nothing to do
  std::string raw = out.substr(from);
  out.resize(from);
  append_escaped(raw, out);
}

void append_string(std::string_view s, std::string& out) {
  out += '"';
  append_escaped(s, out);
  out += '"';
}

void append_integer(std::int64_t n, std::string& out) { write_integer(n, out); }

char* put_integer(std::int64_t n, char* w) { return std::to_chars(w, w + kMaxNumberChars, n).ptr; }

char* put_decimal(const Decimal& d, char* w) {
  if (d.value < 0) *w++ = '-';
  const int count = write_digits(d, w);
  // dump's layout of the digits × 10^(exponent of the last): fixed from 1e-4 to below 1e15, else
  // d.ddde±XX (the kMinExp and kMaxExp of nlohmann's to_chars).
  constexpr int kFixedFrom = -4, kFixedBelow = 15;
  return nlohmann::detail::dtoa_impl::format_buffer(w, count, d.leading_exponent() - (count - 1), kFixedFrom, kFixedBelow);
}

char* put_double(double x, char* w) {
  if (!std::isfinite(x)) {
    std::memcpy(w, "null", 4);
    return w + 4;
  }
  if (std::optional<Decimal> d = fifteen_digits(x); d && d->value == x) return put_decimal(*d, w);
  return nlohmann::detail::to_chars(w, w + kMaxNumberChars, x);  // dump's own digits
}

void append_decimal(const Decimal& d, std::string& out) {
  std::array<char, kMaxNumberChars> buf;
  append_chars(out, buf.data(), put_decimal(d, buf.data()));
}

void append_double(double x, std::string& out) {
  std::array<char, kMaxNumberChars> buf;
  append_chars(out, buf.data(), put_double(x, buf.data()));
}

bool is_plain_text(std::string_view s) { return plain_ascii(s); }

char* write_room(std::size_t bytes) {
  thread_local std::vector<char> buffer;
  if (buffer.size() < bytes) buffer.resize(std::max<std::size_t>(bytes, 4096));
  return buffer.data();
}

std::size_t plain_scalar_bound(const json& v) {
  switch (v.type()) {
    case json::value_t::string: {
      const std::string& s = v.get_ref<const std::string&>();
      return plain_ascii(s) ? s.size() + 2 : 0;
    }
    case json::value_t::boolean:
    case json::value_t::null:
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return kMaxNumberChars;
    default: return 0;
  }
}

char* put_plain_scalar(const json& v, char* w) {
  auto put = [&](std::string_view bytes) {
    std::memcpy(w, bytes.data(), bytes.size());
    return w + bytes.size();
  };
  switch (v.type()) {
    case json::value_t::string:
      *w++ = '"';
      w = put(v.get_ref<const std::string&>());
      *w++ = '"';
      return w;
    case json::value_t::boolean: return put(v.get<bool>() ? "true" : "false");
    case json::value_t::number_integer: return put_integer(v.get<std::int64_t>(), w);
    case json::value_t::number_unsigned: return std::to_chars(w, w + kMaxNumberChars, v.get<std::uint64_t>()).ptr;
    case json::value_t::number_float: return put_double(v.get<double>(), w);
    default: return put("null");
  }
}

void append_text(const json& value, std::string& out) { write(value, out); }

std::string to_text(const json& value) {
  std::string out;
  out.reserve(4096);
  write(value, out);
  return out;
}

}  // namespace scalelab
