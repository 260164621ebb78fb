#include "probe.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>

#include "matmul.hpp"

namespace scalelab::probe {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// Runs `work(thread_index)` on every thread at once and returns the wall time of the slowest.
template <typename Work>
double timed_parallel(int threads, Work work) {
  std::vector<std::thread> pool;
  auto t0 = Clock::now();
  for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (auto& th : pool) th.join();
  return seconds_since(t0);
}

std::vector<float> filled(std::size_t count, std::uint32_t seed) {
  std::vector<float> v(count);
  for (float& x : v) {  // xorshift32 → [-1, 1)
    seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
    x = static_cast<float>(seed >> 8) / 8388608.0f - 1.0f;
  }
  return v;
}

// fp32 FLOP/s: each thread multiplies its own n×n matrices; 2·n³ FLOPs per multiply.
Measurement measure_flops(int threads, int n, int runs) {
  std::size_t count = static_cast<std::size_t>(n) * n;
  std::vector<std::vector<float>> a, b, c;
  for (int t = 0; t < threads; ++t) {
    a.push_back(filled(count, 11u + t));
    b.push_back(filled(count, 17u + t));
    c.emplace_back(count);
  }
  Measurement m;
  for (int r = 0; r <= runs; ++r) {  // run 0 is the warm-up
    double s = timed_parallel(threads, [&](int t) { matmul::multiply(a[t].data(), b[t].data(), c[t].data(), n, n, n); });
    if (r > 0) m.runs.push_back(threads * 2.0 * n * n * static_cast<double>(n) / s);
  }
  return m;
}

// Memory bandwidth: the STREAM triad a[i] = b[i] + q·c[i], each thread on its own slice;
// 24 bytes per element counted (two reads, one write), as STREAM counts them.
Measurement measure_bandwidth(int threads, std::size_t elements, int runs) {
  std::vector<double> a(elements, 0.0), b(elements, 1.0), c(elements, 2.0);
  const double q = 3.0;
  std::size_t slice = (elements + threads - 1) / threads;
  Measurement m;
  for (int r = 0; r <= runs; ++r) {
    double s = timed_parallel(threads, [&](int t) {
      std::size_t begin = std::min(elements, t * slice), end = std::min(elements, begin + slice);
      for (std::size_t i = begin; i < end; ++i) a[i] = b[i] + q * c[i];
    });
    if (r > 0) m.runs.push_back(24.0 * static_cast<double>(elements) / s);
  }
  if (a[elements / 2] != 7.0) std::fprintf(stderr, "scalelab probe: triad check failed\n");
  return m;
}

double physical_memory_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0;
}

std::string si(double value, const char* unit) {
  const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (value >= 1000 && i < 5) value /= 1000, ++i;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %s%s", value, prefixes[i], unit);
  return buf;
}

double round_sig(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return std::stod(buf);
}

}  // namespace

double Measurement::median() const {
  std::vector<double> v = runs;
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
double Measurement::min() const { return *std::min_element(runs.begin(), runs.end()); }
double Measurement::max() const { return *std::max_element(runs.begin(), runs.end()); }

Report run(const Options& options) {
  Report r;
  r.threads = hardware_threads();
  r.matmul_n = options.quick ? 256 : 1024;
  // Quick: 3 × 16 MiB. Full: 3 × 256 MiB, far above any last-level cache of today's CPUs.
  std::size_t elements = (options.quick ? std::size_t{16} : std::size_t{256}) << 20 >> 3;
  r.triad_bytes = 3.0 * 8.0 * static_cast<double>(elements);
  r.ram_bytes = physical_memory_bytes();
  int runs = std::max(1, options.runs);
  r.flops = measure_flops(r.threads, r.matmul_n, runs);
  r.bandwidth = measure_bandwidth(r.threads, elements, runs);
  return r;
}

nlohmann::ordered_json chip_json(const Report& r) {
  using json = nlohmann::ordered_json;
  char spread[256];
  std::snprintf(spread, sizeof spread,
                "%zu runs after a warm-up on %d threads: fp32 FLOP/s median %.4g (min %.4g, max %.4g); "
                "triad bytes/s median %.4g (min %.4g, max %.4g)",
                r.flops.runs.size(), r.threads, r.flops.median(), r.flops.min(), r.flops.max(),
                r.bandwidth.median(), r.bandwidth.min(), r.bandwidth.max());
  json chip = {
      {"id", "this-machine"},
      {"name", "This machine (measured)"},
      {"vendor", "measured"},
      {"kind", "cpu"},
      {"generation", std::string("scalelab probe, ") + matmul::vector_path()},
      {"flops_per_s", {{"fp32", round_sig(r.flops.median())}}},
      {"hbm_bytes_per_s", round_sig(r.bandwidth.median())},
      {"host_link", "system memory"},
  };
  if (r.ram_bytes > 0) chip["hbm_bytes"] = r.ram_bytes;
  chip["sources"] = {
      {"flops_per_s", "scalelab probe: the matmul experiment's fp32 kernel (engine/src/matmul), one " +
                          std::to_string(r.matmul_n) + "x" + std::to_string(r.matmul_n) +
                          " multiply per thread, median of the timed runs"},
      {"hbm_bytes_per_s", "scalelab probe: STREAM-style triad over three arrays of " +
                              si(r.triad_bytes / 3, "B") + " each, 24 bytes per element, median"},
      {"hbm_bytes", "physical memory reported by the operating system"},
      {"spread", spread},
  };
  chip["notes"] =
      "Measured, not a spec: this kernel reaches only part of the CPU's peak (no FMA, 4-wide vectors), "
      "other programs share the cores and memory, and clocks change with temperature and power.";
  return chip;
}

std::string text(const Report& r) {
  auto line = [](const char* what, const Measurement& m, const char* unit) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%-22s median %s   (min %s, max %s, %zu runs)\n", what, si(m.median(), unit).c_str(),
                  si(m.min(), unit).c_str(), si(m.max(), unit).c_str(), m.runs.size());
    return std::string(buf);
  };
  std::string out = "scalelab probe: " + std::to_string(r.threads) + " threads, matmul " + std::to_string(r.matmul_n) +
                    "^3 per thread, triad over " + si(r.triad_bytes, "B") + "\n";
  out += line("CPU fp32 matmul", r.flops, "FLOP/s");
  out += line("memory (triad)", r.bandwidth, "B/s");
  if (r.ram_bytes > 0) out += "physical memory        " + si(r.ram_bytes, "B") + "\n";
  out += "Use it as a chip: scalelab probe --json > me.json; then {\"chip\": <me.json>} in scalelab eval.\n";
  return out;
}

}  // namespace scalelab::probe
