// Inline PTX a fused attention kernel needs beyond ptx_wgmma.cuh, built on its macros: wgmma with
// B MN-major (the P V product), f16 Q K^T with the scale-d predicate at run time, the MN-major
// 128-byte-swizzle descriptor, exp2 on the SFU and named barriers. A header of its own so that the probes
// including ptx_wgmma.cuh (some 340 wgmma kernels) do not recompile when it changes.
#pragma once
#include <cstdint>

#include "core/ptx_wgmma.cuh"

namespace gd::wgmma {

// B "transposed" (MN-major: N contiguous in shared memory, as a row-major V tile lies), A from
// registers (RS) or shared memory: m64nNk16, f16 inputs, f32 accumulators.
GD_WGMMA_DENSE(F16F32TransB, float, "+f", HALF, "k16.f32.f16.f16", 16, ", 1, 1, 0, 1", ", 1, 1, 1")

// D = A B, or D = A B + D when `accumulate` is nonzero (the scale-d predicate at run time), f16
// operands from shared memory (K-major), f32 accumulators: the first K step of a fresh tile
// overwrites the accumulators instead of needing them zeroed. N = 64, 128 or 256.
#define GD_WG_SSD_ASM(N, R)                                                                       \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %" GD_WG_I2_##R ", 0;\n" GD_WG_INSTR("", N, "k16.f32.f16.f16") \
  " {" GD_WG_D##R "}, %" GD_WG_I0_##R ", %" GD_WG_I1_##R ", p, 1, 1, 0, 0;\n}\n"
#define GD_WG_SSD_CASE(N, R) \
  if constexpr (Nn == N) asm volatile(GD_WG_SSD_ASM(N, R) : GD_WG_O##R("+f", d) : "l"(a_desc), "l"(b_desc), "r"(accumulate));
template <int Nn>
__device__ __forceinline__ void f16f32_ss_scale_d(float* d, std::uint64_t a_desc, std::uint64_t b_desc, int accumulate) {
  static_assert(Nn == 64 || Nn == 128 || Nn == 256, "f16f32_ss_scale_d: N is 64, 128 or 256");
  (void)d; (void)a_desc; (void)b_desc; (void)accumulate;
  GD_WGMMA_ONLY(GD_WG_SSD_CASE(64, 32) GD_WG_SSD_CASE(128, 64) GD_WG_SSD_CASE(256, 128))
}
#undef GD_WG_SSD_CASE
#undef GD_WG_SSD_ASM

// The descriptor of an MN-major operand (N contiguous) in 128-byte swizzle: atoms of 8 K rows x
// 64 two-byte elements (one 128-byte row each), 8-row K groups `sbo_bytes` apart (1024 when
// dense) and 64-element N blocks `lbo_bytes` apart: CUTLASS's canonical
// Swizzle<3,4,3> o ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)). The tile is 1024-byte aligned.
__host__ __device__ constexpr std::uint64_t mn_major_desc_b128(unsigned start_addr, unsigned lbo_bytes,
                                                               unsigned sbo_bytes) {
  return encode_desc(start_addr, lbo_bytes, sbo_bytes, Swizzle::B128);
}

}  // namespace gd::wgmma

namespace gd::ptx {

// Named barrier `id` (1..15; 0 is __syncthreads) over `threads` threads (a multiple of 32): sync
// waits for the barrier's phase to complete, arrive counts toward it without waiting. The
// producer/consumer handshake of warp groups that do not all take part (FA3's ping-pong).
__device__ __forceinline__ void named_bar_sync(unsigned id, unsigned threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_bar_arrive(unsigned id, unsigned threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// 2^a on the SFU (MUFU.EX2), denormals flushed: the exponential of an online softmax. Not
// volatile: the compiler schedules it like any arithmetic.
__device__ __forceinline__ float ex2_approx_ftz(float a) {
  float d;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(a));
  return d;
}

}  // namespace gd::ptx
