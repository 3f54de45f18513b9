// Inline PTX for Blackwell's fifth-generation tensor cores (tcgen05, sm_100a): Tensor Memory
// (TMEM) allocation, tcgen05.mma from shared memory (SS) or with A in TMEM (TS) for one CTA or a
// CTA pair (cta_group::1 / ::2), commit to an mbarrier, and TMEM loads and stores.
// The instructions exist only in sm_100a-class code (GD_TCGEN05); elsewhere the wrappers trap and
// the probes using them are gated on Feature::Tcgen05 and guard their kernel bodies.
#pragma once
#include <cstdint>

#if defined(__CUDA_ARCH__) && (defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM103_ALL))
#define GD_TCGEN05 1
#define GD_TCGEN05_ONLY(...) __VA_ARGS__
#else
#define GD_TCGEN05_ONLY(...) __trap();
#endif

namespace gd::tcgen05 {

// --- descriptors --------------------------------------------------------------------------------
// The sm_100 shared-memory descriptor of a K-major operand in the 128-byte swizzle layout of
// wgmma::kmajor_offset (atoms of 8 rows x 128 bytes, tile 1024-byte aligned), starting at byte
// `kbyte` of each row: the sm_90 fields plus the version (1, bits 46-47), with the layout type
// in bits 61-63 (128B swizzle = 2).
__host__ __device__ constexpr std::uint64_t kmajor_sw128_desc(unsigned tile_addr, unsigned kbyte, unsigned rows) {
  const unsigned start = tile_addr + (kbyte / 128) * rows * 128 + kbyte % 128;
  return std::uint64_t((start >> 4) & 0x3FFF) | std::uint64_t(1) << 16 | std::uint64_t(1024 >> 4) << 32 |
         std::uint64_t(1) << 46 | std::uint64_t(2) << 61;
}

// Operand and accumulator formats of the instruction descriptor (per kind).
enum class CFormat : unsigned { F16 = 0, F32 = 1, S32 = 2 };
// The 32-bit instruction descriptor of a dense, K-major, unnegated MMA of M x N.
__host__ __device__ constexpr std::uint32_t instr_desc(CFormat c, unsigned a_format, unsigned b_format, int m, int n) {
  return unsigned(c) << 4 | a_format << 7 | b_format << 10 | std::uint32_t(n >> 3) << 17 | std::uint32_t(m >> 4) << 24;
}

// --- TMEM allocation (one full warp executes these; cta_group::2: one warp in each CTA) --------
// Writes the allocated TMEM address to shared memory at `slot`; ncols is a power of two >= 32.
template <int CtaGroup>
__device__ __forceinline__ void alloc(unsigned slot, unsigned ncols) {
  if constexpr (CtaGroup == 1)
    GD_TCGEN05_ONLY(asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(slot), "r"(ncols) : "memory");)
  else
    GD_TCGEN05_ONLY(asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(slot), "r"(ncols) : "memory");)
}
template <int CtaGroup>
__device__ __forceinline__ void relinquish_alloc_permit() {
  if constexpr (CtaGroup == 1)
    GD_TCGEN05_ONLY(asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");)
  else
    GD_TCGEN05_ONLY(asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" ::: "memory");)
}
template <int CtaGroup>
__device__ __forceinline__ void dealloc(unsigned taddr, unsigned ncols) {
  if constexpr (CtaGroup == 1)
    GD_TCGEN05_ONLY(asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");)
  else
    GD_TCGEN05_ONLY(asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");)
}

// --- ordering -------------------------------------------------------------------------------------
__device__ __forceinline__ void fence_before_thread_sync() {
  GD_TCGEN05_ONLY(asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");)
}
__device__ __forceinline__ void fence_after_thread_sync() {
  GD_TCGEN05_ONLY(asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");)
}
// The mbarrier at `bar` gets one arrival when every tcgen05.mma this thread issued has completed;
// cta_group::2 signals the barrier at the same offset in both CTAs of the pair.
template <int CtaGroup>
__device__ __forceinline__ void commit(unsigned bar) {
  if constexpr (CtaGroup == 1)
    GD_TCGEN05_ONLY(asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar) : "memory");)
  else
    GD_TCGEN05_ONLY(asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;"
                                 ::"r"(bar), "h"((unsigned short)0x3) : "memory");)
}

// --- MMA --------------------------------------------------------------------------------------------
// D (TMEM at d) = A B (+ D when accumulate). SS: A and B by shared-memory descriptors. TS: A in
// TMEM at a_tmem, B by descriptor. Issued by one thread for the whole CTA (or CTA pair).
#define GD_TC_HEAD "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
#define GD_TC_MMA(CG, KIND)                                                                                         \
  __device__ __forceinline__ static void ss(unsigned d, std::uint64_t a, std::uint64_t b, std::uint32_t idesc,      \
                                            std::uint32_t accumulate) {                                             \
    GD_TCGEN05_ONLY(asm volatile(GD_TC_HEAD "tcgen05.mma.cta_group::" #CG ".kind::" KIND " [%0], %1, %2, %3, p;\n}\n" \
                                 ::"r"(d), "l"(a), "l"(b), "r"(idesc), "r"(accumulate) : "memory");)               \
  }                                                                                                                 \
  __device__ __forceinline__ static void ts(unsigned d, unsigned a_tmem, std::uint64_t b, std::uint32_t idesc,      \
                                            std::uint32_t accumulate) {                                             \
    GD_TCGEN05_ONLY(asm volatile(GD_TC_HEAD "tcgen05.mma.cta_group::" #CG ".kind::" KIND " [%0], [%1], %2, %3, p;\n}\n" \
                                 ::"r"(d), "r"(a_tmem), "l"(b), "r"(idesc), "r"(accumulate) : "memory");)          \
  }
template <int CtaGroup>
struct KindF16;
template <>
struct KindF16<1> { GD_TC_MMA(1, "f16") };
template <>
struct KindF16<2> { GD_TC_MMA(2, "f16") };
template <int CtaGroup>
struct KindTf32;
template <>
struct KindTf32<1> { GD_TC_MMA(1, "tf32") };
template <>
struct KindTf32<2> { GD_TC_MMA(2, "tf32") };
template <int CtaGroup>
struct KindF8f6f4;
template <>
struct KindF8f6f4<1> { GD_TC_MMA(1, "f8f6f4") };
template <>
struct KindF8f6f4<2> { GD_TC_MMA(2, "f8f6f4") };
template <int CtaGroup>
struct KindI8;
template <>
struct KindI8<1> { GD_TC_MMA(1, "i8") };
template <>
struct KindI8<2> { GD_TC_MMA(2, "i8") };
#undef GD_TC_MMA
#undef GD_TC_HEAD

// --- TMEM <-> registers ---------------------------------------------------------------------------
// A warp moves 32 lanes (warp w of the CTA: lanes 32 (w % 4) ...) x 8 consecutive 32-bit columns;
// thread t holds lane t's 8 columns. TMEM addresses are lane << 16 | column.
__device__ __forceinline__ void ld_32x32b_x8(unsigned taddr, std::uint32_t (&r)[8]) {
  GD_TCGEN05_ONLY(asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
                                 "=r"(r[7])
                               : "r"(taddr)
                               : "memory");)
}
__device__ __forceinline__ void st_32x32b_x8(unsigned taddr, const std::uint32_t (&r)[8]) {
  GD_TCGEN05_ONLY(asm volatile("tcgen05.st.sync.aligned.32x32b.x8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};" ::"r"(taddr),
                               "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7])
                               : "memory");)
}
__device__ __forceinline__ void wait_ld() { GD_TCGEN05_ONLY(asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");) }
__device__ __forceinline__ void wait_st() { GD_TCGEN05_ONLY(asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");) }

}  // namespace gd::tcgen05
