// A small float32 matrix multiply for the CPU-vs-WebGPU experiment (issue 6).
//
// Row-major, C[M×N] = A[M×K] · B[K×N]. Blocked over K and N with B packed into
// contiguous 8-column strips and a 4×8 register-tiled micro-kernel on 4-wide vectors:
// WebAssembly SIMD128 intrinsics under -msimd128, GNU vector extensions natively (SSE/NEON),
// plain scalar code otherwise. The same source is built natively (bench/matmul) and to its
// own small WebAssembly module (wasm/CMakeLists.txt, target matmul_web); it is not part of
// the scalelab_engine library.
//
// Summation order: each output element's K products are added one by one in k order (the
// K blocking only stores the running sum in C between blocks), starting from 0. There is no
// fused multiply-add in WebAssembly SIMD128 and the kernel asks for none natively, so every
// product and every sum is rounded separately (IEEE binary32).
#pragma once

#include <cstddef>

namespace scalelab::matmul {

inline constexpr int kBlockK = 128;  // K extent of a packed B panel
inline constexpr int kBlockN = 256;  // N extent of a packed B panel (a multiple of 8)

// C = A · B for rows [row_begin, row_end) of C only; other rows are not touched.
// Lets a caller split a long multiplication into chunks (progress, cancellation) with the
// same result as one call. Requires 0 <= row_begin <= row_end <= m; n, k >= 0.
void multiply_rows(const float* a, const float* b, float* c, int m, int n, int k, int row_begin,
                   int row_end);

// C = A · B, all rows.
inline void multiply(const float* a, const float* b, float* c, int m, int n, int k) {
  multiply_rows(a, b, c, m, n, k, 0, m);
}

// Textbook i-j-k triple loop with a double accumulator: the slow, independent reference
// used by the native self-check.
void multiply_reference(const float* a, const float* b, float* c, int m, int n, int k);

// Human-readable name of the vector path compiled in ("wasm-simd128", "gnu-vector", "scalar").
const char* vector_path();

}  // namespace scalelab::matmul
