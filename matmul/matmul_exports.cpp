// C entry points of the matmul WebAssembly module (wasm/CMakeLists.txt: matmul_web, matmul_node).
// The JavaScript side allocates the three matrices with sl_matmul_alloc, writes A and B into
// the module's memory, and calls sl_matmul_rows in chunks (for progress and cancellation).
#include <cstdlib>

#include "matmul.hpp"

extern "C" {

float* sl_matmul_alloc(int count) {
  if (count <= 0) return nullptr;
  return static_cast<float*>(std::aligned_alloc(16, ((static_cast<std::size_t>(count) * sizeof(float) + 15) / 16) * 16));
}

void sl_matmul_free(float* p) { std::free(p); }

void sl_matmul_rows(const float* a, const float* b, float* c, int m, int n, int k, int row_begin,
                    int row_end) {
  scalelab::matmul::multiply_rows(a, b, c, m, n, k, row_begin, row_end);
}

// 1 when built with WebAssembly SIMD128, else 0.
int sl_matmul_simd() {
#if defined(__wasm_simd128__)
  return 1;
#else
  return 0;
#endif
}

}  // extern "C"
