#include "test_support.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <cerrno>
#include <cmath>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "scalelab/engine.hpp"

namespace scalelab::testing {
namespace fs = std::filesystem;

std::string cases_dir() { return SCALELAB_TEST_CASES_DIR; }
std::string bad_inputs_path() { return SCALELAB_TEST_BAD_INPUTS; }
std::string source_dir() { return SCALELAB_TEST_SOURCE_DIR; }
std::string scalelab_bin() { return SCALELAB_TEST_BIN; }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = [] {
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(cases_dir())) {
      if (entry.path().extension() == ".json") files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    std::vector<Case> out;
    for (const auto& f : files) {
      json doc = json::parse(read_file(f));
      for (const auto& c : doc) {
        out.push_back({c.at("id").get<std::string>(), fs::path(f).filename().string(),
                       c.at("calculator").get<std::string>(), c});
      }
    }
    return out;
  }();
  return all;
}

const std::vector<BadInput>& bad_inputs() {
  static const std::vector<BadInput> all = [] {
    std::vector<BadInput> out;
    json doc = json::parse(read_file(bad_inputs_path()));
    for (const auto& e : doc) {
      BadInput b;
      b.id = e.at("id").get<std::string>();
      b.calculator = e.at("calculator").get<std::string>();
      if (e.contains("generate")) {
        const json& g = e["generate"];
        b.input = g.value("prefix", std::string());
        std::string unit = g.at("repeat").get<std::string>();
        for (int i = 0, n = g.at("times").get<int>(); i < n; ++i) b.input += unit;
        b.input += g.value("suffix", std::string());
      } else {
        b.input = e.at("input").get<std::string>();
      }
      b.param = e.at("param");
      b.contains = e.at("contains").get<std::string>();
      out.push_back(std::move(b));
    }
    return out;
  }();
  return all;
}

const std::set<std::string>& registered_calculators() {
  static const std::set<std::string> names = [] {
    std::set<std::string> out;
    json all = json::parse(scalelab::calculators_json());
    for (const auto& c : all.at("calculators")) out.insert(c.at("name").get<std::string>());
    return out;
  }();
  return names;
}

std::vector<Evaluated> evaluations(bool with_bad_inputs) {
  std::vector<Evaluated> out;
  for (const std::string& c : registered_calculators()) out.push_back({"defaults", c, "{}"});
  for (const auto& c : cases()) out.push_back({"case " + c.id, c.calculator, c.raw["params"].dump()});
  if (with_bad_inputs) {
    for (const auto& b : bad_inputs()) out.push_back({"bad input " + b.id, b.calculator, b.input});
  }
  return out;
}

namespace {
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}
}  // namespace

namespace {

std::string shortest_double(double x) {
  if (!std::isfinite(x) || x == 0) return json(x).dump();
  std::array<char, 64> buf{};
  auto written = std::to_chars(buf.data(), buf.data() + buf.size(), x, std::chars_format::scientific);
  std::string text(buf.data(), written.ptr);  // "-1.2345e+17": the shortest digits
  std::string sign = x < 0 ? "-" : "";
  std::size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(sign.size(), e - sign.size())) {
    if (c != '.') digits += c;
  }
  int exponent = std::stoi(text.substr(e + 1)) - static_cast<int>(digits.size() - 1);
  std::array<char, 64> laid{};
  std::memcpy(laid.data(), digits.data(), digits.size());
  char* end = nlohmann::detail::dtoa_impl::format_buffer(laid.data(), static_cast<int>(digits.size()), exponent, -4, 15);
  return sign + std::string(laid.data(), end);
}

}  // namespace

std::string shortest_dump(const json& j) {
  auto dumped = [](const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); };
  if (j.is_number_float()) return shortest_double(j.get<double>());
  if (!j.is_object() && !j.is_array()) return dumped(j);
  std::string out = j.is_object() ? "{" : "[";
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it != j.begin()) out += ',';
    if (j.is_object()) out += dumped(json(it.key())) + ":";
    out += shortest_dump(it.value());
  }
  return out + (j.is_object() ? "}" : "]");
}

std::string compare(const json& expected, const json& actual, double rel_tol, const std::string& path) {
  const std::string where = path.empty() ? "(root)" : path;
  if (expected.is_null()) {
    return actual.is_null() ? "" : where + ": expected null, got " + actual.dump();
  }
  if (expected.is_number()) {
    if (!actual.is_number()) return where + ": expected number " + expected.dump() + ", got " + actual.dump();
    double e = expected.get<double>(), a = actual.get<double>();
    if (e == 0) return a == 0 ? "" : where + ": expected exactly 0, got " + actual.dump();
    double rel = std::fabs(a - e) / std::fabs(e);
    if (!(rel <= rel_tol)) {
      std::ostringstream s;
      s.precision(15);
      s << where << ": expected " << e << ", got " << a << " (relative difference " << rel
        << " > rel_tol " << rel_tol << ")";
      return s.str();
    }
    return "";
  }
  if (expected.is_string()) {
    if (!actual.is_string()) return where + ": expected string " + expected.dump() + ", got " + actual.dump();
    return lower(expected.get<std::string>()) == lower(actual.get<std::string>())
               ? ""
               : where + ": expected " + expected.dump() + ", got " + actual.dump();
  }
  if (expected.is_boolean()) {
    return actual.is_boolean() && actual.get<bool>() == expected.get<bool>()
               ? ""
               : where + ": expected " + expected.dump() + ", got " + actual.dump();
  }
  if (expected.is_array()) {
    if (!actual.is_array()) return where + ": expected a list, got " + actual.dump();
    if (actual.size() != expected.size()) {
      return where + ": expected " + std::to_string(expected.size()) + " items, got " +
             std::to_string(actual.size()) + ": " + actual.dump();
    }
    std::string all;
    for (size_t i = 0; i < expected.size(); ++i) {
      std::string d = compare(expected[i], actual[i], rel_tol, path + "[" + std::to_string(i) + "]");
      if (!d.empty()) all += (all.empty() ? "" : "\n") + d;
    }
    return all;
  }
  // object: a subset of the actual object
  if (!actual.is_object()) return where + ": expected an object, got " + actual.dump();
  std::string all;
  for (auto it = expected.begin(); it != expected.end(); ++it) {
    std::string sub = path.empty() ? it.key() : path + "." + it.key();
    std::string d = actual.contains(it.key())
                        ? compare(it.value(), actual.at(it.key()), rel_tol, sub)
                        : sub + ": missing from the output";
    if (!d.empty()) all += (all.empty() ? "" : "\n") + d;
  }
  return all;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.id << " (" << c.calculator << ")"; }
void PrintTo(const BadInput& b, std::ostream* os) { *os << b.id << " (" << b.calculator << ")"; }

std::string test_name(const std::string& id) {
  std::string out;
  for (char c : id) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

namespace {
std::string temp_path(const char* tag) {
  std::string tmpl = (fs::temp_directory_path() / (std::string("scalelab-test-") + tag + "-XXXXXX")).string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  close(fd);
  return tmpl;
}
}  // namespace

RunResult run(const std::vector<std::string>& argv, const std::string& stdin_text) {
  std::string in_path = temp_path("in"), out_path = temp_path("out"), err_path = temp_path("err");
  {
    std::ofstream f(in_path, std::ios::binary);
    f << stdin_text;
  }
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int in = open(in_path.c_str(), O_RDONLY);
    int out = open(out_path.c_str(), O_WRONLY | O_TRUNC);
    int err = open(err_path.c_str(), O_WRONLY | O_TRUNC);
    if (in < 0 || out < 0 || err < 0) _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waitpid failed");
  }
  RunResult r;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  fs::remove(in_path);
  fs::remove(out_path);
  fs::remove(err_path);
  return r;
}

}  // namespace scalelab::testing
