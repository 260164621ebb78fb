// The engine's folders are its layers (README, "Layout"): each file includes only files of its own
// folder or of a folder below it, and no file's includes lead back to it. Read from the sources
// themselves, so that an include added anywhere is checked at the next test run:
//   io/ → calculators/ → models/ → schema/ → catalog/ → core/
// The public headers (engine/include/scalelab) are the io layer's face to the fronts (cli/,
// server/, wasm/), whose builds see no other engine header.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "scalelab/engine.hpp"
#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using scalelab::testing::json;

// The layers, lowest first: a file may include its own folder and those before it. The public
// headers ("include") declare what io implements, and include only one another.
const std::vector<std::string> kLayers = {"core", "catalog", "schema", "models", "calculators", "include", "io"};

int rank_of(const std::string& folder) {
  auto at = std::find(kLayers.begin(), kLayers.end(), folder);
  return at == kLayers.end() ? -1 : static_cast<int>(at - kLayers.begin());
}

struct Include {
  std::string from, to;  // paths relative to engine/ ("src/core/expr.hpp", "include/scalelab/engine.hpp")
};

fs::path engine_dir() { return fs::path(scalelab::testing::source_dir()) / "engine"; }

// The quoted includes of `file` (its own path relative to engine/), each resolved as the compiler
// would: beside the file, then from engine/src and engine/include. One that resolves nowhere is
// kept as written, so that the test names it.
std::vector<Include> includes_of(const fs::path& file) {
  static const std::regex quoted(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<Include> out;
  std::ifstream in(file);
  const std::string from = fs::relative(file, engine_dir()).generic_string();
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, quoted)) continue;
    const std::string name = m[1];
    std::string to = name;
    for (const fs::path& base : {file.parent_path(), engine_dir() / "src", engine_dir() / "include"}) {
      if (fs::exists(base / name)) {
        to = fs::relative(fs::weakly_canonical(base / name), engine_dir()).generic_string();
        break;
      }
    }
    out.push_back({from, to});
  }
  return out;
}

// The layer folder of a path relative to engine/ ("src/core/expr.hpp" → core, "include/…" →
// include); "" for a file outside every layer.
std::string folder_of(const std::string& path) {
  if (path.rfind("include/", 0) == 0) return "include";
  if (path.rfind("src/", 0) != 0) return "";
  std::string rest = path.substr(4);
  auto slash = rest.find('/');
  return slash == std::string::npos ? "" : rest.substr(0, slash);
}

// A module: a header and its source together ("src/core/expr").
std::string module_of(const std::string& path) { return fs::path(path).replace_extension().generic_string(); }

std::vector<fs::path> engine_files() {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(engine_dir())) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".hpp" || ext == ".cpp")) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(Layers, EveryEngineFileIsInALayerFolder) {
  for (const fs::path& f : engine_files()) {
    const std::string path = fs::relative(f, engine_dir()).generic_string();
    EXPECT_GE(rank_of(folder_of(path)), 0) << path << " is in no layer folder (" << "core, catalog, schema, "
                                           << "models, calculators, io; include for the public headers)";
  }
}

TEST(Layers, NoIncludeGoesUpOrOutside) {
  std::size_t checked = 0;
  for (const fs::path& f : engine_files()) {
    for (const Include& inc : includes_of(f)) {
      ++checked;
      const std::string from = folder_of(inc.from), to = folder_of(inc.to);
      ASSERT_GE(rank_of(to), 0) << inc.from << " includes \"" << inc.to << "\", which is no engine file";
      EXPECT_LE(rank_of(to), rank_of(from))
          << inc.from << " (" << from << ") includes " << inc.to << " (" << to << "), a layer above it";
    }
  }
  EXPECT_GT(checked, 100u);  // the includes were found at all
}

// Depth-first search for a cycle among modules; the first one found, as a path, else empty.
class CycleFinder {
 public:
  explicit CycleFinder(const std::map<std::string, std::set<std::string>>& edges) : edges_(edges) {}
  std::vector<std::string> find() {
    for (const auto& [node, _] : edges_) {
      if (visit(node)) return cycle_;
    }
    return {};
  }

 private:
  bool visit(const std::string& node) {
    if (state_[node] == 2) return false;
    if (state_[node] == 1) {
      auto start = std::find(stack_.begin(), stack_.end(), node);
      cycle_.assign(start, stack_.end());
      cycle_.push_back(node);
      return true;
    }
    state_[node] = 1;
    stack_.push_back(node);
    if (auto it = edges_.find(node); it != edges_.end()) {
      for (const std::string& next : it->second) {
        if (visit(next)) return true;
      }
    }
    stack_.pop_back();
    state_[node] = 2;
    return false;
  }
  const std::map<std::string, std::set<std::string>>& edges_;
  std::map<std::string, int> state_;  // 0 unseen, 1 on the stack, 2 done
  std::vector<std::string> stack_, cycle_;
};

// The search itself finds a cycle where there is one (the test below would pass without it).
TEST(Layers, CycleFinderFindsACycle) {
  std::map<std::string, std::set<std::string>> edges = {{"a", {"b"}}, {"b", {"c"}}, {"c", {"a"}}, {"d", {"a"}}};
  EXPECT_EQ(CycleFinder(edges).find(), (std::vector<std::string>{"a", "b", "c", "a"}));
  edges["c"] = {};
  EXPECT_TRUE(CycleFinder(edges).find().empty());
}

TEST(Layers, NoIncludeCycleBetweenModules) {
  std::map<std::string, std::set<std::string>> modules, folders;
  for (const fs::path& f : engine_files()) {
    for (const Include& inc : includes_of(f)) {
      const std::string from = module_of(inc.from), to = module_of(inc.to);
      if (from != to) modules[from].insert(to);
      const std::string from_folder = folder_of(inc.from), to_folder = folder_of(inc.to);
      if (from_folder != to_folder) folders[from_folder].insert(to_folder);
    }
  }
  std::vector<std::string> cycle = CycleFinder(modules).find();
  std::string path;
  for (const std::string& m : cycle) path += (path.empty() ? "" : " -> ") + m;
  EXPECT_TRUE(cycle.empty()) << "modules include one another in a cycle: " << path;
  cycle = CycleFinder(folders).find();
  path.clear();
  for (const std::string& m : cycle) path += (path.empty() ? "" : " -> ") + m;
  EXPECT_TRUE(cycle.empty()) << "folders include one another in a cycle: " << path;
}

// A calculator is added in five places (README, "Adding a calculator"); a forgotten one fails
// here or in the build: each file of calculators/ (but the registry) defines make_NAME for its own
// NAME, each such NAME is a registry row (calculators.hpp; a row without its factory does not
// link), each row has its file, and each row has a book case in tests/cases.
TEST(Registry, EveryCalculatorFileIsARowWithBookCases) {
  // The parsed schema is kept in a variable: a range-for over a member of a temporary would read
  // it after it is destroyed (before C++23).
  const json schema = json::parse(scalelab::calculators_json());
  std::set<std::string> rows;
  for (const auto& c : schema["calculators"]) rows.insert(c["name"].get<std::string>());
  static const std::regex factory(R"re(^Calculator make_(\w+)\(\) \{)re");
  std::set<std::string> files;
  for (const auto& entry : fs::directory_iterator(engine_dir() / "src" / "calculators")) {
    const fs::path& file = entry.path();
    if (file.extension() != ".cpp" || file.stem() == "registry") continue;
    files.insert(file.stem().string());
    std::ifstream in(file);
    std::string line, made;
    while (std::getline(in, line)) {
      std::smatch m;
      if (std::regex_search(line, m, factory)) made = m[1];
    }
    EXPECT_EQ(made, file.stem().string()) << file << " should define make_" << file.stem().string() << "()";
    EXPECT_TRUE(rows.count(file.stem().string())) << file.stem() << " has a file but no registry row (calculators.hpp, SCALELAB_EACH_CALCULATOR)";
  }
  std::set<std::string> cased;
  for (const auto& entry : fs::directory_iterator(fs::path(scalelab::testing::source_dir()) / "tests" / "cases")) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    for (const auto& c : json::parse(in)) cased.insert(c["calculator"].get<std::string>());
  }
  for (const std::string& name : rows) {
    EXPECT_TRUE(files.count(name)) << name << " is a registry row without calculators/" << name << ".cpp";
    EXPECT_TRUE(cased.count(name)) << name << " has no book case in tests/cases";
  }
  EXPECT_EQ(rows.size(), files.size());
}

}  // namespace
