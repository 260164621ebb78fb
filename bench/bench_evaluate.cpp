// `scalelab_bench`: engine evaluations per second, one benchmark per registered calculator,
// on the first case of that calculator in tests/cases (the same inputs as bench/wasm_bench.mjs):
// evaluate/NAME with steps, numbers/NAME without (EvalOptions{.steps = false}), and
// sweep/decode_2048: one 2,048-point numbers-only decode sweep (the decode lab's batch curve).
//   build/scalelab_bench [--cases DIR] [google-benchmark flags, e.g. --benchmark_format=json]
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_inputs.hpp"
#include "scalelab/engine.hpp"
#include "scalelab/sweep_columns.hpp"

using scalelab::bench::first_inputs;
using scalelab::bench::kSweepParams;
using scalelab::bench::kSweepSpec;
using json = nlohmann::ordered_json;

int main(int argc, char** argv) {
  std::string dir = SCALELAB_BENCH_CASES_DIR;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--cases") == 0 && i + 1 < argc) {
      dir = argv[++i];
      continue;
    }
    args.push_back(argv[i]);
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());

  json registered = json::parse(scalelab::calculators_json());
  auto inputs = first_inputs(dir);
  for (const auto& c : registered["calculators"]) {
    std::string name = c["name"].get<std::string>();
    auto it = inputs.find(name);
    std::string input = it == inputs.end() ? "{}" : it->second;
    if (scalelab::evaluate(name, input).status != scalelab::Status::ok) {
      std::fprintf(stderr, "scalelab_bench: %s refuses its first case; skipped\n", name.c_str());
      continue;
    }
    benchmark::RegisterBenchmark(("evaluate/" + name).c_str(), [name, input](benchmark::State& state) {
      for (auto _ : state) {
        scalelab::Evaluation e = scalelab::evaluate(name, input);
        benchmark::DoNotOptimize(e.json.data());
      }
      state.SetItemsProcessed(state.iterations());
      state.SetLabel(std::to_string(scalelab::evaluate(name, input).json.size()) + " bytes out");
    });
  }
  for (const char* name : {"decode", "serving", "roofline", "collective", "transformer", "prefill", "training_memory",
                           "training_comm", "training_run"}) {
    auto it = inputs.find(name);
    if (it == inputs.end()) continue;
    std::string input = it->second;
    benchmark::RegisterBenchmark((std::string("numbers/") + name).c_str(), [name, input](benchmark::State& state) {
      for (auto _ : state) {
        scalelab::Evaluation e = scalelab::evaluate(name, input, scalelab::EvalOptions{.steps = false});
        benchmark::DoNotOptimize(e.json.data());
      }
      state.SetItemsProcessed(state.iterations());
    });
  }
  benchmark::RegisterBenchmark("sweep/decode_2048", [](benchmark::State& state) {
    for (auto _ : state) {
      scalelab::Evaluation e = scalelab::sweep("decode", kSweepParams, kSweepSpec);
      benchmark::DoNotOptimize(e.json.data());
    }
    state.SetItemsProcessed(state.iterations() * 2048);  // points per second
  })->Unit(benchmark::kMillisecond);
  // The same sweep with its columns as doubles (sweep_columns.hpp: what the browser calls).
  benchmark::RegisterBenchmark("sweep/decode_2048_columns", [](benchmark::State& state) {
    for (auto _ : state) {
      scalelab::SweepColumns c = scalelab::sweep_columns("decode", kSweepParams, kSweepSpec);
      benchmark::DoNotOptimize(c.values.data());
    }
    state.SetItemsProcessed(state.iterations() * 2048);
  })->Unit(benchmark::kMillisecond);
  // Formatting alone, for scale.
  benchmark::RegisterBenchmark("format_quantity", [](benchmark::State& state) {
    double v = 1.39e-3;
    for (auto _ : state) {
      std::string s = scalelab::format_quantity(v, "s");
      benchmark::DoNotOptimize(s.data());
      v *= 1.0000001;
    }
    state.SetItemsProcessed(state.iterations());
  });
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
