// Small helpers shared by the calculators.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "schema/args.hpp"
#include "core/errors.hpp"
#include "core/format.hpp"
#include "core/result.hpp"
#include "catalog/catalog.hpp"

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

// The arithmetic rate a calculator prices its math at: the chip's rate at compute_dtype. When
// the caller left compute_dtype at its default and the chip has no rate for it (a measured CPU
// without bf16), the chip's fastest rate instead (a floating-point one where it has any), and
// `note` says so in words; a dtype the caller chose is refused when the chip lacks it, as before.
struct ComputeRate {
  std::string dtype;
  double flops_per_s = 0;
  std::optional<std::string> note;
};

inline ComputeRate compute_rate(const Args& args, const Chip& chip) {
  std::string dtype = args.str("compute_dtype");
  if (auto rate = chip.flops_if(dtype)) return {dtype, *rate, std::nullopt};
  std::optional<Chip::Rate> fastest = args.given("compute_dtype") ? std::nullopt : chip.fastest_rate();
  if (!fastest) chip.flops(dtype);  // refuses, naming compute_dtype
  return {fastest->dtype, fastest->flops_per_s,
          chip.name() + " has no " + dtype + " FLOP/s rate, so the math is priced at its fastest rate, " +
              fastest->dtype + " (" + format_quantity(fastest->flops_per_s, "FLOP/s") +
              "); another arithmetic format can be chosen (compute_dtype)."};
}

// Chip::usable_memory_bytes of `memory` (the chip's), as a step where the GPU's share of unified
// memory cuts it: every calculator that asks whether something fits reads it from here.
inline double usable_memory(const Chip& chip, double memory, const Steps& log) {
  if (!chip.gpu_memory_share) return memory;
  return log.step("Memory the GPU may use (its default share of unified memory)", "M_{GPU}",
                  log.sym("M", memory) * log.sym("s_{GPU}", *chip.gpu_memory_share), "bytes").value();
}

// compute_rate's figure, with its note as a warning of `r`.
inline double compute_flops(const Args& args, Result& r) {
  ComputeRate rate = compute_rate(args, args.chip());
  if (rate.note) r.warn(*rate.note);
  return rate.flops_per_s;
}

// "x" when the caller gave `param` but it has no meaning here.
inline void refuse_if_given(const Args& args, const std::string& param, const std::string& why) {
  if (args.given(param)) throw InputError(param, why);
}

}  // namespace scalelab
