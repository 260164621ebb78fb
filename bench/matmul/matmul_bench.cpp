// Native GFLOP/s of the experiment's matmul (matmul/), for comparison with the same
// code compiled to WebAssembly SIMD128 (bench/matmul/wasm_bench.mjs).
//
//   matmul_bench [sizes...]      default: 256 512 1024
//   matmul_bench --check         correctness only: odd shapes and row-chunked calls against the
//                                double-accumulated reference; exit status 1 on any failure
//
// For each n: checks the blocked result against a double-accumulated triple loop (max abs
// error), then times C = A·B (A, B uniform in [-1, 1), fixed seed), several repetitions, and
// prints best and median GFLOP/s (2·n³ floating-point operations per multiply).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "matmul.hpp"

namespace {

std::vector<float> random_matrix(std::size_t count, std::uint32_t seed) {
  std::vector<float> v(count);
  std::uint32_t s = seed;
  for (float& x : v) {  // xorshift32 → [-1, 1)
    s ^= s << 13, s ^= s >> 17, s ^= s << 5;
    x = static_cast<float>(s >> 8) / 8388608.0f - 1.0f;
  }
  return v;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The textbook i-j-k triple loop with a float accumulator, for context.
void naive_ijk(const float* a, const float* b, float* c, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int k = 0; k < n; ++k) s += a[i * n + k] * b[k * n + j];
      c[i * n + j] = s;
    }
}

// Rectangular and odd shapes, whole and in row chunks (as the browser Worker calls it).
int check() {
  int failures = 0;
  const int shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {4, 8, 1}, {7, 9, 130}, {17, 33, 129}, {64, 64, 64},
                           {100, 100, 100}, {5, 260, 3}, {129, 257, 300}};
  for (const auto& s : shapes) {
    const int m = s[0], n = s[1], k = s[2];
    const auto a = random_matrix(static_cast<std::size_t>(m) * k, 11u + m);
    const auto b = random_matrix(static_cast<std::size_t>(k) * n, 17u + n);
    std::vector<float> ref(static_cast<std::size_t>(m) * n), whole(ref.size()), chunked(ref.size(), -1.0f);
    scalelab::matmul::multiply_reference(a.data(), b.data(), ref.data(), m, n, k);
    scalelab::matmul::multiply(a.data(), b.data(), whole.data(), m, n, k);
    for (int r = 0; r < m; r += 3) scalelab::matmul::multiply_rows(a.data(), b.data(), chunked.data(), m, n, k, r, r + 3);
    double err = 0.0;
    bool same = true;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      err = std::max(err, std::abs(static_cast<double>(whole[i]) - ref[i]));
      same = same && whole[i] == chunked[i];
    }
    const bool ok = err <= 2.0 * k * 0x1p-24 * k && same;  // entries in [-1, 1): Σ|a||b| <= k
    std::printf("%-4s %4d x %4d x %4d  max|err| %.3g%s\n", ok ? "ok" : "FAIL", m, k, n, err,
                same ? "" : "  (row chunks differ from one call)");
    failures += ok ? 0 : 1;
  }
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--check") return check();
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {256, 512, 1024};
  std::printf("matmul_bench: vector path %s\n", scalelab::matmul::vector_path());
  std::printf("%6s %12s %12s %12s %14s\n", "n", "best GF/s", "median GF/s", "naive GF/s",
              "max|err| vs f64");
  int failures = 0;
  for (int n : sizes) {
    if (n <= 0 || n > 4096) continue;
    const auto a = random_matrix(static_cast<std::size_t>(n) * n, 0x9E3779B9u);
    const auto b = random_matrix(static_cast<std::size_t>(n) * n, 0x85EBCA6Bu);
    std::vector<float> c(a.size()), ref(a.size());
    scalelab::matmul::multiply(a.data(), b.data(), c.data(), n, n, n);
    scalelab::matmul::multiply_reference(a.data(), b.data(), ref.data(), n, n, n);
    double max_err = 0.0;
    for (std::size_t i = 0; i < c.size(); ++i)
      max_err = std::max(max_err, std::abs(static_cast<double>(c[i]) - ref[i]));
    // Loose sanity bound: |error| <= n·2^-24·Σ|a||b| <= n·2^-24·n for entries in [-1, 1).
    if (!(max_err <= static_cast<double>(n) * n * 0x1p-24)) ++failures;

    const double flops = 2.0 * n * n * n;
    const int reps = std::max(3, static_cast<int>(2e9 / flops));
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      scalelab::matmul::multiply(a.data(), b.data(), c.data(), n, n, n);
      times.push_back(seconds_since(t0));
    }
    std::sort(times.begin(), times.end());
    const auto t0 = std::chrono::steady_clock::now();
    naive_ijk(a.data(), b.data(), ref.data(), n);
    const double naive = seconds_since(t0);
    std::printf("%6d %12.2f %12.2f %12.2f %14.3g\n", n, flops / times.front() / 1e9,
                flops / times[times.size() / 2] / 1e9, flops / naive / 1e9, max_err);
  }
  if (failures) std::printf("FAILED: %d size(s) outside the error bound\n", failures);
  return failures ? 1 : 0;
}
