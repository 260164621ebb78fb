// What a calculator produces: named outputs, the derivation steps, warnings.
#pragma once
#include <string>

#include "json.hpp"

namespace scalelab {

struct Result {
  json outputs = json::object();
  json steps = json::array();
  json warnings = json::array();
  json extra = json::object();  // top-level fields beside "outputs" (e.g. the resolved chip)

  template <typename T>
  void out(const std::string& name, T&& value) {
    outputs[name] = std::forward<T>(value);
  }
  void out_null(const std::string& name) { outputs[name] = nullptr; }
  // Records one step of the derivation and returns its value, so formulas read inline:
  //   double t = r.step("Math time", "T_{math} = F / C", tex(...), flops / peak, "s");
  double step(const std::string& label, const std::string& formula,
              const std::string& substituted, double value, const std::string& unit);
  void warn(const std::string& message) { warnings.push_back(message); }
};

}  // namespace scalelab
