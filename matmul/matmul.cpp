#include "matmul.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace scalelab::matmul {
namespace {

// ---- a 4-wide float vector: the only thing that differs between targets ------------------
#if defined(__wasm_simd128__)
using vec4 = v128_t;
inline vec4 load4(const float* p) { return wasm_v128_load(p); }
inline void store4(float* p, vec4 v) { wasm_v128_store(p, v); }
inline vec4 splat4(float x) { return wasm_f32x4_splat(x); }
inline vec4 madd4(vec4 acc, vec4 x, vec4 y) { return wasm_f32x4_add(acc, wasm_f32x4_mul(x, y)); }
constexpr const char* kVectorPath = "wasm-simd128";
#elif defined(__GNUC__)
typedef float vec4 __attribute__((vector_size(16)));
inline vec4 load4(const float* p) {
  vec4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store4(float* p, vec4 v) { std::memcpy(p, &v, sizeof v); }
inline vec4 splat4(float x) { return vec4{x, x, x, x}; }
inline vec4 madd4(vec4 acc, vec4 x, vec4 y) { return acc + x * y; }
constexpr const char* kVectorPath = "gnu-vector";
#else
struct vec4 {
  float v[4];
};
inline vec4 load4(const float* p) { return {{p[0], p[1], p[2], p[3]}}; }
inline void store4(float* p, vec4 x) { std::memcpy(p, x.v, sizeof x.v); }
inline vec4 splat4(float x) { return {{x, x, x, x}}; }
inline vec4 madd4(vec4 acc, vec4 x, vec4 y) {
  for (int i = 0; i < 4; ++i) acc.v[i] = acc.v[i] + x.v[i] * y.v[i];
  return acc;
}
constexpr const char* kVectorPath = "scalar";
#endif

constexpr int kMr = 4;  // micro-kernel rows
constexpr int kNr = 8;  // micro-kernel columns (two vectors)

// Copies B[k0:k0+kc, j0:j0+nc_full] into strips of 8 columns, each strip kc×8 contiguous.
void pack_b(const float* b, int n, int k0, int kc, int j0, int nc_full, float* packed) {
  for (int js = 0; js < nc_full; js += kNr) {
    float* dst = packed + static_cast<std::ptrdiff_t>(js) * kc;
    const float* src = b + static_cast<std::ptrdiff_t>(k0) * n + j0 + js;
    for (int kk = 0; kk < kc; ++kk) {
      std::memcpy(dst, src, kNr * sizeof(float));
      dst += kNr;
      src += n;
    }
  }
}

// C[i:i+4, j:j+8] += A[i:i+4, k0:k0+kc] · strip (kc×8, packed).
inline void kernel_4x8(const float* a, int lda, const float* strip, int kc, float* c, int ldc) {
  const float* a0 = a;
  const float* a1 = a + lda;
  const float* a2 = a + 2 * lda;
  const float* a3 = a + 3 * lda;
  vec4 c00 = load4(c), c01 = load4(c + 4);
  vec4 c10 = load4(c + ldc), c11 = load4(c + ldc + 4);
  vec4 c20 = load4(c + 2 * ldc), c21 = load4(c + 2 * ldc + 4);
  vec4 c30 = load4(c + 3 * ldc), c31 = load4(c + 3 * ldc + 4);
  for (int kk = 0; kk < kc; ++kk) {
    const vec4 b0 = load4(strip), b1 = load4(strip + 4);
    strip += kNr;
    vec4 x = splat4(a0[kk]);
    c00 = madd4(c00, x, b0);
    c01 = madd4(c01, x, b1);
    x = splat4(a1[kk]);
    c10 = madd4(c10, x, b0);
    c11 = madd4(c11, x, b1);
    x = splat4(a2[kk]);
    c20 = madd4(c20, x, b0);
    c21 = madd4(c21, x, b1);
    x = splat4(a3[kk]);
    c30 = madd4(c30, x, b0);
    c31 = madd4(c31, x, b1);
  }
  store4(c, c00), store4(c + 4, c01);
  store4(c + ldc, c10), store4(c + ldc + 4, c11);
  store4(c + 2 * ldc, c20), store4(c + 2 * ldc + 4, c21);
  store4(c + 3 * ldc, c30), store4(c + 3 * ldc + 4, c31);
}

// One row, 8 columns: for the rows left over when the row range is not a multiple of 4.
inline void kernel_1x8(const float* a, const float* strip, int kc, float* c) {
  vec4 c0 = load4(c), c1 = load4(c + 4);
  for (int kk = 0; kk < kc; ++kk) {
    const vec4 x = splat4(a[kk]);
    c0 = madd4(c0, x, load4(strip));
    c1 = madd4(c1, x, load4(strip + 4));
    strip += kNr;
  }
  store4(c, c0), store4(c + 4, c1);
}

}  // namespace

void multiply_rows(const float* a, const float* b, float* c, int m, int n, int k, int row_begin,
                   int row_end) {
  row_begin = std::clamp(row_begin, 0, m);
  row_end = std::clamp(row_end, row_begin, m);
  if (row_begin == row_end || n <= 0) return;
  for (int i = row_begin; i < row_end; ++i)
    std::fill_n(c + static_cast<std::ptrdiff_t>(i) * n, n, 0.0f);
  if (k <= 0) return;

  std::vector<float> packed(static_cast<std::size_t>(kBlockK) * kBlockN);
  for (int j0 = 0; j0 < n; j0 += kBlockN) {
    const int nc = std::min(kBlockN, n - j0);
    const int nc_full = nc - nc % kNr;  // columns covered by the vector kernels
    for (int k0 = 0; k0 < k; k0 += kBlockK) {
      const int kc = std::min(kBlockK, k - k0);
      pack_b(b, n, k0, kc, j0, nc_full, packed.data());
      int i = row_begin;
      for (; i + kMr <= row_end; i += kMr) {
        const float* ai = a + static_cast<std::ptrdiff_t>(i) * k + k0;
        float* ci = c + static_cast<std::ptrdiff_t>(i) * n + j0;
        for (int js = 0; js < nc_full; js += kNr)
          kernel_4x8(ai, k, packed.data() + static_cast<std::ptrdiff_t>(js) * kc, kc, ci + js, n);
      }
      for (; i < row_end; ++i) {
        const float* ai = a + static_cast<std::ptrdiff_t>(i) * k + k0;
        float* ci = c + static_cast<std::ptrdiff_t>(i) * n + j0;
        for (int js = 0; js < nc_full; js += kNr)
          kernel_1x8(ai, packed.data() + static_cast<std::ptrdiff_t>(js) * kc, kc, ci + js);
      }
      // Columns beyond the last full strip (n not a multiple of 8): scalar, same k order.
      for (int ii = row_begin; ii < row_end && nc_full < nc; ++ii) {
        const float* ai = a + static_cast<std::ptrdiff_t>(ii) * k + k0;
        float* ci = c + static_cast<std::ptrdiff_t>(ii) * n + j0;
        for (int jj = nc_full; jj < nc; ++jj) {
          float s = ci[jj];
          for (int kk = 0; kk < kc; ++kk) s = s + ai[kk] * b[static_cast<std::ptrdiff_t>(k0 + kk) * n + j0 + jj];
          ci[jj] = s;
        }
      }
    }
  }
}

void multiply_reference(const float* a, const float* b, float* c, int m, int n, int k) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0.0;
      for (int kk = 0; kk < k; ++kk)
        s += static_cast<double>(a[static_cast<std::ptrdiff_t>(i) * k + kk]) *
             b[static_cast<std::ptrdiff_t>(kk) * n + j];
      c[static_cast<std::ptrdiff_t>(i) * n + j] = static_cast<float>(s);
    }
}

const char* vector_path() { return kVectorPath; }

}  // namespace scalelab::matmul
