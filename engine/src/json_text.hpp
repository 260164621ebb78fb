// The result as text: the same bytes as json::dump(-1, ' ', false, error_handler_t::replace),
// written without nlohmann's per-byte UTF-8 check on the plain ASCII strings that make up nearly
// all of a result (keys, ids, verdicts). Numbers are written as dump writes them.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "json.hpp"

namespace scalelab {

std::string to_text(const json& value);

// The same, appended to `out`, for results written piece by piece.
void append_text(const json& value, std::string& out);
// One string (a key or a value) with its quotes, escaped as dump escapes it.
void append_string(std::string_view s, std::string& out);
// A number as dump writes an integer or a double.
void append_integer(std::int64_t n, std::string& out);
void append_double(double x, std::string& out);

// An object or an array written member by member, as dump writes them: `value(member, key)`
// writes each value, `key` being null for an array's items. False (and nothing written) for
// anything else.
template <class WriteValue>
bool append_container(const json& j, std::string& out, WriteValue&& value) {
  if (!j.is_object() && !j.is_array()) return false;
  out += j.is_object() ? '{' : '[';
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) out += ',';
    first = false;
    if (j.is_object()) {
      append_string(it.key(), out);
      out += ':';
      value(it.value(), &it.key());
    } else {
      value(it.value(), nullptr);
    }
  }
  out += j.is_object() ? '}' : ']';
  return true;
}

}  // namespace scalelab
