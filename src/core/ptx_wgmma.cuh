// Inline PTX for Hopper's warpgroup MMA (wgmma, sm_90a): fences, commit and wait groups,
// shared-memory matrix descriptors with swizzle, and wgmma.mma_async for every operand type,
// dense and 2:4 sparse, with A from shared memory (SS) or from registers (RS).
// The instructions exist only in sm_90a code (GD_WGMMA): elsewhere the wrappers trap, and the
// probes using them are gated on Feature::Wgmma and guard their kernel bodies with GD_WGMMA.
#pragma once
#include <cstdint>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GD_WGMMA 1
#define GD_WGMMA_ONLY(...) __VA_ARGS__
#else
#define GD_WGMMA_ONLY(...) __trap();
#endif

namespace gd::wgmma {

// --- shared-memory matrix descriptors -------------------------------------------------------
// The descriptor's layout-type field (bits 62-63). A swizzled tile is made of atoms of 8 rows x
// swizzle_bytes() bytes whose 16-byte chunks are XOR-permuted by the row; None is the
// "interleaved" layout of 8-row x 16-byte core matrices.
enum class Swizzle : unsigned { None = 0, B128 = 1, B64 = 2, B32 = 3 };

__host__ __device__ constexpr unsigned swizzle_bytes(Swizzle s) {
  return s == Swizzle::B128 ? 128 : s == Swizzle::B64 ? 64 : s == Swizzle::B32 ? 32 : 16;
}

// Where byte `kbyte` of row `row` (an M row of A, an N row of B) lies in a K-major tile of `rows`
// rows (a multiple of 8) whose base is aligned to 1024 bytes. Swizzled: K runs in columns of
// atoms, each column holding every row; the chunk bits 4-6 are XORed with bits 7-9 (128B),
// 4-5 with 7-8 (64B) or 4 with 7 (32B) of the offset. None: core matrices of 128 contiguous
// bytes, the 8-row groups of one 16-byte K chunk side by side (SBO = 128 bytes), then the next
// K chunk (LBO = rows x 16 bytes).
__host__ __device__ constexpr unsigned kmajor_offset(unsigned row, unsigned kbyte, unsigned rows, Swizzle s) {
  if (s == Swizzle::None) return (kbyte / 16) * rows * 16 + (row / 8) * 128 + (row % 8) * 16 + kbyte % 16;
  const unsigned w = swizzle_bytes(s);
  const unsigned o = (kbyte / w) * rows * w + (row / 8) * (8 * w) + (row % 8) * w + kbyte % w;
  return o ^ (((o >> 7) & (w / 16 - 1)) << 4);
}

// Encodes a descriptor: start address, leading and stride byte offsets (all in 16-byte units,
// 14 bits each), base offset 0 (the tile is 1024-byte aligned) and the layout type.
__host__ __device__ constexpr std::uint64_t encode_desc(unsigned start_addr, unsigned lbo_bytes, unsigned sbo_bytes,
                                                        Swizzle s) {
  return std::uint64_t((start_addr >> 4) & 0x3FFF) | std::uint64_t((lbo_bytes >> 4) & 0x3FFF) << 16 |
         std::uint64_t((sbo_bytes >> 4) & 0x3FFF) << 32 | std::uint64_t(s) << 62;
}

// The descriptor of the operand that starts at byte `kbyte` of every row of a kmajor_offset()
// tile at shared address `tile_addr`. Swizzled: the start moves within the atom column (the
// hardware applies the XOR to the absolute address), LBO is unused (1 by convention) and SBO is
// one atom (8 rows); None: LBO steps one K chunk, SBO one 8-row group.
__host__ __device__ constexpr std::uint64_t kmajor_desc(unsigned tile_addr, unsigned kbyte, unsigned rows, Swizzle s) {
  if (s == Swizzle::None) return encode_desc(tile_addr + (kbyte / 16) * rows * 16, rows * 16, 128, s);
  const unsigned w = swizzle_bytes(s);
  return encode_desc(tile_addr + (kbyte / w) * rows * w + kbyte % w, 16, 8 * w, s);
}

// Whether an operand of `bytes` bytes of K per row starting at `kbyte` stays inside one atom
// column (a swizzled descriptor cannot step into the next one); always true for None.
__host__ __device__ constexpr bool kmajor_slice_fits(unsigned kbyte, unsigned bytes, Swizzle s) {
  return s == Swizzle::None || (kbyte % swizzle_bytes(s)) + bytes <= swizzle_bytes(s);
}

// --- ordering -------------------------------------------------------------------------------
// Before the first wgmma of a batch and after any other instruction touched its registers.
__device__ __forceinline__ void fence() { GD_WGMMA_ONLY(asm volatile("wgmma.fence.sync.aligned;" ::: "memory");) }
// Closes the wgmma instructions issued since the last commit into one group.
__device__ __forceinline__ void commit_group() {
  GD_WGMMA_ONLY(asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");)
}
// Waits until at most Pending committed groups are still in flight.
template <int Pending>
__device__ __forceinline__ void wait_group() {
  static_assert(Pending >= 0 && Pending <= 7, "wgmma.wait_group takes 0..7");
  GD_WGMMA_ONLY(asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");)
}
// Keeps the compiler from moving accumulator accesses across the asynchronous region.
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }
__device__ __forceinline__ void fence_operand(std::uint32_t& r) { asm volatile("" : "+r"(r)::"memory"); }

// --- wgmma.mma_async --------------------------------------------------------------------------
// An asm template is one string literal, so the operand lists of every accumulator size are
// spelled out here once. Accumulator registers come first (%0 ... %R-1), then A (a descriptor, or
// four registers), B's descriptor and, for sparse forms, the metadata register.
// "%0, %1, ..., %(R-1)": the accumulator operands of an R-register fragment.
#define GD_WG_D2 "%0, %1"
#define GD_WG_D4 GD_WG_D2 ", %2, %3"
#define GD_WG_D8 GD_WG_D4 ", %4, %5, %6, %7"
#define GD_WG_D16 GD_WG_D8 ", " "%8, %9, %10, %11, %12, %13, %14, %15"
#define GD_WG_D32 GD_WG_D16 ", " "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define GD_WG_D48 GD_WG_D32 ", " "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47"
#define GD_WG_D64 GD_WG_D48 ", " "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define GD_WG_D96 GD_WG_D64 ", " "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79" ", " "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define GD_WG_D128 GD_WG_D96 ", " "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111" ", " "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
// The operand numbers after the accumulators, "%R" ... "%R+5" (A, B, sparsity metadata).
#define GD_WG_I0_2 "2"
#define GD_WG_I1_2 "3"
#define GD_WG_I2_2 "4"
#define GD_WG_I3_2 "5"
#define GD_WG_I4_2 "6"
#define GD_WG_I5_2 "7"
#define GD_WG_I0_4 "4"
#define GD_WG_I1_4 "5"
#define GD_WG_I2_4 "6"
#define GD_WG_I3_4 "7"
#define GD_WG_I4_4 "8"
#define GD_WG_I5_4 "9"
#define GD_WG_I0_8 "8"
#define GD_WG_I1_8 "9"
#define GD_WG_I2_8 "10"
#define GD_WG_I3_8 "11"
#define GD_WG_I4_8 "12"
#define GD_WG_I5_8 "13"
#define GD_WG_I0_16 "16"
#define GD_WG_I1_16 "17"
#define GD_WG_I2_16 "18"
#define GD_WG_I3_16 "19"
#define GD_WG_I4_16 "20"
#define GD_WG_I5_16 "21"
#define GD_WG_I0_32 "32"
#define GD_WG_I1_32 "33"
#define GD_WG_I2_32 "34"
#define GD_WG_I3_32 "35"
#define GD_WG_I4_32 "36"
#define GD_WG_I5_32 "37"
#define GD_WG_I0_48 "48"
#define GD_WG_I1_48 "49"
#define GD_WG_I2_48 "50"
#define GD_WG_I3_48 "51"
#define GD_WG_I4_48 "52"
#define GD_WG_I5_48 "53"
#define GD_WG_I0_64 "64"
#define GD_WG_I1_64 "65"
#define GD_WG_I2_64 "66"
#define GD_WG_I3_64 "67"
#define GD_WG_I4_64 "68"
#define GD_WG_I5_64 "69"
#define GD_WG_I0_96 "96"
#define GD_WG_I1_96 "97"
#define GD_WG_I2_96 "98"
#define GD_WG_I3_96 "99"
#define GD_WG_I4_96 "100"
#define GD_WG_I5_96 "101"
#define GD_WG_I0_128 "128"
#define GD_WG_I1_128 "129"
#define GD_WG_I2_128 "130"
#define GD_WG_I3_128 "131"
#define GD_WG_I4_128 "132"
#define GD_WG_I5_128 "133"
// The C++ side: C ("+f" or "+r") bound to d[0] ... d[R-1].
#define GD_WG_OB(C, d, b) C(d[b + 0]), C(d[b + 1]), C(d[b + 2]), C(d[b + 3]), C(d[b + 4]), C(d[b + 5]), C(d[b + 6]), C(d[b + 7])
#define GD_WG_O2(C, d) C(d[0]), C(d[1])
#define GD_WG_O4(C, d) GD_WG_O2(C, d), C(d[2]), C(d[3])
#define GD_WG_O8(C, d) GD_WG_OB(C, d, 0)
#define GD_WG_O16(C, d) GD_WG_OB(C, d, 0), GD_WG_OB(C, d, 8)
#define GD_WG_O32(C, d) GD_WG_O16(C, d), GD_WG_OB(C, d, 16), GD_WG_OB(C, d, 24)
#define GD_WG_O48(C, d) GD_WG_O32(C, d), GD_WG_OB(C, d, 32), GD_WG_OB(C, d, 40)
#define GD_WG_O64(C, d) GD_WG_O48(C, d), GD_WG_OB(C, d, 48), GD_WG_OB(C, d, 56)
#define GD_WG_O96(C, d) GD_WG_O64(C, d), GD_WG_OB(C, d, 64), GD_WG_OB(C, d, 72), GD_WG_OB(C, d, 80), GD_WG_OB(C, d, 88)
#define GD_WG_O128(C, d) GD_WG_O96(C, d), GD_WG_OB(C, d, 96), GD_WG_OB(C, d, 104), GD_WG_OB(C, d, 112), GD_WG_OB(C, d, 120)

// scale-d is a constant true (D = A*B + D): a probe zeroes or loads D itself.
#define GD_WG_HEAD "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
#define GD_WG_INSTR(SP, N, KT) "wgmma.mma_async" SP ".sync.aligned.m64n" #N KT
#define GD_WG_AREGS(R) "{%" GD_WG_I0_##R ", %" GD_WG_I1_##R ", %" GD_WG_I2_##R ", %" GD_WG_I3_##R "}"
#define GD_WG_SS_ASM(N, R, KT, TAIL) \
  GD_WG_HEAD GD_WG_INSTR("", N, KT) " {" GD_WG_D##R "}, %" GD_WG_I0_##R ", %" GD_WG_I1_##R ", p" TAIL ";\n}\n"
#define GD_WG_RS_ASM(N, R, KT, TAIL) \
  GD_WG_HEAD GD_WG_INSTR("", N, KT) " {" GD_WG_D##R "}, " GD_WG_AREGS(R) ", %" GD_WG_I4_##R ", p" TAIL ";\n}\n"
// Sparse: metadata register, then the sparsity selector (0: the threads of each quad that the
// ISA names for selector 0 supply the metadata; our probes give every thread the same word).
#define GD_WG_SPSS_ASM(N, R, KT, TAIL)                                                                          \
  GD_WG_HEAD GD_WG_INSTR(".sp", N, KT) " {" GD_WG_D##R "}, %" GD_WG_I0_##R ", %" GD_WG_I1_##R ", %" GD_WG_I2_##R \
                                       ", 0, p" TAIL ";\n}\n"
#define GD_WG_SPRS_ASM(N, R, KT, TAIL)                                                                       \
  GD_WG_HEAD GD_WG_INSTR(".sp", N, KT) " {" GD_WG_D##R "}, " GD_WG_AREGS(R) ", %" GD_WG_I4_##R ", %" GD_WG_I5_##R \
                                       ", 0, p" TAIL ";\n}\n"

#define GD_WG_SS_CASE(N, R, KT, TAIL, C) \
  if constexpr (Nn == N) asm volatile(GD_WG_SS_ASM(N, R, KT, TAIL) : GD_WG_O##R(C, d) : "l"(a_desc), "l"(b_desc));
#define GD_WG_RS_CASE(N, R, KT, TAIL, C)                                                                        \
  if constexpr (Nn == N)                                                                                        \
    asm volatile(GD_WG_RS_ASM(N, R, KT, TAIL) : GD_WG_O##R(C, d) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), \
                 "l"(b_desc));
#define GD_WG_SPSS_CASE(N, R, KT, TAIL, C)                                                                 \
  if constexpr (Nn == N)                                                                                   \
    asm volatile(GD_WG_SPSS_ASM(N, R, KT, TAIL) : GD_WG_O##R(C, d) : "l"(a_desc), "l"(b_desc), "r"(meta));
#define GD_WG_SPRS_CASE(N, R, KT, TAIL, C)                                                                        \
  if constexpr (Nn == N)                                                                                          \
    asm volatile(GD_WG_SPRS_ASM(N, R, KT, TAIL) : GD_WG_O##R(C, d) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), \
                 "l"(b_desc), "r"(meta));

// The N instantiated (a representative set, each valid for every type) with the accumulator
// registers per thread: N/2 for f32 and s32 accumulators, N/4 for packed f16.
#define GD_WG_N_HALF(CASE, ...)                                                                   \
  CASE(8, 4, __VA_ARGS__) CASE(16, 8, __VA_ARGS__) CASE(32, 16, __VA_ARGS__) CASE(64, 32, __VA_ARGS__) \
  CASE(128, 64, __VA_ARGS__) CASE(192, 96, __VA_ARGS__) CASE(256, 128, __VA_ARGS__)
#define GD_WG_N_QUARTER(CASE, ...)                                                                \
  CASE(8, 2, __VA_ARGS__) CASE(16, 4, __VA_ARGS__) CASE(32, 8, __VA_ARGS__) CASE(64, 16, __VA_ARGS__) \
  CASE(128, 32, __VA_ARGS__) CASE(192, 48, __VA_ARGS__) CASE(256, 64, __VA_ARGS__)
#define GD_WG_PER8_HALF 4
#define GD_WG_PER8_QUARTER 2
inline constexpr int kNs[] = {8, 16, 32, 64, 128, 192, 256};
__host__ __device__ constexpr bool has_n(int n) {
  for (int x : kNs)
    if (x == n) return true;
  return false;
}

// One operation: Name::mma<N, FromRegisters>(d, a, a_desc, b_desc, meta) issues
// wgmma.mma_async.m64nNk<K> with D in d[0 .. regs<N>), A from a[0..3] (RS) or a_desc (SS).
// Dense forms ignore `meta`. PER_N: HALF or QUARTER (accumulator registers per column pair).
#define GD_WGMMA_OP(Name, RegT, C, PER_N, KT, K, IS_SPARSE, SS_CASE, RS_CASE, SS_TAIL, RS_TAIL)                   \
  struct Name {                                                                                                  \
    using Reg = RegT;                                                                                            \
    static constexpr int k = K; /* logical K per instruction (dense-equivalent for sparse) */                    \
    static constexpr bool sparse = IS_SPARSE;                                                                    \
    static constexpr int regs_per_8_cols = GD_WG_PER8_##PER_N;                                                   \
    template <int Nn>                                                                                            \
    static constexpr int regs = Nn / 8 * regs_per_8_cols;                                                        \
    template <int Nn, bool FromRegisters>                                                                        \
    __device__ __forceinline__ static void mma(Reg* d, const std::uint32_t* a, std::uint64_t a_desc,             \
                                               std::uint64_t b_desc, std::uint32_t meta) {                       \
      static_assert(has_n(Nn), "N not instantiated in ptx_wgmma.cuh (kNs)");                                     \
      (void)a; (void)a_desc; (void)meta;                                                                         \
      if constexpr (FromRegisters) {                                                                             \
        GD_WGMMA_ONLY(GD_WG_N_##PER_N(RS_CASE, KT, RS_TAIL, C))                                                  \
      } else {                                                                                                   \
        GD_WGMMA_ONLY(GD_WG_N_##PER_N(SS_CASE, KT, SS_TAIL, C))                                                  \
      }                                                                                                          \
    }                                                                                                            \
  };
#define GD_WGMMA_DENSE(Name, RegT, C, PER_N, KT, K, SS_TAIL, RS_TAIL) \
  GD_WGMMA_OP(Name, RegT, C, PER_N, KT, K, false, GD_WG_SS_CASE, GD_WG_RS_CASE, SS_TAIL, RS_TAIL)
#define GD_WGMMA_SPARSE(Name, RegT, C, PER_N, KT, K, SS_TAIL, RS_TAIL) \
  GD_WGMMA_OP(Name, RegT, C, PER_N, KT, K, true, GD_WG_SPSS_CASE, GD_WG_SPRS_CASE, SS_TAIL, RS_TAIL)

// Trailing immediates: 16-bit types take scale-a, scale-b, transpose-a, transpose-b (RS: no
// transpose-a), all 1, 1, 0(, 0): K-major, unnegated. tf32 and FP8 take only the scales
// (K-major is their only layout); integer and b1 take none.
#define GD_WG_TAIL16_SS ", 1, 1, 0, 0"
#define GD_WG_TAIL16_RS ", 1, 1, 0"
GD_WGMMA_DENSE(F16F32, float, "+f", HALF, "k16.f32.f16.f16", 16, GD_WG_TAIL16_SS, GD_WG_TAIL16_RS)
GD_WGMMA_DENSE(F16F16, std::uint32_t, "+r", QUARTER, "k16.f16.f16.f16", 16, GD_WG_TAIL16_SS, GD_WG_TAIL16_RS)
GD_WGMMA_DENSE(Bf16F32, float, "+f", HALF, "k16.f32.bf16.bf16", 16, GD_WG_TAIL16_SS, GD_WG_TAIL16_RS)
GD_WGMMA_DENSE(Tf32F32, float, "+f", HALF, "k8.f32.tf32.tf32", 8, ", 1, 1", ", 1, 1")
GD_WGMMA_DENSE(E4m3F32, float, "+f", HALF, "k32.f32.e4m3.e4m3", 32, ", 1, 1", ", 1, 1")
GD_WGMMA_DENSE(E5m2F32, float, "+f", HALF, "k32.f32.e5m2.e5m2", 32, ", 1, 1", ", 1, 1")
// FP8 with packed f16 accumulators: the same tensor rate per clock, less accumulator datapath.
GD_WGMMA_DENSE(E4m3F16, std::uint32_t, "+r", QUARTER, "k32.f16.e4m3.e4m3", 32, ", 1, 1", ", 1, 1")
GD_WGMMA_DENSE(E5m2F16, std::uint32_t, "+r", QUARTER, "k32.f16.e5m2.e5m2", 32, ", 1, 1", ", 1, 1")
GD_WGMMA_DENSE(S8S32, std::uint32_t, "+r", HALF, "k32.s32.s8.s8", 32, "", "")
GD_WGMMA_DENSE(U8S32, std::uint32_t, "+r", HALF, "k32.s32.u8.u8", 32, "", "")
GD_WGMMA_DENSE(B1S32, std::uint32_t, "+r", HALF, "k256.s32.b1.b1.and.popc", 256, "", "")
GD_WGMMA_SPARSE(F16F32Sparse, float, "+f", HALF, "k32.f32.f16.f16", 32, GD_WG_TAIL16_SS, GD_WG_TAIL16_RS)
GD_WGMMA_SPARSE(E4m3F32Sparse, float, "+f", HALF, "k64.f32.e4m3.e4m3", 64, ", 1, 1", ", 1, 1")

}  // namespace gd::wgmma
