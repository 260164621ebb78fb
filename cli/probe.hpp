// `scalelab probe`: measures this machine's CPU FLOP/s (the matmul experiment's kernel,
// engine/src/matmul, one copy per hardware thread) and memory bandwidth (a STREAM-style triad
// over buffers far larger than the last-level cache), and describes the machine as a chip
// object that `scalelab eval … '{"chip": {…}}'` accepts.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

struct Report {
  int threads = 1;
  int matmul_n = 0;
  double triad_bytes = 0;  // bytes the three triad arrays hold together
  double ram_bytes = 0;    // physical memory (0 when the system does not say)
  Measurement flops;       // fp32 FLOP/s, all threads
  Measurement bandwidth;   // bytes/s, all threads
};

Report run(const Options& options);
nlohmann::ordered_json chip_json(const Report& report);
std::string text(const Report& report);

}  // namespace scalelab::probe
