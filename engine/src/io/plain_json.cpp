#include "io/plain_json.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

#include "schema/schema.hpp"
#include "scalelab/limits.hpp"

namespace scalelab {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A double from the text of a JSON number, correctly rounded as nlohmann's strtod rounds it.
bool read_double(const char* first, const char* last, double& out) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  auto [end, error] = std::from_chars(first, last, out);
  return error == std::errc() && end == last;
#else  // Emscripten's libc++ has no floating from_chars; its strtod reads in the "C" locale
  char buffer[64];
  const auto size = static_cast<std::size_t>(last - first);
  if (size >= sizeof buffer) return false;
  std::memcpy(buffer, first, size);
  buffer[size] = '\0';
  char* end = nullptr;
  errno = 0;
  out = std::strtod(buffer, &end);
  return errno == 0 && end == buffer + size;
#endif
}

class PlainReader {
 public:
  explicit PlainReader(std::string_view text) : at_(text.data()), end_(text.data() + text.size()) {}

  bool document(json& out) {
    skip_space();
    if (!value(out)) return false;
    skip_space();
    return at_ == end_;
  }

 private:
  const char* at_;
  const char* end_;
  int depth_ = 0;  // objects and lists open around the reader

  void skip_space() {
    while (at_ != end_ && (*at_ == ' ' || *at_ == '\n' || *at_ == '\r' || *at_ == '\t')) ++at_;
  }
  bool take(char c) {
    if (at_ == end_ || *at_ != c) return false;
    ++at_;
    return true;
  }
  bool word(std::string_view w) {
    if (static_cast<std::size_t>(end_ - at_) < w.size() || std::string_view(at_, w.size()) != w) return false;
    at_ += w.size();
    return true;
  }

  bool value(json& out) {
    if (at_ == end_) return false;
    switch (*at_) {
      case '{': return nested(&PlainReader::object, out);
      case '[': return nested(&PlainReader::list, out);
      case '"': {
        std::string_view s;
        if (!string(s)) return false;
        out = std::string(s);
        return true;
      }
      case 't': out = true; return word("true");
      case 'f': out = false; return word("false");
      case 'n': out = nullptr; return word("null");
      default: return number(out);
    }
  }

  // An object or a list, one level deeper: past kMaxInputDepth, not plain.
  bool nested(bool (PlainReader::*read)(json&), json& out) {
    if (++depth_ > kMaxInputDepth) return false;
    const bool read_it = (this->*read)(out);
    --depth_;
    return read_it;
  }

  // Printable ASCII without escapes; anything else (an escape, UTF-8, a control byte) is for nlohmann.
  bool string(std::string_view& out) {
    ++at_;  // the opening quote
    const char* first = at_;
    while (at_ != end_ && *at_ != '"') {
      const auto c = static_cast<unsigned char>(*at_);
      if (c < 0x20 || c > 0x7f || c == '\\') return false;
      ++at_;
    }
    if (at_ == end_) return false;
    out = std::string_view(first, static_cast<std::size_t>(at_ - first));
    ++at_;  // the closing quote
    return true;
  }

  bool object(json& out) {
    ++at_;
    out = json::object();
    auto& members = out.get_ref<json::object_t&>();
    members.reserve(16);  // a request names a dozen parameters: one allocation, no moves
    skip_space();
    if (take('}')) return true;
    // The first keys as views into the text, for the test of a repeated key: the browser's -Oz
    // engine makes std::string's size and data calls, two per member compared.
    std::array<std::string_view, 24> keys;
    do {
      skip_space();
      if (at_ == end_ || *at_ != '"') return false;
      std::string_view key;
      if (!string(key)) return false;
      if (repeated(key, keys, members)) return false;
      skip_space();
      if (!take(':')) return false;
      skip_space();
      json v;
      if (!value(v)) return false;
      if (members.size() < keys.size()) keys[members.size()] = key;
      members.emplace_back(std::string(key), std::move(v));
      skip_space();
    } while (take(','));
    return take('}');
  }

  // Whether `key` names a member already read: among the views while they hold every key so far.
  template <std::size_t N>
  static bool repeated(std::string_view key, const std::array<std::string_view, N>& keys, const json::object_t& members) {
    if (members.size() <= N) {
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (same_name(keys[i], key)) return true;
      }
      return false;
    }
    return std::any_of(members.begin(), members.end(), [&](const auto& m) { return same_name(m.first, key); });
  }

  bool list(json& out) {
    ++at_;
    out = json::array();
    skip_space();
    if (take(']')) return true;
    do {
      skip_space();
      json v;
      if (!value(v)) return false;
      out.push_back(std::move(v));
      skip_space();
    } while (take(','));
    return take(']');
  }

  // JSON's grammar, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, read into the kind nlohmann
  // gives it: without a fraction or exponent an unsigned or (negative) signed integer; one out of
  // their range is for nlohmann, which reads it as a double.
  bool number(json& out) {
    const char* first = at_;
    const bool negative = take('-');
    if (at_ == end_ || !is_digit(*at_)) return false;
    if (*at_ == '0') {
      ++at_;
    } else {
      while (at_ != end_ && is_digit(*at_)) ++at_;
    }
    bool integer = true;
    if (take('.')) {
      integer = false;
      if (!digits()) return false;
    }
    if (at_ != end_ && (*at_ == 'e' || *at_ == 'E')) {
      integer = false;
      ++at_;
      if (!take('+')) take('-');
      if (!digits()) return false;
    }
    if (!integer) {
      double d = 0;
      if (!read_double(first, at_, d)) return false;
      out = d;
      return true;
    }
    std::uint64_t n = 0;  // the magnitude, digit by digit (from_chars costs the browser's engine 600 bytes)
    for (const char* c = first + (negative ? 1 : 0); c != at_; ++c) {
      const auto digit = static_cast<std::uint64_t>(*c - '0');
      if (n > (UINT64_MAX - digit) / 10) return false;
      n = n * 10 + digit;
    }
    if (!negative) {
      out = n;
    } else {
      if (n > std::uint64_t{1} << 63) return false;
      out = static_cast<std::int64_t>(std::uint64_t{0} - n);  // -2^63 included
    }
    return true;
  }
  bool digits() {
    if (at_ == end_ || !is_digit(*at_)) return false;
    while (at_ != end_ && is_digit(*at_)) ++at_;
    return true;
  }
};

}  // namespace

bool read_plain_json(std::string_view text, json& out) { return PlainReader(text).document(out); }

}  // namespace scalelab
