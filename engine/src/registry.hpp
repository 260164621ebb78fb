#pragma once
#include <string_view>
#include <vector>

#include "schema.hpp"

namespace scalelab {

const std::vector<Calculator>& calculators();
const Calculator* find_calculator(std::string_view name);

}  // namespace scalelab
