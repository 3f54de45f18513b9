// The GEMM-ceiling probe's inputs, host side: the precisions and their tolerances, the shape
// names, and random matrices drawn from a pool (gemm_cublas.cu; tested in tests/probes).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <cublas_api.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <library_types.h>

#include "core/error.hpp"

namespace gd::gemm {

// One precision: storage of A/B and of C, the compute type, and how exact the result must be
// (relative to sum |a_k b_k| of the sampled output).
struct GemmType {
  const char* name;
  cudaDataType_t ab, c;
  cublasComputeType_t compute;
  int ab_bytes, c_bytes;
  bool integer;   // int8 in, int32 out, int32 scaling: tera-ops, exact
  bool lt_fp8;    // through cuBLASLt (FP8 needs it), with A/B scale pointers
  int min_cc;     // FP8 tensor cores from sm_89
  double tol;
};

inline constexpr GemmType kTypes[] = {
    {"fp64", CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, 8, 8, false, false, 0, 1e-10},
    {"fp32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4, false, false, 0, 1e-4},
    {"tf32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4, false, false, 80, 4e-3},
    {"fp16", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 2, false, false, 70, 4e-3},
    {"bf16", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 2, false, false, 80, 1e-2},
    {"int8", CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, 1, 4, true, false, 75, 0},
    {"fp8_e4m3", CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 1, 2, false, true, 89, 1e-2},
};

inline const GemmType& gemm_type(const std::string& name) {
  for (const auto& t : kTypes)
    if (name == t.name) return t;
  throw Error("unknown GEMM type '" + name + "'");
}

inline std::size_t data_type_bytes(cudaDataType_t t) {
  switch (t) {
    case CUDA_R_64F: return 8;
    case CUDA_R_32F: case CUDA_R_32I: return 4;
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    case CUDA_R_8I: case CUDA_R_8F_E4M3: return 1;
    default: throw Error("data_type_bytes: unhandled data type");
  }
}

struct Shape {
  long long m, n, k;
};
// "sq8192": M = N = K = 8192; "m128_n8192_k8192": a skinny one.
inline Shape parse_shape(const std::string& s) {
  long long m = 0, n = 0, k = 0;
  if (std::sscanf(s.c_str(), "sq%lld", &m) == 1) return {m, m, m};
  if (std::sscanf(s.c_str(), "m%lld_n%lld_k%lld", &m, &n, &k) == 3) return {m, n, k};
  throw Error("GEMM shape '" + s + "' is neither sqN nor mM_nN_kK");
}

// Host values, stored as the type's bytes, and the value each stands for (for the reference).
// Random uniform in [-1, 1) (integers in [-64, 64]) through a pool of a prime length, so large
// matrices fill at memcpy speed and no row repeats another's pattern.
struct Pool {
  std::vector<unsigned char> bytes;
  std::vector<double> values;
};
inline constexpr std::size_t kPool = 1000003;

// zero: every entry 0 (all-zero bytes in each type), for power with idle datapaths.
inline Pool make_pool(const GemmType& t, std::uint32_t seed, bool zero = false) {
  Pool p;
  p.bytes.resize(kPool * t.ab_bytes);
  p.values.resize(kPool);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::uniform_int_distribution<int> ui(-64, 64);
  for (std::size_t i = 0; i < kPool; ++i) {
    unsigned char* dst = &p.bytes[i * t.ab_bytes];
    const float f = zero ? 0.f : u(rng);
    double v = 0;
    switch (t.ab) {
      case CUDA_R_64F: { const double d = f; std::memcpy(dst, &d, 8); v = d; break; }
      case CUDA_R_32F: { std::memcpy(dst, &f, 4); v = f; break; }
      case CUDA_R_16F: { const __half h = __float2half(f); std::memcpy(dst, &h, 2); v = __half2float(h); break; }
      case CUDA_R_16BF: { const __nv_bfloat16 h = __float2bfloat16(f); std::memcpy(dst, &h, 2); v = __bfloat162float(h); break; }
      case CUDA_R_8I: { const std::int8_t q = zero ? std::int8_t(0) : std::int8_t(ui(rng)); std::memcpy(dst, &q, 1); v = q; break; }
      case CUDA_R_8F_E4M3: { const __nv_fp8_e4m3 q(f); std::memcpy(dst, &q, 1); v = float(q); break; }
      default: throw Error("make_pool: unhandled data type");
    }
    // TF32 multiplies the top 10 mantissa bits; the reference keeps fp32 values and the
    // tolerance covers the truncation.
    p.values[i] = v;
  }
  return p;
}

// elements [0, count) of a matrix, element e taking pool entry (e + offset) % kPool
inline void fill_from_pool(std::vector<unsigned char>& host, const Pool& p, std::size_t count, std::size_t offset, int bytes) {
  host.resize(count * bytes);
  std::size_t e = 0;
  while (e < count) {
    const std::size_t start = (e + offset) % kPool, run = std::min(count - e, kPool - start);
    std::memcpy(&host[e * bytes], &p.bytes[start * bytes], run * bytes);
    e += run;
  }
}

}  // namespace gd::gemm
