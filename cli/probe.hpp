// `scalelab probe`: measures this machine's CPU with the kernels a runtime runs on it, on every
// hardware thread at once — fp32 fused multiply-adds at the widest vector width the CPU has, an
// int8 dot product (and a bf16 one where the CPU has it), an fp32 matmul (our kernel, or the
// system's OpenBLAS/BLIS when it is faster), memory bandwidth (a read of buffers far larger than
// the last-level cache, and a STREAM triad) — beside the CPU's theoretical fp32 peak from its
// features and its measured clock, and describes the machine as a chip object that
// `scalelab eval … '{"chip": {…}}'` accepts.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "probe_kernels.hpp"

namespace scalelab::probe {

struct Options {
  bool quick = false;  // small sizes, for tests: a rough figure in well under a second
  int runs = 5;        // timed runs after one warm-up
};

struct Measurement {
  std::vector<double> runs;  // one figure per timed run
  double median() const;
  double min() const;
  double max() const;
};

// One rate measured by a named kernel.
struct Rate {
  std::string path;  // what ran, in words
  Measurement m;
};

struct Report {
  int threads = 1;
  CpuInfo cpu;
  std::optional<double> clock_hz;  // measured on every thread at once
  int fp32_lanes = 4;
  Rate fp32_fma, int8_dot;
  std::optional<Rate> bf16_dot;
  int matmul_n = 0, blas_n = 0;
  Rate matmul_ours;
  std::optional<Rate> matmul_blas;  // absent when no OpenBLAS or BLIS loads
  double stream_bytes = 0;          // bytes each bandwidth kernel streams per run
  Rate read, triad;
  double ram_bytes = 0;  // physical memory (0 when the system does not say)
  std::optional<double> load_average;  // the 1-minute load when the probe began (where the system says)

  // threads × clock × lanes × 2 (a fused multiply-add) × FMA units; null without a clock.
  std::optional<double> fp32_peak() const;
  const Rate& best_matmul() const;
};

Report run(const Options& options);
nlohmann::ordered_json chip_json(const Report& report);
std::string text(const Report& report);

}  // namespace scalelab::probe
