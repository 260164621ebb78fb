// The engine's first calls on a lab's first load, for callgrind: the lab's schema, then its first
// numbers-only evaluation (the registry, labels, declared outputs and catalogs are built on the
// way). See BENCHMARKS.md, "Where a lab's first load goes":
//   valgrind --tool=callgrind --callgrind-out-file=cg.out build/scalelab_first_call decode
//   callgrind_annotate --inclusive=yes cg.out | grep -E 'first_(schema|evaluation)'
#include <cstdio>
#include <string>

#include "scalelab/engine.hpp"

namespace {

// Kept out of line so that callgrind reports each phase on its own.
[[gnu::noinline]] std::size_t first_schema(const char* name) { return scalelab::calculator_json(name).size(); }

[[gnu::noinline]] std::size_t first_evaluation(const char* name) {
  return scalelab::evaluate(name, "{}", scalelab::EvalOptions{.steps = false}).json.size();
}

}  // namespace

int main(int argc, char** argv) {
  const char* name = argc > 1 ? argv[1] : "decode";
  std::size_t schema = first_schema(name);
  std::size_t result = first_evaluation(name);
  std::printf("%s: schema %zu bytes, first result %zu bytes\n", name, schema, result);
  return schema > 4 && result > 0 ? 0 : 1;
}
