#include "registry.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <utility>

#include "calculators/calculators.hpp"
#include "labels.hpp"
#include "outputs.hpp"

namespace scalelab {
namespace {

struct Entry {
  std::string_view name;  // the name its factory gives it (checked when it is built)
  Calculator (*make)();
};

// The registry: one row per calculator, in the order listings show them.
constexpr Entry kEntries[] = {
    {"chip", make_chip},
    {"roofline", make_roofline},
    {"transfer", make_transfer},
    {"sharding", make_sharding},
    {"collective", make_collective},
    {"sharded_matmul", make_sharded_matmul},
    {"prefill", make_prefill},
    {"decode", make_decode},
    {"serving", make_serving},
    {"transformer", make_transformer},
    {"training_memory", make_training_memory},
    {"training_comm", make_training_comm},
    {"training_run", make_training_run},
    {"compute_budget", make_compute_budget},
    {"local_inference", make_local_inference},
    {"finetune", make_finetune},
};
constexpr std::size_t kCount = std::size(kEntries);

// The calculator of row `entry` with its parameters' labels and its declared outputs.
Calculator described(const Entry& entry) {
  Calculator c = entry.make();
  if (c.name != entry.name) {
    throw std::logic_error("registry row \"" + std::string(entry.name) + "\" builds calculator \"" + c.name + "\"");
  }
  label_params(c.params, c.name);
  c.outputs = declared_outputs(c.name);
  return c;
}

// Row I, built once on first use (a function-local static: thread-safe, and no other row is built).
template <std::size_t I>
const Calculator& built() {
  static const Calculator calculator = described(kEntries[I]);
  return calculator;
}

template <std::size_t... I>
constexpr std::array<const Calculator& (*)(), kCount> builders(std::index_sequence<I...>) {
  return {&built<I>...};
}
constexpr auto kBuilders = builders(std::make_index_sequence<kCount>());

}  // namespace

const std::vector<const Calculator*>& calculators() {
  static const std::vector<const Calculator*> all = [] {
    std::vector<const Calculator*> out;
    for (auto build : kBuilders) out.push_back(&build());
    return out;
  }();
  return all;
}

const Calculator* find_calculator(std::string_view name) {
  for (std::size_t i = 0; i < kCount; ++i) {
    if (kEntries[i].name == name) return &kBuilders[i]();
  }
  return nullptr;
}

std::vector<std::string_view> calculator_names() {
  std::vector<std::string_view> names;
  for (const Entry& e : kEntries) names.push_back(e.name);
  return names;
}

}  // namespace scalelab
