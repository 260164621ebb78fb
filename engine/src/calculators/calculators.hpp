// One factory per calculator. The registry (registry.cpp) lists them in one explicit table.
#pragma once
#include "../schema.hpp"

namespace scalelab {

Calculator make_chip();
Calculator make_roofline();
Calculator make_transfer();

}  // namespace scalelab
