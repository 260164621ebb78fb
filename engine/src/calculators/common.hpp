// Small helpers shared by the calculators.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "../args.hpp"
#include "../errors.hpp"
#include "../format.hpp"
#include "../result.hpp"

namespace scalelab {

// Output `value` when present, else null (an output whose inputs the chip lacks).
inline void out_opt(Result& r, std::string_view name, std::optional<double> value) {
  if (value) r.out(name, *value);
  else r.out_null(name);
}

inline std::optional<double> opt_div(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || *b == 0) return std::nullopt;
  return *a / *b;
}

inline std::optional<double> opt_mul(std::optional<double> a, std::optional<double> b) {
  if (!a || !b) return std::nullopt;
  return *a * *b;
}

// "x" when the caller gave `param` but it has no meaning here.
inline void refuse_if_given(const Args& args, const std::string& param, const std::string& why) {
  if (args.given(param)) throw InputError(param, why);
}

}  // namespace scalelab
