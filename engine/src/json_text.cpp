#include "json_text.hpp"

#include <array>
#include <charconv>
#include <cmath>

namespace scalelab {
namespace {

// Printable ASCII other than '"' and '\\': written as it is by dump, so by us too. Nearly every
// string is, so every byte is looked at without an early exit (the loop vectorises).
bool plain_ascii(std::string_view s) {
  unsigned char special = 0;
  for (unsigned char c : s) special |= static_cast<unsigned char>((c < 0x20) | (c > 0x7e) | (c == '"') | (c == '\\'));
  return special == 0;
}

template <typename Integer>
void write_integer(Integer n, std::string& out) {
  std::array<char, 24> buf{};
  auto written = std::to_chars(buf.data(), buf.data() + buf.size(), n);
  out.append(buf.data(), written.ptr);
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

}  // namespace

void append_string(std::string_view s, std::string& out) {
  if (plain_ascii(s)) {
    out += '"';
    out += s;
    out += '"';
  } else {
    // Escapes, UTF-8 and its replacement of invalid bytes: nlohmann's own rules.
    out += json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
  }
}

void append_integer(std::int64_t n, std::string& out) { write_integer(n, out); }

void append_double(double x, std::string& out) {
  if (!std::isfinite(x)) {
    out += "null";
    return;
  }
  std::array<char, 64> buf{};
  char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), x);  // dump's own digits
  out.append(buf.data(), end);
}

void append_text(const json& value, std::string& out) { write(value, out); }

std::string to_text(const json& value) {
  std::string out;
  out.reserve(4096);
  write(value, out);
  return out;
}

}  // namespace scalelab
