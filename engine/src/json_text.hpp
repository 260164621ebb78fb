// The result as text: the same bytes as json::dump(-1, ' ', false, error_handler_t::replace),
// written without nlohmann's per-byte UTF-8 check on the plain ASCII strings that make up nearly
// all of a result (keys, ids, verdicts). Numbers are written as dump writes them.
#pragma once
#include <string>

#include "json.hpp"

namespace scalelab {

std::string to_text(const json& value);

}  // namespace scalelab
