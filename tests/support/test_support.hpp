// Shared helpers for the scalelab tests: the case and bad-input data files, the JSON
// comparison rules of tests/cases/FORMAT.md, and a small subprocess runner.
#pragma once
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace scalelab::testing {

using json = nlohmann::ordered_json;

// Paths come from compile definitions set in tests/CMakeLists.txt.
std::string cases_dir();
std::string bad_inputs_path();
std::string scalelab_bin();
std::string source_dir();

std::string read_file(const std::string& path);

struct Case {
  std::string id, file, calculator;
  json raw;  // the whole case object
};
// Every case of every tests/cases/*.json, files in name order.
const std::vector<Case>& cases();

struct BadInput {
  std::string id, calculator, input;
  json param;  // expected error param (string) or null
  std::string contains;
};
// tests/bad_inputs.json, with generated inputs expanded.
const std::vector<BadInput>& bad_inputs();

// Names of the calculators the engine registers now.
const std::set<std::string>& registered_calculators();

// One evaluation a test runs over everything: `where` names it in messages.
struct Evaluated {
  std::string where, calculator, input;
};
// Every registered calculator on its defaults, then every case's params; with
// `with_bad_inputs`, every input of tests/bad_inputs.json after them.
std::vector<Evaluated> evaluations(bool with_bad_inputs);

// `j` as the engine writes JSON: dump's compact text (dump(-1, ' ', false, replace)), but every
// double with the shortest digits that read back as it (std::to_chars, libstdc++'s Ryu), in
// dump's layout (1.5, 0.0001, 2.5e+20). dump's own digits (grisu2) are one or two longer for about
// one double in a hundred; the engine's, for every number it writes canonical, are the shortest.
std::string shortest_dump(const json& j);

// FORMAT.md comparison: returns "" when `actual` matches `expected`, else what differs.
std::string compare(const json& expected, const json& actual, double rel_tol, const std::string& path);

// Short descriptions for gtest's messages.
void PrintTo(const Case& c, std::ostream* os);
void PrintTo(const BadInput& b, std::ostream* os);

// A gtest-safe name (letters, digits, '_').
std::string test_name(const std::string& id);

struct RunResult {
  int exit_code = -1;  // -1: killed by a signal
  int signal = 0;
  std::string out, err;
};
// Runs argv[0] with argv, feeding `stdin_text`; captures stdout and stderr.
RunResult run(const std::vector<std::string>& argv, const std::string& stdin_text = "");

}  // namespace scalelab::testing
