#include "calculators/registry.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <utility>

#include "schema/args.hpp"
#include "calculators/calculators.hpp"
#include "schema/labels.hpp"

namespace scalelab {
namespace {

struct Entry {
  std::string_view name;  // the name its factory gives it (checked when it is built)
  Calculator (*make)() = nullptr;
};

// The registry: the rows of calculators.hpp (SCALELAB_EACH_CALCULATOR), in the order listings
// show them; the one list of the calculators' names.
#define SCALELAB_REGISTRY_ROW(NAME) Entry{#NAME, make_##NAME},
constexpr Entry kAll[] = {SCALELAB_EACH_CALCULATOR(SCALELAB_REGISTRY_ROW)};
#undef SCALELAB_REGISTRY_ROW

// A build of the engine for some labs (wasm/variants.json) holds only the rows named in
// SCALELAB_CALCULATORS ("chip,decode,serving"); the rows left out are never referenced, so the
// linker drops their calculators. Without it, every row.
#ifdef SCALELAB_CALCULATORS
constexpr std::string_view kHeldList = SCALELAB_CALCULATORS;
#else
constexpr std::string_view kHeldList = "";
#endif

// Whether `pred` holds for some name of kHeldList.
template <class Pred>
constexpr bool some_listed(Pred pred) {
  for (std::string_view rest = kHeldList; !rest.empty();) {
    std::size_t comma = rest.find(',');
    if (pred(rest.substr(0, comma))) return true;
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return false;
}
constexpr bool is_row(std::string_view name) {
  for (const Entry& e : kAll) {
    if (e.name == name) return true;
  }
  return false;
}
constexpr bool held(const Entry& e) {
  return kHeldList.empty() || some_listed([&](std::string_view n) { return n == e.name; });
}
// Every name in kHeldList is a row: a misspelt variant fails to compile, never a silent gap.
static_assert(!some_listed([](std::string_view n) { return !is_row(n); }),
              "SCALELAB_CALCULATORS names a calculator the registry has no row for");

constexpr std::size_t kCount = [] {
  std::size_t n = 0;
  for (const Entry& e : kAll) n += held(e) ? 1 : 0;
  return n;
}();
// The rows this build holds, in the registry's order.
constexpr std::array<Entry, kCount> kEntries = [] {
  std::array<Entry, kCount> rows{};
  std::size_t k = 0;
  for (const Entry& e : kAll) {
    if (held(e)) rows[k++] = e;
  }
  return rows;
}();

// The calculator of row `entry` with its parameters' labels and its declared outputs.
Calculator described(const Entry& entry) {
  Calculator c = entry.make();
  if (c.name != entry.name) {
    throw std::logic_error("registry row \"" + std::string(entry.name) + "\" builds calculator \"" + c.name + "\"");
  }
  for (const Param& p : c.params) {
    // A parameter's name is written into every result's inputs as it is (Args::append_inputs).
    if (!is_name(p.name)) throw std::logic_error("calculator \"" + c.name + "\": parameter \"" + p.name + "\" is not a name");
  }
  label_params(c.params, c.name);
  // Its outputs are declared beside it (make_NAME gives them, from its kOutputs rows).
  if (c.outputs.empty()) throw std::logic_error("calculator \"" + c.name + "\" declares no outputs");
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
