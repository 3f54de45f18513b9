// Inline PTX of the warp-level matrix instructions: mma.sync and mma.sp in each register shape
// the tensor catalog uses, and ldmatrix / stmatrix / movmatrix. Reviewed once, used by
// src/probes/tensor/*.
#pragma once
#include <cstdint>

// Arch guards for instruction bodies: the code where the target has the instruction, nothing
// elsewhere (a probe whose row a chip lacks is gated by its Requirements and never launched
// there), so every target builds.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GD_IF_SM80(...) __VA_ARGS__
#else
#define GD_IF_SM80(...)
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define GD_IF_SM89(...) __VA_ARGS__
#else
#define GD_IF_SM89(...)
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GD_IF_SM90(...) __VA_ARGS__
#else
#define GD_IF_SM90(...)
#endif
// FP4/FP6/MX block-scaled mma.sync: sm_120a (and sm_121a) only.
#if defined(__CUDA_ARCH_FEAT_SM120_ALL) || defined(__CUDA_ARCH_FEAT_SM121_ALL) || \
    (defined(__CUDA_ARCH_SPECIFIC__) && (__CUDA_ARCH_SPECIFIC__ == 1200 || __CUDA_ARCH_SPECIFIC__ == 1210))
#define GD_IF_SM120A(...) __VA_ARGS__
#else
#define GD_IF_SM120A(...)
#endif

// mma.sync register shapes: GD_MMA_<form>(instruction, d, a, b, c, e, sa, sb) with d, a, b, c
// arrays of 32-bit words ("r"); the D64_ forms take 64-bit words (f64). d and c may alias. Every
// form takes the same arguments so one row macro serves all: e (sparse metadata) and sa, sb
// (block scales) are used by the SP_ and BS_ forms only.
#define GD_MMA_A2B1C2(I, d, a, b, c, ...)                                                   \
  asm volatile(I " {%0,%1}, {%2,%3}, {%4}, {%5,%6};"                                   \
               : "=r"(d[0]), "=r"(d[1])                                                \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]))
#define GD_MMA_A2B1C4(I, d, a, b, c, ...)                                                   \
  asm volatile(I " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"                      \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                        \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]))
#define GD_MMA_A4B2C2(I, d, a, b, c, ...)                                                   \
  asm volatile(I " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"                          \
               : "=r"(d[0]), "=r"(d[1])                                                \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]))
#define GD_MMA_A4B2C4(I, d, a, b, c, ...)                                                             \
  asm volatile(I " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                    \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                  \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),   \
                 "r"(c[1]), "r"(c[2]), "r"(c[3]))
// mma.sp: metadata e, sparsity selector 0.
#define GD_MMA_SP_A2B2C4(I, d, a, b, c, e, ...)                                                       \
  asm volatile(I " {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%8,%9,%10,%11}, %12, 0x0;"                  \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                  \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]),   \
                 "r"(c[3]), "r"(e))
#define GD_MMA_SP_A4B4C4(I, d, a, b, c, e, ...)                                                       \
  asm volatile(I " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, {%12,%13,%14,%15}, %16, 0x0;"  \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                  \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]),   \
                 "r"(b[3]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(e))
// Block-scaled (sm_120a): one scale register each for A and B, byte and thread selectors 0.
#define GD_MMA_BS_A4B2C4(I, d, a, b, c, e, sa, sb)                                                  \
  asm volatile(I " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, %14, {0, 0}, %15, {0, 0};" \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                  \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),   \
                 "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(sa), "r"(sb))
#define GD_MMA_D64_A1B1C2(I, d, a, b, c, ...)                                                         \
  asm volatile(I " {%0,%1}, {%2}, {%3}, {%4,%5};"                                                \
               : "=l"(d[0]), "=l"(d[1])                                                          \
               : "l"(a[0]), "l"(b[0]), "l"(c[0]), "l"(c[1]))
#define GD_MMA_D64_A2B1C4(I, d, a, b, c, ...)                                                         \
  asm volatile(I " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"                                \
               : "=l"(d[0]), "=l"(d[1]), "=l"(d[2]), "=l"(d[3])                                  \
               : "l"(a[0]), "l"(a[1]), "l"(b[0]), "l"(c[0]), "l"(c[1]), "l"(c[2]), "l"(c[3]))
#define GD_MMA_D64_A4B2C4(I, d, a, b, c, ...)                                                         \
  asm volatile(I " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                    \
               : "=l"(d[0]), "=l"(d[1]), "=l"(d[2]), "=l"(d[3])                                  \
               : "l"(a[0]), "l"(a[1]), "l"(a[2]), "l"(a[3]), "l"(b[0]), "l"(b[1]), "l"(c[0]),   \
                 "l"(c[1]), "l"(c[2]), "l"(c[3]))
#define GD_MMA_D64_A8B4C4(I, d, a, b, c, ...)                                                              \
  asm volatile(I " {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%16,%17,%18,%19};" \
               : "=l"(d[0]), "=l"(d[1]), "=l"(d[2]), "=l"(d[3])                                       \
               : "l"(a[0]), "l"(a[1]), "l"(a[2]), "l"(a[3]), "l"(a[4]), "l"(a[5]), "l"(a[6]),        \
                 "l"(a[7]), "l"(b[0]), "l"(b[1]), "l"(b[2]), "l"(b[3]), "l"(c[0]), "l"(c[1]),        \
                 "l"(c[2]), "l"(c[3]))

namespace gd::ptx {

// --- ldmatrix / stmatrix / movmatrix (sm_75+ / sm_90+ / sm_75+) --------------------------------
// Each lane passes the shared address of one 16-byte row (lanes 0-7: matrix 0, 8-15: matrix 1, ...).
template <int N, bool Trans>
__device__ __forceinline__ void ldmatrix(uint32_t (&r)[N], uint32_t smem_addr) {
  static_assert(N == 1 || N == 2 || N == 4, "ldmatrix loads 1, 2 or 4 matrices");
  GD_IF_SM80(
    if constexpr (N == 1 && !Trans) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(smem_addr));
    if constexpr (N == 1 && Trans) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(smem_addr));
    if constexpr (N == 2 && !Trans)
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(smem_addr));
    if constexpr (N == 2 && Trans)
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(smem_addr));
    if constexpr (N == 4 && !Trans)
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_addr));
    if constexpr (N == 4 && Trans)
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_addr));)
}

template <int N, bool Trans>
__device__ __forceinline__ void stmatrix(uint32_t smem_addr, const uint32_t (&r)[N]) {
  static_assert(N == 1 || N == 2 || N == 4, "stmatrix stores 1, 2 or 4 matrices");
  GD_IF_SM90(
    if constexpr (N == 1 && !Trans) asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(smem_addr), "r"(r[0]) : "memory");
    if constexpr (N == 1 && Trans) asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(smem_addr), "r"(r[0]) : "memory");
    if constexpr (N == 2 && !Trans)
      asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};" :: "r"(smem_addr), "r"(r[0]), "r"(r[1]) : "memory");
    if constexpr (N == 2 && Trans)
      asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};" :: "r"(smem_addr), "r"(r[0]), "r"(r[1]) : "memory");
    if constexpr (N == 4 && !Trans)
      asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};"
                   :: "r"(smem_addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
    if constexpr (N == 4 && Trans)
      asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};"
                   :: "r"(smem_addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");)
}

// Transposes the 8x8 b16 matrix held one row pair per lane (lane l: row l/4, columns 2(l%4), +1).
__device__ __forceinline__ uint32_t movmatrix_trans(uint32_t x) {
  uint32_t y = x;
  GD_IF_SM80(asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(y) : "r"(x));)
  return y;
}

}  // namespace gd::ptx
