#include "probe_kernels.hpp"

#include <cstdint>
#include <cstring>
#include <fstream>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace scalelab::probe {
namespace {

// Independent accumulators per kernel: enough to cover the latency of a fused multiply-add
// (4 cycles) on two units with room to spare, and few enough to stay in registers.
constexpr int kChains = 12;

// Keeps the compiler from treating a vector register as known, so that a loop of the same
// operation cannot be folded into one.
#if defined(__x86_64__)
template <typename T>
inline void opaque(T& value) {
  asm volatile("" : "+v"(value));
}
#endif

// ---- the compiler's own vectors: any CPU -----------------------------------------------------
typedef float f32x4 __attribute__((vector_size(16)));
typedef std::int32_t i32x4 __attribute__((vector_size(16)));
typedef std::int8_t i8x16 __attribute__((vector_size(16)));

double fma_generic(long iterations) {
  f32x4 acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = f32x4{} + static_cast<float>(j);
  const f32x4 a = f32x4{} + 0.9999999f, b = f32x4{} + 1e-7f;
  for (long i = 0; i < iterations; ++i) {
    for (int j = 0; j < kChains; ++j) acc[j] = acc[j] * a + b;  // fused where the file is built with -ffp-contract=fast
  }
  float sum = 0;
  for (int j = 0; j < kChains; ++j) sum += acc[j][0];
  return sum;
}

double int8_generic(long iterations) {
  alignas(16) std::int8_t a[64], b[64];
  for (int i = 0; i < 64; ++i) a[i] = static_cast<std::int8_t>(i - 32), b[i] = static_cast<std::int8_t>(3 - i % 7);
  std::int32_t acc[16] = {};
  for (long i = 0; i < iterations; ++i) {
    asm volatile("" : : : "memory");  // a and b may have changed: read them again
    for (int j = 0; j < 64; ++j) acc[j & 15] += a[j] * b[j];
  }
  std::int64_t sum = 0;
  for (int j = 0; j < 16; ++j) sum += acc[j];
  return static_cast<double>(sum);
}

#if defined(__x86_64__)
// ---- AVX-512 -------------------------------------------------------------------------------
// Lane 0 of a vector, through memory (GCC 12's reductions and extracts warn of an uninitialised
// value inside them).
__attribute__((target("avx512f"))) float first_lane(__m512 v) {
  alignas(64) float out[16];
  _mm512_store_ps(out, v);
  return out[0];
}

__attribute__((target("avx512f"))) double fma_avx512(long iterations) {
  __m512 acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = _mm512_set1_ps(static_cast<float>(j));
  const __m512 a = _mm512_set1_ps(0.9999999f), b = _mm512_set1_ps(1e-7f);
  for (long i = 0; i < iterations; ++i) {
    for (int j = 0; j < kChains; ++j) acc[j] = _mm512_fmadd_ps(acc[j], a, b);
  }
  for (int j = 1; j < kChains; ++j) acc[0] = _mm512_add_ps(acc[0], acc[j]);
  return first_lane(acc[0]);
}

__attribute__((target("avx512f,avx512vnni"))) double int8_avx512_vnni(long iterations) {
  __m512i acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = _mm512_setzero_si512();
  __m512i u = _mm512_set1_epi8(3), s = _mm512_set1_epi8(-2);
  for (long i = 0; i < iterations; ++i) {
    opaque(u);
    for (int j = 0; j < kChains; ++j) acc[j] = _mm512_dpbusd_epi32(acc[j], u, s);
  }
  for (int j = 1; j < kChains; ++j) acc[0] = _mm512_add_epi32(acc[0], acc[j]);
  alignas(64) std::int32_t out[16];
  _mm512_store_si512(out, acc[0]);
  return out[0];
}

__attribute__((target("avx512f,avx512bf16"))) double bf16_avx512(long iterations) {
  __m512 acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = _mm512_setzero_ps();
  __m512bh x = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.5f), _mm512_set1_ps(0.25f));
  __m512bh y = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1e-3f), _mm512_set1_ps(2e-3f));
  for (long i = 0; i < iterations; ++i) {
    opaque(x);
    for (int j = 0; j < kChains; ++j) acc[j] = _mm512_dpbf16_ps(acc[j], x, y);
  }
  for (int j = 1; j < kChains; ++j) acc[0] = _mm512_add_ps(acc[0], acc[j]);
  return first_lane(acc[0]);
}

// ---- AVX2 ----------------------------------------------------------------------------------
__attribute__((target("avx2,fma"))) double fma_avx2(long iterations) {
  __m256 acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = _mm256_set1_ps(static_cast<float>(j));
  const __m256 a = _mm256_set1_ps(0.9999999f), b = _mm256_set1_ps(1e-7f);
  for (long i = 0; i < iterations; ++i) {
    for (int j = 0; j < kChains; ++j) acc[j] = _mm256_fmadd_ps(acc[j], a, b);
  }
  alignas(32) float out[8];
  for (int j = 1; j < kChains; ++j) acc[0] = _mm256_add_ps(acc[0], acc[j]);
  _mm256_store_ps(out, acc[0]);
  return out[0] + out[7];
}

__attribute__((target("avx2,avxvnni"))) double int8_avx_vnni(long iterations) {
  __m256i acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = _mm256_setzero_si256();
  __m256i u = _mm256_set1_epi8(3), s = _mm256_set1_epi8(-2);
  for (long i = 0; i < iterations; ++i) {
    opaque(u);
    for (int j = 0; j < kChains; ++j) acc[j] = _mm256_dpbusd_avx_epi32(acc[j], u, s);
  }
  for (int j = 1; j < kChains; ++j) acc[0] = _mm256_add_epi32(acc[0], acc[j]);
  return _mm256_extract_epi32(acc[0], 0);
}

// llama.cpp's 8-bit dot product on AVX2: unsigned x signed bytes to 16-bit pair sums, those to
// 32-bit pair sums, added to the accumulator: 32 multiply-adds in three instructions.
__attribute__((target("avx2"))) double int8_avx2(long iterations) {
  __m256i acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = _mm256_setzero_si256();
  __m256i u = _mm256_set1_epi8(3), s = _mm256_set1_epi8(-2);
  const __m256i ones = _mm256_set1_epi16(1);
  for (long i = 0; i < iterations; ++i) {
    opaque(u);
    for (int j = 0; j < kChains; ++j) {
      acc[j] = _mm256_add_epi32(acc[j], _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), ones));
    }
  }
  for (int j = 1; j < kChains; ++j) acc[0] = _mm256_add_epi32(acc[0], acc[j]);
  return _mm256_extract_epi32(acc[0], 0);
}

bool has(const char* feature) {
  __builtin_cpu_init();
  if (std::strcmp(feature, "avx512f") == 0) return __builtin_cpu_supports("avx512f");
  if (std::strcmp(feature, "avx512vnni") == 0) return __builtin_cpu_supports("avx512vnni");
  if (std::strcmp(feature, "avx512bf16") == 0) return __builtin_cpu_supports("avx512bf16");
  if (std::strcmp(feature, "avx2") == 0) return __builtin_cpu_supports("avx2");
  if (std::strcmp(feature, "fma") == 0) return __builtin_cpu_supports("fma");
  if (std::strcmp(feature, "avxvnni") == 0) return __builtin_cpu_supports("avxvnni");
  return false;
}
#endif

std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    return value;
  }
  return "";
}

}  // namespace

ComputeKernel fp32_fma_kernel() {
#if defined(__x86_64__)
  if (has("avx512f")) return {"AVX-512 FMA (16 fp32 lanes)", kChains * 16 * 2.0, fma_avx512};
  if (has("avx2") && has("fma")) return {"AVX2 FMA (8 fp32 lanes)", kChains * 8 * 2.0, fma_avx2};
#endif
  return {"the compiler's 4-lane vectors (multiply-add)", kChains * 4 * 2.0, fma_generic};
}

ComputeKernel int8_dot_kernel() {
#if defined(__x86_64__)
  if (has("avx512f") && has("avx512vnni")) return {"AVX-512 VNNI (vpdpbusd, 64 int8 products)", kChains * 64 * 2.0, int8_avx512_vnni};
  if (has("avx2") && has("avxvnni")) return {"AVX-VNNI (vpdpbusd, 32 int8 products)", kChains * 32 * 2.0, int8_avx_vnni};
  if (has("avx2")) return {"AVX2 (vpmaddubsw + vpmaddwd, 32 int8 products)", kChains * 32 * 2.0, int8_avx2};
#endif
  return {"the compiler's vectors (64 int8 products)", 64 * 2.0, int8_generic};
}

std::optional<ComputeKernel> bf16_dot_kernel() {
#if defined(__x86_64__)
  if (has("avx512f") && has("avx512bf16")) return ComputeKernel{"AVX-512 BF16 (vdpbf16ps, 32 bf16 products)", kChains * 32 * 2.0, bf16_avx512};
#endif
  return std::nullopt;
}

int fp32_lanes() {
#if defined(__x86_64__)
  if (has("avx512f")) return 16;
  if (has("avx2") && has("fma")) return 8;
#endif
  return 4;
}

double read_sum(const double* data, std::size_t count) {
  typedef double f64x4 __attribute__((vector_size(32)));
  f64x4 acc[4] = {};
  std::size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    for (int j = 0; j < 4; ++j) {
      f64x4 v;
      std::memcpy(&v, data + i + 4 * j, sizeof v);
      acc[j] += v;
    }
  }
  double sum = 0;
  for (; i < count; ++i) sum += data[i];
  for (int j = 0; j < 4; ++j) sum += acc[j][0] + acc[j][1] + acc[j][2] + acc[j][3];
  return sum;
}

std::optional<double> cycles_of_add_chain(long iterations) {
#if defined(__x86_64__) || defined(__aarch64__)
  // The addend is a register, not an immediate: recent Intel cores (Golden Cove and later) fold
  // chains of add-immediate in the renamer and ran this loop at 8.6 "GHz" on a Xeon here.
  std::uint64_t x = 0, one = 1;
  for (long i = 0; i < iterations; ++i) {
#if defined(__x86_64__)
    asm volatile(".rept 64\n\taddq %1, %0\n\t.endr" : "+r"(x) : "r"(one));
#else
    asm volatile(".rept 64\n\tadd %0, %0, %1\n\t.endr" : "+r"(x) : "r"(one));
#endif
  }
  return x == static_cast<std::uint64_t>(iterations) * 64 ? std::optional<double>(static_cast<double>(x)) : std::nullopt;
#else
  (void)iterations;
  return std::nullopt;
#endif
}

CpuInfo cpu_info() {
  CpuInfo c;
  c.model = cpuinfo_field("model name");
  c.vendor = cpuinfo_field("vendor_id");
  if (c.model.empty()) c.model = "unknown CPU";
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
    unsigned base_family = (eax >> 8) & 0xf, base_model = (eax >> 4) & 0xf;
    c.family = static_cast<int>(base_family == 0xf ? base_family + ((eax >> 20) & 0xff) : base_family);
    c.model_number = static_cast<int>(base_family >= 0x6 ? base_model | (((eax >> 16) & 0xf) << 4) : base_model);
  }
  std::string f;
  for (const char* name : {"avx512f", "avx512vnni", "avx512bf16", "avxvnni", "avx2", "fma"}) {
    if (has(name)) f += (f.empty() ? "" : " ") + std::string(name);
  }
  c.features = f.empty() ? "SSE2 only" : f;
  bool amd = c.vendor == "AuthenticAMD", avx512 = has("avx512f");
  if (amd && c.family == 0x1a) {
    c.fma_units = 2;
    c.fma_units_why = "Zen 5: two FMA pipes 512 bits wide on desktop and server parts (AMD, Software Optimization Guide "
                      "for the Zen 5 Microarchitecture, pub. 58455, floating-point unit); laptop parts split a 512-bit "
                      "FMA into two 256-bit halves, which halves this";
  } else if (amd && c.family == 0x19) {
    c.fma_units = avx512 ? 1 : 2;
    c.fma_units_why = avx512 ? "Zen 4: two 256-bit FMA pipes, so one 512-bit FMA a cycle (AMD, Software Optimization "
                               "Guide for the Zen 4 Microarchitecture, pub. 57647)"
                             : "Zen 3: two 256-bit FMA pipes (AMD, Software Optimization Guide for Family 19h, pub. 56665)";
  } else if (amd && c.family == 0x17) {
    c.fma_units = c.model_number >= 0x30 ? 2 : 1;
    c.fma_units_why = c.model_number >= 0x30 ? "Zen 2: two 256-bit FMA pipes (AMD, pub. 56305)"
                                             : "Zen 1: two 128-bit FMA pipes, one 256-bit FMA a cycle (AMD, pub. 55723)";
  } else if (c.vendor == "GenuineIntel") {
    c.fma_units = 2;
    c.fma_units_why = avx512 ? "Intel Xeon Scalable: two 512-bit FMA units (Intel 64 and IA-32 Architectures "
                               "Optimization Reference Manual); some client and entry parts have one, which halves this"
                             : "Intel since Haswell: two 256-bit FMA units (Intel Optimization Reference Manual)";
  } else {
    c.fma_units_why = "assumed: two FMA units, the common case; this CPU family is not in the probe's table";
  }
#else
  c.features = "the compiler's 4-lane vectors";
  c.fma_units_why = "assumed: two FMA units, the common case; the probe knows x86-64 families only";
#endif
  return c;
}

}  // namespace scalelab::probe
