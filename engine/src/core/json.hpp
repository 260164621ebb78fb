#pragma once
#include <nlohmann/json.hpp>

namespace scalelab {
// Ordered so that results print in the order the engine builds them.
using json = nlohmann::ordered_json;
}  // namespace scalelab
