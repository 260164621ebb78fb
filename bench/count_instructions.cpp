// `scalelab_instructions`: runs one engine call N times, for counting its instructions under
// callgrind (bench/callgrind.sh takes the difference of two counts, so that start-up and the
// first call's catalog parsing drop out). The inputs are scalelab_bench's.
//   build/scalelab_instructions decode|serving N [--steps]   numbers-only (or with steps) evaluations
//   build/scalelab_instructions sweep N                      2,048-point decode sweeps
//   build/scalelab_instructions sweep-columns N              the same, columns as doubles (the browser's)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_inputs.hpp"
#include "scalelab/engine.hpp"
#include "scalelab/sweep_columns.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: scalelab_instructions decode|serving|sweep|sweep-columns N [--steps]\n");
    return 2;
  }
  std::string what = argv[1];
  int n = std::atoi(argv[2]);
  bool steps = argc > 3 && std::strcmp(argv[3], "--steps") == 0;
  auto inputs = scalelab::bench::first_inputs(SCALELAB_BENCH_CASES_DIR);
  std::size_t bytes = 0;
  for (int i = 0; i < n; ++i) {
    scalelab::Evaluation e;
    if (what == "sweep") {
      e = scalelab::sweep("decode", scalelab::bench::kSweepParams, scalelab::bench::kSweepSpec);
    } else if (what == "sweep-columns") {
      scalelab::SweepColumns columns = scalelab::sweep_columns("decode", scalelab::bench::kSweepParams, scalelab::bench::kSweepSpec);
      e = std::move(columns.header);
      bytes += columns.values.size() * sizeof(double);
    } else {
      e = scalelab::evaluate(what, inputs.at(what), scalelab::EvalOptions{.steps = steps});
    }
    if (e.status != scalelab::Status::ok) {
      std::fprintf(stderr, "%s refused: %s\n", what.c_str(), e.message.c_str());
      return 1;
    }
    bytes += e.json.size();
  }
  std::printf("%zu bytes out\n", bytes);
  return 0;
}
