#include "probe_blas.hpp"

#include <dlfcn.h>

namespace scalelab::probe {
namespace {

// CBLAS's enumerations (cblas.h): row-major storage, no transpose.
constexpr int kRowMajor = 101, kNoTrans = 111;

struct Candidate {
  const char* soname;
  const char* name;
};

}  // namespace

void Blas::multiply(const float* a, const float* b, float* c, int n) const {
  sgemm(kRowMajor, kNoTrans, kNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}

std::optional<Blas> find_blas() {
  // Loaded once and kept for the life of the process (never dlclose'd: the library's threads
  // outlive a call).
  for (Candidate c : {Candidate{"libopenblas.so.0", "OpenBLAS"}, Candidate{"libblis.so.4", "BLIS"}}) {
    void* handle = dlopen(c.soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) continue;
    void* symbol = dlsym(handle, "cblas_sgemm");
    if (!symbol) continue;
    Blas blas{c.soname, c.name};
    blas.sgemm = reinterpret_cast<decltype(blas.sgemm)>(symbol);
    return blas;
  }
  return std::nullopt;
}

}  // namespace scalelab::probe
