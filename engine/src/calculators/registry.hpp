#pragma once
#include <string_view>
#include <vector>

#include "schema/schema.hpp"

namespace scalelab {

// Every calculator, each built (parameters, labels, declared outputs) at first use.
const std::vector<const Calculator*>& calculators();
// Calculator `name`, built at first use without building the others; nullptr when unknown.
const Calculator* find_calculator(std::string_view name);
// The registered names, in the registry's order; builds nothing.
std::vector<std::string_view> calculator_names();

}  // namespace scalelab
