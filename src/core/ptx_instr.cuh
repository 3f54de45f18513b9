// Named wrappers for the instruction catalog's second wave (software sequences, warp-level
// operations, special registers, fp8, mma.sync): each is one dependent step with a host model,
// like core/ptx.cuh's. A warp-level step's host model assumes every lane holds the same value,
// which the catalog's kernels guarantee.
#pragma once
#include <cmath>
#include <cstdint>

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "core/ptx.cuh"

namespace gd::ptx {

#ifdef __CUDA_ARCH__
#define GD_PTXI_DEVICE_ONLY(...) __VA_ARGS__
#define GD_PTXI_HOST_ONLY(...)
#else
#define GD_PTXI_DEVICE_ONLY(...)
#define GD_PTXI_HOST_ONLY(...) __VA_ARGS__
#endif

// --- FP32 and FP64 division, square root, reciprocal: IEEE round-to-nearest software sequences
// (the host's operators are correctly rounded too, so the models are exact) ---------------------
__host__ __device__ __forceinline__ float fdiv_rn(float a, float b) {
  GD_PTXI_HOST_ONLY(return a / b;)
  GD_PTXI_DEVICE_ONLY(float d; asm volatile("div.rn.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b)); return d;)
}
// div.full: the fast-math division (2 ulp), MUFU.RCP and a multiply with range scaling.
__host__ __device__ __forceinline__ float fdiv_full(float a, float b) {
  GD_PTXI_HOST_ONLY(return a / b;)
  GD_PTXI_DEVICE_ONLY(float d; asm volatile("div.full.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b)); return d;)
}
__host__ __device__ __forceinline__ float fsqrt_rn(float a) {
  GD_PTXI_HOST_ONLY(return std::sqrt(a);)
  GD_PTXI_DEVICE_ONLY(float d; asm volatile("sqrt.rn.f32 %0, %1;" : "=f"(d) : "f"(a)); return d;)
}
__host__ __device__ __forceinline__ float frcp_rn(float a) {
  GD_PTXI_HOST_ONLY(return 1.0f / a;)
  GD_PTXI_DEVICE_ONLY(float d; asm volatile("rcp.rn.f32 %0, %1;" : "=f"(d) : "f"(a)); return d;)
}
__host__ __device__ __forceinline__ double ddiv_rn(double a, double b) {
  GD_PTXI_HOST_ONLY(return a / b;)
  GD_PTXI_DEVICE_ONLY(double d; asm volatile("div.rn.f64 %0, %1, %2;" : "=d"(d) : "d"(a), "d"(b)); return d;)
}
__host__ __device__ __forceinline__ double dsqrt_rn(double a) {
  GD_PTXI_HOST_ONLY(return std::sqrt(a);)
  GD_PTXI_DEVICE_ONLY(double d; asm volatile("sqrt.rn.f64 %0, %1;" : "=d"(d) : "d"(a)); return d;)
}
// The 64-bit reciprocal helper: MUFU.RCP64H seeds the high word only (about 20 bits), which is
// what rcp.approx.ftz.f64 returns. Of -a, so the chain does not fold back onto itself.
__host__ __device__ __forceinline__ double drcp_approx_neg(double a) {
  GD_PTXI_HOST_ONLY(return 1.0 / -a;)
  GD_PTXI_DEVICE_ONLY(double d;
                      asm volatile("{ .reg .f64 n;\n\tneg.f64 n, %1;\n\trcp.approx.ftz.f64 %0, n; }" : "=d"(d) : "d"(a));
                      return d;)
}

// --- integer division (software sequences of IMAD.HI, MUFU.RCP and fix-ups) -------------------
__host__ __device__ __forceinline__ uint32_t udiv32(uint32_t a, uint32_t b) {
  GD_PTXI_HOST_ONLY(return a / b;)
  GD_PTXI_DEVICE_ONLY(uint32_t d; asm volatile("div.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d;)
}
__host__ __device__ __forceinline__ uint32_t urem32(uint32_t a, uint32_t b) {
  GD_PTXI_HOST_ONLY(return a % b;)
  GD_PTXI_DEVICE_ONLY(uint32_t d; asm volatile("rem.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d;)
}
__host__ __device__ __forceinline__ uint64_t udiv64(uint64_t a, uint64_t b) {
  GD_PTXI_HOST_ONLY(return a / b;)
  GD_PTXI_DEVICE_ONLY(uint64_t d; asm volatile("div.u64 %0, %1, %2;" : "=l"(d) : "l"(a), "l"(b)); return d;)
}

// --- bit fields -------------------------------------------------------------------------------
// Unsigned extract of c & 0xff bits from position b & 0xff (PTX clamps both to 32 bits).
__host__ __device__ __forceinline__ uint32_t bfe_u32(uint32_t a, uint32_t b, uint32_t c) {
  GD_PTXI_HOST_ONLY(const uint32_t pos = b & 0xffu, len = c & 0xffu;
                    if (len == 0 || pos >= 32) return 0u;
                    const uint32_t v = a >> pos;
                    return len >= 32 ? v : v & ((1u << len) - 1u);)
  GD_PTXI_DEVICE_ONLY(uint32_t d; asm volatile("bfe.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d;)
}
// Inserts the low c bits of a into b at position 8: a field at a fixed position, c from 1..24.
__host__ __device__ __forceinline__ uint32_t bfi_b32(uint32_t a, uint32_t b, uint32_t c) {
  GD_PTXI_HOST_ONLY(const uint32_t len = c & 0xffu, pos = 8;
                    const uint32_t mask = (len >= 32 ? 0xffffffffu : ((1u << len) - 1u)) << pos;
                    return (b & ~mask) | ((a << pos) & mask);)
  GD_PTXI_DEVICE_ONLY(uint32_t d;
                      asm volatile("bfi.b32 %0, %1, %2, 8, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d;)
}
// Leading zeros (FLO on the complement, then a subtract: 32 for 0).
__host__ __device__ __forceinline__ uint32_t clz32(uint32_t a) {
  GD_PTXI_HOST_ONLY(return a ? uint32_t(__builtin_clz(a)) : 32u;)
  GD_PTXI_DEVICE_ONLY(uint32_t d; asm volatile("clz.b32 %0, %1;" : "=r"(d) : "r"(a)); return d;)
}

// --- fp8 round trips (sm_89 and later; older code traps, and the catalog gates the rows) ------
__host__ __device__ __forceinline__ float fp8_round_trip_model(float a, __nv_fp8_interpretation_t kind) {
  const __nv_fp8_storage_t q = __nv_cvt_float_to_fp8(a, __NV_SATFINITE, kind);
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(q, kind)));
}
// f32 -> e4m3x2 / e5m2x2 (satfinite) -> f16x2 -> f32 of the low lane.
#define GD_PTXI_FP8_ROUND_TRIP(name, kind, fmt)                                                            \
  __host__ __device__ __forceinline__ float name(float a) {                                                 \
    GD_PTXI_HOST_ONLY(return fp8_round_trip_model(a, kind);)                                                \
    GD_PTXI_FP8_DEVICE(float d;                                                                             \
                       asm volatile("{ .reg .b16 q;\n\t.reg .b32 h;\n\t.reg .b16 lo, hi;\n\t"               \
                                    "cvt.rn.satfinite." fmt "x2.f32 q, %1, %1;\n\tcvt.rn.f16x2." fmt "x2 h, q;\n\t" \
                                    "mov.b32 {lo, hi}, h;\n\tcvt.f32.f16 %0, lo; }" : "=f"(d) : "f"(a));          \
                       return d;)                                                                           \
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define GD_PTXI_FP8_DEVICE(...) __VA_ARGS__
#elif defined(__CUDA_ARCH__)
#define GD_PTXI_FP8_DEVICE(...) __trap(); return a;
#else
#define GD_PTXI_FP8_DEVICE(...)
#endif
GD_PTXI_FP8_ROUND_TRIP(f32_e4m3_f32, __NV_E4M3, "e4m3")
GD_PTXI_FP8_ROUND_TRIP(f32_e5m2_f32, __NV_E5M2, "e5m2")
#undef GD_PTXI_FP8_DEVICE
#undef GD_PTXI_FP8_ROUND_TRIP

// --- warp-level (every lane holds the same value) ----------------------------------------------
// Shuffles return the value itself: the chain runs through the shuffle's result register.
#define GD_PTXI_SHFL(name, mode, lane_arg)                                                               \
  __host__ __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t lane) {                         \
    GD_PTXI_HOST_ONLY((void)lane; return a;)                                                             \
    GD_PTXI_DEVICE_ONLY(uint32_t d;                                                                      \
                        asm volatile("shfl.sync." mode ".b32 %0, %1, %2, " lane_arg ", -1;" : "=r"(d)   \
                                     : "r"(a), "r"(lane));                                              \
                        return d;)                                                                       \
  }
GD_PTXI_SHFL(shfl_idx, "idx", "0x1f")
GD_PTXI_SHFL(shfl_up, "up", "0")
GD_PTXI_SHFL(shfl_down, "down", "0x1f")
GD_PTXI_SHFL(shfl_bfly, "bfly", "0x1f")
#undef GD_PTXI_SHFL

// ballot(a odd) xor b: all ones or zero, then xor.
__host__ __device__ __forceinline__ uint32_t vote_ballot_xor(uint32_t a, uint32_t b) {
  GD_PTXI_HOST_ONLY(return ((a & 1u) ? 0xffffffffu : 0u) ^ b;)
  GD_PTXI_DEVICE_ONLY(uint32_t d;
                      asm volatile("{ .reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tvote.sync.ballot.b32 %0, p, -1; }"
                                   : "=r"(d) : "r"(a & 1u));
                      return d ^ b;)
}
// match.any: the mask of lanes holding the same value (all of them), plus a.
__host__ __device__ __forceinline__ uint32_t match_any_add(uint32_t a, uint32_t b) {
  GD_PTXI_HOST_ONLY(return 0xffffffffu + a + b;)
  GD_PTXI_DEVICE_ONLY(uint32_t d; asm volatile("match.any.sync.b32 %0, %1, -1;" : "=r"(d) : "r"(a)); return d + a + b;)
}
// redux.sync.add over 32 equal lanes: 32 a (sm_80 and later).
__host__ __device__ __forceinline__ uint32_t redux_add(uint32_t a) {
  GD_PTXI_HOST_ONLY(return a * 32u;)
  GD_PTXI_DEVICE_ONLY(uint32_t d; asm volatile("redux.sync.add.u32 %0, %1, -1;" : "=r"(d) : "r"(a)); return d;)
}
// --- special registers: read, masked by c (0 at run time, so the host model is a + b), added -
#define GD_PTXI_SREG(name, sreg)                                                                          \
  __host__ __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c) {                \
    GD_PTXI_HOST_ONLY((void)c; return a + b;)                                                           \
    GD_PTXI_DEVICE_ONLY(uint32_t s; asm volatile("mov.u32 %0, %%" sreg ";" : "=r"(s)); return a + (s & c) + b;) \
  }
GD_PTXI_SREG(sreg_warpid_add, "warpid")
// %smid is warp-uniform: ptxas reads it with S2UR into the uniform datapath.
GD_PTXI_SREG(sreg_smid_add, "smid")
#undef GD_PTXI_SREG

// --- tensor core through mma.sync: the accumulator chain of one m16n8k8 f16 MMA with f32
// accumulation. Every lane holds a = {h, h} and b = {h', h'}, so each output element is
// x + 8 h h' (products exact in f32, one rounding per step as the host's). -----------------
__host__ __device__ __forceinline__ float hmma_acc(float x, float a, float b) {
  GD_PTXI_HOST_ONLY(const float ha = half_bits_to_float(float_to_half_bits(a));
                    const float hb = half_bits_to_float(float_to_half_bits(b));
                    return x + 8.0f * (ha * hb);)
  GD_PTXI_DEVICE_ONLY(const uint32_t ah = float_to_half_bits(a), bh = float_to_half_bits(b);
                      const uint32_t ra = ah | (ah << 16), rb = bh | (bh << 16);
                      float d[4];
                      asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
                                   "{%7, %7, %7, %7};"
                                   : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                                   : "r"(ra), "r"(ra), "r"(rb), "f"(x));
                      return d[0];)
}

// mma.sync m16n8k8 f16 x f16 + f16 with the accumulator as the whole chain value: C and D are
// the same two registers (x's halves), so the stream is HMMA alone. The row's operand set-up
// makes B zero, so D = C exactly and the host model is the identity; the tensor pipe still does
// the whole MMA. (The f32-accumulate row above must copy one float into four C registers: 1.8
// IMAD.MOV per HMMA, which loads the FMA-heavy pipe and spoils it as a pure tensor reference.)
__host__ __device__ __forceinline__ unsigned long long hmma_f16_acc(unsigned long long x, unsigned long long a,
                                                                    unsigned long long b) {
  GD_PTXI_HOST_ONLY(return b == 0 ? x : ~x;)  // no host model for B != 0: fails the check
  GD_PTXI_DEVICE_ONLY(uint32_t d0 = uint32_t(x), d1 = uint32_t(x >> 32);
                      asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, {%0, %1};"
                                   : "+r"(d0), "+r"(d1)
                                   : "r"(uint32_t(a)), "r"(uint32_t(a >> 32)), "r"(uint32_t(b)));
                      return (static_cast<unsigned long long>(d1) << 32) | d0;)
}

#undef GD_PTXI_DEVICE_ONLY
#undef GD_PTXI_HOST_ONLY

}  // namespace gd::ptx
