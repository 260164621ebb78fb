#include "probe.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <thread>

#include "matmul.hpp"
#include "probe_blas.hpp"

namespace scalelab::probe {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// Runs `work(thread_index)` on every thread at once and returns the wall time of the slowest.
double timed_parallel(int threads, const std::function<void(int)>& work) {
  std::vector<std::thread> pool;
  auto t0 = Clock::now();
  for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (auto& th : pool) th.join();
  return seconds_since(t0);
}

// A warm-up, then `runs` timed runs of `once` (which returns the run's figure).
Measurement repeat(int runs, const std::function<double()>& once) {
  Measurement m;
  once();
  for (int r = 0; r < runs; ++r) m.runs.push_back(once());
  return m;
}

volatile double sink = 0;  // kernels' results land here, so that no work can be dropped

// Iterations of `kernel` that take about `seconds` on one thread (found by doubling).
long iterations_for(double (*kernel)(long), double seconds) {
  long n = 1024;
  for (;;) {
    auto t0 = Clock::now();
    sink = sink + kernel(n);
    double s = seconds_since(t0);
    if (s >= seconds / 8 || n > (1L << 40)) return std::max(1L, static_cast<long>(n * seconds / std::max(s, 1e-9)));
    n *= 2;
  }
}

// A compute kernel on every thread at once: operations per second of the whole CPU.
Rate measure_compute(const ComputeKernel& k, int threads, int runs, double seconds) {
  long n = iterations_for(k.run, seconds);
  std::vector<double> results(threads);
  Measurement m = repeat(runs, [&] {
    double s = timed_parallel(threads, [&](int t) { results[t] = k.run(n); });
    for (double r : results) sink = sink + r;
    return threads * k.ops_per_iteration * static_cast<double>(n) / s;
  });
  return {k.path, m};
}

// The clock: every thread runs a chain of dependent adds (one cycle each) at once.
std::optional<double> measure_clock(int threads, bool quick) {
  long n = quick ? 20000 : 400000;
  if (!cycles_of_add_chain(16)) return std::nullopt;
  Measurement m = repeat(3, [&] {
    std::vector<double> hz(threads);
    timed_parallel(threads, [&](int t) {
      auto t0 = Clock::now();
      double cycles = cycles_of_add_chain(n).value_or(0);
      hz[t] = cycles / seconds_since(t0);
    });
    return *std::min_element(hz.begin(), hz.end());
  });
  return m.median();
}

std::vector<float> filled(std::size_t count, std::uint32_t seed) {
  std::vector<float> v(count);
  for (float& x : v) {  // xorshift32 → [-1, 1)
    seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
    x = static_cast<float>(seed >> 8) / 8388608.0f - 1.0f;
  }
  return v;
}

// Our fp32 matmul kernel: each thread multiplies its own n×n matrices; 2·n³ FLOPs per multiply.
Rate measure_matmul_ours(int threads, int n, int runs) {
  std::size_t count = static_cast<std::size_t>(n) * n;
  std::vector<std::vector<float>> a, b, c;
  for (int t = 0; t < threads; ++t) {
    a.push_back(filled(count, 11u + t));
    b.push_back(filled(count, 17u + t));
    c.emplace_back(count);
  }
  Measurement m = repeat(runs, [&] {
    double s = timed_parallel(threads, [&](int t) { matmul::multiply(a[t].data(), b[t].data(), c[t].data(), n, n, n); });
    return threads * 2.0 * n * n * static_cast<double>(n) / s;
  });
  return {std::string("scalelab's matmul kernel (") + matmul::vector_path() + ", no FMA), one " + std::to_string(n) +
              "x" + std::to_string(n) + " multiply per thread",
          m};
}

// The system BLAS: one n×n sgemm on the library's own threads.
std::optional<Rate> measure_matmul_blas(int n, int runs) {
  std::optional<Blas> blas = find_blas();
  if (!blas) return std::nullopt;
  std::size_t count = static_cast<std::size_t>(n) * n;
  std::vector<float> a = filled(count, 23u), b = filled(count, 29u), c(count);
  Measurement m = repeat(runs, [&] {
    auto t0 = Clock::now();
    blas->multiply(a.data(), b.data(), c.data(), n);
    return 2.0 * n * n * static_cast<double>(n) / seconds_since(t0);
  });
  return Rate{blas->name + " cblas_sgemm (" + blas->library + "), one " + std::to_string(n) + "x" + std::to_string(n) +
                  " multiply on its own threads",
              m};
}

struct Slices {
  std::size_t per_thread = 0;
  std::size_t begin(int t, std::size_t total) const { return std::min(total, t * per_thread); }
  std::size_t end(int t, std::size_t total) const { return std::min(total, begin(t, total) + per_thread); }
};

// Read bandwidth: each thread sums its own slice (first touched by that thread), every byte once.
Rate measure_read(int threads, std::size_t elements, int runs) {
  std::vector<double> data(elements);
  Slices s{(elements + threads - 1) / threads};
  timed_parallel(threads, [&](int t) { std::fill(data.begin() + s.begin(t, elements), data.begin() + s.end(t, elements), 1.0); });
  Measurement m = repeat(runs, [&] {
    std::vector<double> sums(threads);
    double secs = timed_parallel(threads, [&](int t) {
      sums[t] = read_sum(data.data() + s.begin(t, elements), s.end(t, elements) - s.begin(t, elements));
    });
    for (double x : sums) sink = sink + x;
    return 8.0 * static_cast<double>(elements) / secs;
  });
  return {"reading " + std::to_string(elements * 8 >> 20) + " MiB of doubles with vector loads, every thread its own slice", m};
}

// The STREAM triad a[i] = b[i] + q·c[i], each thread on its own slice; 24 bytes per element
// counted (two reads, one write), as STREAM counts them.
Rate measure_triad(int threads, std::size_t elements, int runs) {
  std::vector<double> a(elements), b(elements), c(elements);
  Slices s{(elements + threads - 1) / threads};
  timed_parallel(threads, [&](int t) {
    for (std::size_t i = s.begin(t, elements); i < s.end(t, elements); ++i) a[i] = 0, b[i] = 1, c[i] = 2;
  });
  const double q = 3.0;
  Measurement m = repeat(runs, [&] {
    double secs = timed_parallel(threads, [&](int t) {
      for (std::size_t i = s.begin(t, elements); i < s.end(t, elements); ++i) a[i] = b[i] + q * c[i];
    });
    return 24.0 * static_cast<double>(elements) / secs;
  });
  if (a[elements / 2] != 7.0) std::fprintf(stderr, "scalelab probe: triad check failed\n");
  return {"STREAM triad over three arrays of " + std::to_string(elements * 8 >> 20) + " MiB, 24 bytes per element", m};
}

// Runnable threads averaged over the last minute (/proc/loadavg): above the thread count, other
// programs took part of the machine while it was measured.
std::optional<double> load_average() {
  double load = 0;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    int read = std::fscanf(f, "%lf", &load);
    std::fclose(f);
    if (read == 1) return load;
  }
  return std::nullopt;
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

std::string spread(const Measurement& m) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "median %.4g (min %.4g, max %.4g, %zu runs)", m.median(), m.min(), m.max(), m.runs.size());
  return buf;
}

std::string percent(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f %%", 100 * part / whole);
  return buf;
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

std::optional<double> Report::fp32_peak() const {
  if (!clock_hz) return std::nullopt;
  return threads * *clock_hz * fp32_lanes * 2 * cpu.fma_units;
}

const Rate& Report::best_matmul() const {
  return matmul_blas && matmul_blas->m.median() > matmul_ours.m.median() ? *matmul_blas : matmul_ours;
}

Report run(const Options& options) {
  Report r;
  r.threads = hardware_threads();
  r.cpu = cpu_info();
  r.load_average = load_average();
  int runs = std::max(1, options.runs);
  double seconds = options.quick ? 0.01 : 0.2;  // per compute run and thread
  r.clock_hz = measure_clock(r.threads, options.quick);
  r.fp32_lanes = fp32_lanes();
  r.fp32_fma = measure_compute(fp32_fma_kernel(), r.threads, runs, seconds);
  r.int8_dot = measure_compute(int8_dot_kernel(), r.threads, runs, seconds);
  if (auto bf16 = bf16_dot_kernel()) r.bf16_dot = measure_compute(*bf16, r.threads, runs, seconds);
  r.matmul_n = options.quick ? 256 : 1024;
  r.blas_n = options.quick ? 256 : 2048;
  r.matmul_ours = measure_matmul_ours(r.threads, r.matmul_n, runs);
  r.matmul_blas = measure_matmul_blas(r.blas_n, runs);
  // Quick: 48 MiB. Full: 768 MiB, far above any last-level cache of today's CPUs.
  std::size_t elements = (options.quick ? std::size_t{48} : std::size_t{768}) << 20 >> 3;
  r.stream_bytes = 8.0 * static_cast<double>(elements);
  r.read = measure_read(r.threads, elements, runs);
  r.triad = measure_triad(r.threads, elements / 3, runs);
  r.ram_bytes = physical_memory_bytes();
  return r;
}

nlohmann::ordered_json chip_json(const Report& r) {
  using json = nlohmann::ordered_json;
  const Rate& mm = r.best_matmul();
  json flops = {{"fp32", round_sig(r.fp32_fma.m.median())}};
  if (r.bf16_dot) flops["bf16"] = round_sig(r.bf16_dot->m.median());
  flops["int8"] = round_sig(r.int8_dot.m.median());
  json chip = {
      {"id", "this-machine"},
      {"name", "This machine (measured): " + r.cpu.model + ", " + std::to_string(r.threads) + " threads"},
      {"vendor", "measured"},
      {"kind", "cpu"},
      {"generation", "scalelab probe: " + r.cpu.features},
      {"flops_per_s", flops},
      {"hbm_bytes_per_s", round_sig(r.read.m.median())},
      {"host_link", "system memory"},
  };
  if (r.ram_bytes > 0) chip["hbm_bytes"] = r.ram_bytes;
  if (r.clock_hz) chip["clock_hz"] = round_sig(*r.clock_hz);
  json sources = {
      {"flops_per_s", "scalelab probe on " + std::to_string(r.threads) + " threads at once: fp32 " + r.fp32_fma.path +
                          (r.bf16_dot ? "; bf16 " + r.bf16_dot->path : std::string()) + "; int8 " + r.int8_dot.path +
                          " (a multiply-add counts 2); register-resident loops, median of the timed runs"},
      {"hbm_bytes_per_s", "scalelab probe: " + r.read.path + ", median"},
      {"hbm_bytes", "physical memory reported by the operating system"},
      {"matmul", "fp32 matmul: " + mm.path + ", " + spread(mm.m) + " FLOP/s, " + percent(mm.m.median(), r.fp32_fma.m.median()) +
                     " of the FMA rate"},
      {"spread", "fp32 FMA " + spread(r.fp32_fma.m) + "; int8 " + spread(r.int8_dot.m) + "; read " + spread(r.read.m) +
                     "; triad " + spread(r.triad.m) + " bytes/s"},
  };
  if (r.clock_hz) {
    sources["clock_hz"] = "scalelab probe: a chain of dependent integer adds (one a cycle) on every thread at once";
    sources["peak"] = "theoretical fp32 peak " + si(*r.fp32_peak(), "FLOP/s") + " = " + std::to_string(r.threads) +
                      " cores x " + si(*r.clock_hz, "Hz") + " x " + std::to_string(r.fp32_lanes) + " lanes x 2 (FMA) x " +
                      si(r.cpu.fma_units, "") + "FMA units (" + r.cpu.fma_units_why + ")";
  }
  chip["sources"] = sources;
  std::string load = r.load_average ? " The 1-minute load average was " + si(*r.load_average, "") + "when it began, on " +
                                          std::to_string(r.threads) + " threads." : "";
  chip["notes"] =
      "Measured, not a spec: other programs share the cores and memory, and clocks change with temperature and "
      "power. The FMA and dot-product rates are what the CPU's vector units reach with operands in registers (the "
      "ceiling a runtime's kernels approach); a matmul reaches less, as the sources say." + load;
  return chip;
}

std::string text(const Report& r) {
  auto line = [](const std::string& what, const Measurement& m, const char* unit, const std::string& after) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "%-24s median %s   (min %s, max %s, %zu runs)%s\n", what.c_str(), si(m.median(), unit).c_str(),
                  si(m.min(), unit).c_str(), si(m.max(), unit).c_str(), m.runs.size(), after.c_str());
    return std::string(buf);
  };
  std::string out = "scalelab probe: " + r.cpu.model + ", " + std::to_string(r.threads) + " threads, features: " +
                    r.cpu.features + "\n";
  if (r.load_average) {
    out += "load average             " + si(*r.load_average, "") + "when it began" +
           (*r.load_average > 0.5 * r.threads ? ": other programs share these cores, so the figures are the share the probe got" : "") + "\n";
  }
  std::optional<double> peak = r.fp32_peak();
  if (r.clock_hz) {
    out += "clock (measured)         " + si(*r.clock_hz, "Hz") + " on every thread at once\n";
    out += "fp32 peak (theory)       " + si(*peak, "FLOP/s") + " = " + std::to_string(r.threads) + " cores x " +
           si(*r.clock_hz, "Hz") + " x " + std::to_string(r.fp32_lanes) + " lanes x 2 (FMA) x " + si(r.cpu.fma_units, "") +
           "FMA units\n                         (" + r.cpu.fma_units_why + ")\n";
  }
  auto of_peak = [&](const Measurement& m) { return peak ? ", " + percent(m.median(), *peak) + " of the peak" : std::string(); };
  out += line("CPU fp32 FMA", r.fp32_fma.m, "FLOP/s", of_peak(r.fp32_fma.m)) + "                         " + r.fp32_fma.path + "\n";
  if (r.bf16_dot) out += line("CPU bf16 dot", r.bf16_dot->m, "FLOP/s", "") + "                         " + r.bf16_dot->path + "\n";
  out += line("CPU int8 dot", r.int8_dot.m, "OP/s", "") + "                         " + r.int8_dot.path + "\n";
  out += line("CPU fp32 matmul, ours", r.matmul_ours.m, "FLOP/s", of_peak(r.matmul_ours.m));
  if (r.matmul_blas) out += line("CPU fp32 matmul, BLAS", r.matmul_blas->m, "FLOP/s", of_peak(r.matmul_blas->m)) + "                         " + r.matmul_blas->path + "\n";
  else out += "CPU fp32 matmul, BLAS    none found (OpenBLAS: apt-get install libopenblas0-pthread)\n";
  out += line("memory (read)", r.read.m, "B/s", "");
  out += line("memory (triad)", r.triad.m, "B/s", "");
  if (r.ram_bytes > 0) out += "physical memory          " + si(r.ram_bytes, "B") + "\n";
  out += "Use it as a chip: scalelab probe --json > me.json; then {\"chip\": <me.json>} in scalelab eval.\n";
  return out;
}

}  // namespace scalelab::probe
