// `scalelab_replay`: the engine's answer to every request of a list, one line each, for comparing
// two builds byte for byte (bench/replay_requests.py writes the list; `cmp` compares the answers).
// Each input line is a JSON object: {"op": "eval", "calc", "input", "steps"}, {"op": "sweep",
// "calc", "params", "spec"} or {"op": "sweep_request", "calc", "request"}. Each output line is the
// status, a tab and the result's text.
//   build/scalelab_replay < requests.jsonl > answers.txt
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "scalelab/engine.hpp"

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    auto r = nlohmann::json::parse(line);
    const std::string op = r["op"], calc = r["calc"];
    scalelab::Evaluation e;
    if (op == "eval") {
      e = scalelab::evaluate(calc, r["input"].get<std::string>(), scalelab::EvalOptions{.steps = r["steps"].get<bool>()});
    } else if (op == "sweep") {
      e = scalelab::sweep(calc, r["params"].get<std::string>(), r["spec"].get<std::string>());
    } else {
      e = scalelab::sweep_request(calc, r["request"].get<std::string>());
    }
    std::cout << scalelab::status_name(e.status) << '\t' << e.json << '\n';
  }
  return 0;
}
