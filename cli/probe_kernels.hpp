// The kernels `scalelab probe` times, each the inner loop a runtime runs on a CPU: fp32 fused
// multiply-adds at the widest vector width this CPU has (AVX-512, else AVX2 + FMA, else the
// compiler's vectors), an int8 dot product (AVX-512 VNNI, AVX-VNNI, else AVX2's
// maddubs/madd pair as llama.cpp uses it for 8-bit blocks, else the compiler's vectors), a bf16
// dot product where the CPU has one (AVX-512 BF16), a read of a large buffer, and a chain of
// dependent adds that counts clock cycles. Each kernel is chosen once, at run time, from the
// CPU's features, so one binary runs on any x86-64 (or other) CPU.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

namespace scalelab::probe {

// One compute kernel: what it runs and how many operations one call of `run(iterations)` does.
struct ComputeKernel {
  std::string path;          // "AVX-512 FMA (16 fp32 lanes)"
  double ops_per_iteration;  // FLOPs (or int8 operations: a multiply-add counts 2)
  double (*run)(long iterations);  // returns a value that depends on every operation
};

ComputeKernel fp32_fma_kernel();
ComputeKernel int8_dot_kernel();
std::optional<ComputeKernel> bf16_dot_kernel();  // only where the CPU multiplies bf16 itself

// fp32 lanes of the widest vector register the fp32 kernel uses (16, 8 or 4).
int fp32_lanes();

// Sums `count` doubles from `data` with vector loads (each byte read once).
double read_sum(const double* data, std::size_t count);

// Clock cycles of `iterations` x 64 dependent register-to-register adds (one cycle each), as seconds are
// measured around it; null where this build has no such loop for the CPU.
std::optional<double> cycles_of_add_chain(long iterations);

// What the CPU is, as the operating system and the CPU tell it.
struct CpuInfo {
  std::string model;      // "AMD EPYC 9B45"
  std::string vendor;     // "AuthenticAMD", "GenuineIntel", …
  int family = 0, model_number = 0;  // x86 family and model (0 elsewhere)
  std::string features;   // the vector features the probe uses, as words
  // FMA units per core that each finish one widest-vector fused multiply-add per cycle, from the
  // vendor's optimisation guides for the families we know, with the reason in words.
  double fma_units = 2;
  std::string fma_units_why;
};
CpuInfo cpu_info();

}  // namespace scalelab::probe
