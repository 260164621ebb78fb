// What the local calculators (local_inference, finetune) ask of one device: the 16-bit matmul
// rate it runs at, and the share of its memory a job may use.
#pragma once
#include <string>

#include "schema/args.hpp"
#include "catalog/catalog.hpp"
#include "core/errors.hpp"
#include "schema/params.hpp"

namespace scalelab {

struct MatmulRate {
  std::string dtype;
  double flops_per_s = 0;
};

// 16-bit matmuls run at the device's bf16 rate, else fp16, else fp32 where it has no 16-bit rate.
inline MatmulRate sixteen_bit_rate(const Chip& chip) {
  for (const char* dtype : {"bf16", "fp16", "fp32"}) {
    if (auto rate = chip.flops_if(dtype)) return {dtype, *rate};
  }
  throw InputError("chip", chip.name() + " has no 16- or 32-bit FLOP/s rate; a custom chip can give one "
                                         "(chip_overrides.flops_per_s.bf16, fp16 or fp32)");
}

// The share of device memory a job may use: the caller's, else the chip's default GPU share of
// unified memory, else all of it.
inline double usable_share(const Args& args, const Chip& chip) {
  if (args.given("usable_memory_share")) return args.num("usable_memory_share");
  return chip.gpu_memory_share.value_or(1.0);
}

inline Param usable_memory_share_param(const std::string& what) {
  return params::number("usable_memory_share", "ratio", 0.01, 1, nullptr,
                        "share of the device memory " + what + " may use, at least 1 % (default: the chip's "
                        "gpu_memory_share for unified memory, e.g. 0.75 on a 128 GB Mac; else 1)",
                        Scale::linear);
}

}  // namespace scalelab
