#include "registry.hpp"

#include "calculators/calculators.hpp"
#include "labels.hpp"
#include "outputs.hpp"

namespace scalelab {
namespace {

// Each calculator with its parameters' labels and its declared outputs.
std::vector<Calculator> described(std::vector<Calculator> table) {
  for (Calculator& c : table) {
    label_params(c.params, c.name);
    c.outputs = declared_outputs(c.name);
  }
  return table;
}

}  // namespace

const std::vector<Calculator>& calculators() {
  static const std::vector<Calculator> table = described({
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
      make_finetune(),
  });
  return table;
}

const Calculator* find_calculator(std::string_view name) {
  for (const Calculator& c : calculators()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace scalelab
