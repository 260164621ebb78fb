#include "registry.hpp"

#include "calculators/calculators.hpp"

namespace scalelab {

const std::vector<Calculator>& calculators() {
  static const std::vector<Calculator> table = {
      make_chip(),
      make_roofline(),
      make_transfer(),
  };
  return table;
}

const Calculator* find_calculator(std::string_view name) {
  for (const Calculator& c : calculators()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace scalelab
