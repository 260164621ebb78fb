// A system BLAS found at run time (dlopen), for `scalelab probe`'s matmul: Debian's OpenBLAS
// (libopenblas0-pthread, installed by scripts/setup.sh) or BLIS (libblis4). Absent, the probe
// times its own kernel alone and says so.
#pragma once
#include <optional>
#include <string>

namespace scalelab::probe {

struct Blas {
  std::string library;  // the soname that loaded, e.g. "libopenblas.so.0"
  std::string name;     // for people: "OpenBLAS"
  // C = A·B for n×n row-major fp32 matrices (cblas_sgemm), on the library's own threads.
  void (*sgemm)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int) = nullptr;
  void multiply(const float* a, const float* b, float* c, int n) const;
};

// The first of OpenBLAS and BLIS that loads and has cblas_sgemm; null when neither does.
std::optional<Blas> find_blas();

}  // namespace scalelab::probe
