// What every calculator outputs: name, unit, label, doc, nullable (outputs.cpp).
#pragma once
#include <string_view>
#include <vector>

#include "schema.hpp"

namespace scalelab {

// The declared outputs of calculator `name`, in the order results list them.
std::vector<Output> declared_outputs(std::string_view name);

}  // namespace scalelab
