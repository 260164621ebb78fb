#pragma once
#include <stdexcept>
#include <string>

namespace scalelab {

// Bad input: names the parameter (dotted path, e.g. "matmul.B"; empty when none applies)
// and says what was wrong and what is allowed.
struct InputError : std::runtime_error {
  std::string param;
  std::string field;  // a chip's figure the refusal needs ("nvlink_bytes_per_s"), else empty
  InputError(std::string param_name, const std::string& message, std::string missing_field = "")
      : std::runtime_error(message), param(std::move(param_name)), field(std::move(missing_field)) {}
};

}  // namespace scalelab
