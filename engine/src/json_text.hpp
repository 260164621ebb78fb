// The result as text: the same bytes as json::dump(-1, ' ', false, error_handler_t::replace),
// written without nlohmann's per-byte UTF-8 check on the plain ASCII strings that make up nearly
// all of a result (keys, ids, verdicts). Numbers are written as dump writes them.
#pragma once
#include <cstdint>
#include <string>

#include "json.hpp"

namespace scalelab {

std::string to_text(const json& value);

// The same, appended to `out`, for results written piece by piece.
void append_text(const json& value, std::string& out);
// One string (a key or a value) with its quotes, escaped as dump escapes it.
void append_string(const std::string& s, std::string& out);
// A number as dump writes an integer or a double.
void append_integer(std::int64_t n, std::string& out);
void append_double(double x, std::string& out);

}  // namespace scalelab
