// `scalelab_profile_workload`: the work the native engine is profiled on before its release build
// (scripts/build.sh; GCC's profile-guided optimisation, BENCHMARKS.md "Profile-guided
// optimisation"). Every case of tests/cases (the book's worked problems, the course's own inputs)
// evaluated with its steps and numbers only, and the 2,048-point decode sweep of the benchmarks
// as JSON and as columns, `rounds` times; the engine's one-time work (catalogs, schemas) once.
//   scalelab_profile_workload CASES_DIR [rounds]
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_inputs.hpp"
#include "scalelab/engine.hpp"
#include "scalelab/sweep_columns.hpp"

namespace {

// calculator, params as text: every case of every file in `dir`
std::vector<std::pair<std::string, std::string>> every_case(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> cases;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& c : nlohmann::json::parse(text.str())) {
      cases.emplace_back(c.at("calculator").get<std::string>(), c.at("params").dump());
    }
  }
  return cases;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: scalelab_profile_workload CASES_DIR [rounds]\n");
    return 2;
  }
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 20;
  if (rounds < 1) {
    std::fprintf(stderr, "scalelab_profile_workload: rounds must be a whole number of at least 1\n");
    return 2;
  }
  const auto cases = every_case(argv[1]);
  std::size_t bytes = scalelab::calculators_json().size() + scalelab::chips_json().size() +
                      scalelab::models_json().size() + scalelab::formats_json().size() +
                      scalelab::measurements_json().size();
  int refused = 0;
  for (int round = 0; round < rounds; ++round) {
    for (const auto& [calculator, params] : cases) {
      for (bool steps : {true, false}) {
        scalelab::Evaluation e = scalelab::evaluate(calculator, params, scalelab::EvalOptions{.steps = steps});
        refused += e.status != scalelab::Status::ok;
        bytes += e.json.size();
      }
    }
    bytes += scalelab::sweep("decode", scalelab::bench::kSweepParams, scalelab::bench::kSweepSpec).json.size();
    bytes += scalelab::sweep_columns("decode", scalelab::bench::kSweepParams, scalelab::bench::kSweepSpec).values.size();
  }
  std::printf("%zu cases, %d rounds, %d refused (cases that expect an error), %zu bytes out\n", cases.size(), rounds,
              refused / rounds / 2, bytes);
  return 0;
}
