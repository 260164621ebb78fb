// The inputs the engine benchmarks share (scalelab_bench, scalelab_instructions): the first case
// of each calculator in tests/cases, and the 2,048-point decode sweep of BENCHMARKS.md.
#pragma once
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace scalelab::bench {

using json = nlohmann::ordered_json;

// The 2,048-point decode sweep of BENCHMARKS.md (the same as bench/wasm_bench.mjs): LLaMA-3 70B
// on 16 TPU v5e, every output, at 2,048 context lengths from 0 to 131,072 tokens.
inline const char* const kSweepParams = R"({"model": "llama3-70b", "chip": "tpu-v5e", "chips": 16, "batch": 32})";
inline const char* const kSweepSpec = R"({"x": {"param": "context", "from": 0, "to": 131072, "points": 2048, "scale": "linear"}})";

// calculator -> params of its first case (files in name order)
inline std::map<std::string, std::string> first_inputs(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::map<std::string, std::string> out;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream s;
    s << in.rdbuf();
    for (const auto& c : json::parse(s.str())) {
      out.emplace(c["calculator"].get<std::string>(), c["params"].dump());
    }
  }
  return out;
}

}  // namespace scalelab::bench
