// A request read without nlohmann's lexer when its text is plain JSON: objects, lists, numbers,
// true, false, null and strings of printable ASCII without escapes, no key given twice. That is
// every request the course and the book's cases send; nlohmann's parse, with its exact messages
// for malformed text, reads the rest. Where both read a text they build the same value, number
// kinds included (8 an unsigned integer, -8 a signed one, 8.0 a double).
#pragma once
#include <string_view>

#include "core/json.hpp"

namespace scalelab {

// Reads `text` into `out` and returns true when it is plain and nests at most kMaxInputDepth
// levels (scalelab/limits.hpp); false (and `out` unspecified) when it is anything else, valid or
// not: a text for the depth test and json::parse.
bool read_plain_json(std::string_view text, json& out);

}  // namespace scalelab
