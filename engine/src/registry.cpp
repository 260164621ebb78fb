#include "registry.hpp"

#include "calculators/calculators.hpp"

namespace scalelab {

const std::vector<Calculator>& calculators() {
  static const std::vector<Calculator> table = {
      make_chip(),
      make_roofline(),
      make_transfer(),
      make_sharding(),
      make_collective(),
      make_sharded_matmul(),
      make_prefill(),
      make_decode(),
      make_serving(),
      make_transformer(),
      make_training_memory(),
      make_training_comm(),
      make_training_run(),
      make_compute_budget(),
      make_local_inference(),
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
