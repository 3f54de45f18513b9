// The mma.sync catalog behind tensor.mma_sync.* and tensor.mma_sp.*: one row per shape and type
// (its PTX, operand types, register shape, the chips that have it, the SASS it compiles to), and
// the per-lane fragment layouts that place a row's A, B and C/D elements in registers. The next
// variant costs a row here; the kernels and the driver in mma_sync.cu are shared.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/mma_reference.hpp"
#include "core/ptx_mma.cuh"

namespace gd::mma_catalog {

struct RowInfo {
  const char* name;  // the probe id's suffix
  const char* ptx;   // the instruction, without operands
  MmaType a, b, c;   // c is also D's type
  int m, n, k;       // k: the logical (dense) K, also for sparse rows
  int na, nb, nc;    // registers per lane (32-bit words; 64-bit for f64)
  int word_bits;
  bool sparse, ordered_metadata;
  BinaryOp op;
  MmaType scale_type;  // block-scaled rows: ue8m0 / ue4m3
  int scale_block;     // K elements per scale factor; 0: not block-scaled
  int container_bits;  // FP4/FP6 of kind::f8f6f4 sit in 8-bit containers; 0: packed
  int bit_offset;      // where inside the container
  int min_cc, max_cc;
  bool block_scaled_feature;  // needs Feature::BlockScaledMma (sm_120a code)
  const char* opcode;         // what the timed loop holds, one or more per mma ("HMMA.16816.F32")
  const char* routine_opcode; // emulated rows: the other opcode the emulation needs (the called
                              // routine's, the conversion's); "" when native
  const char* note;           // how ptxas lowers it where that is not one tensor instruction
};

// One row. Form: the register shape of ptx_mma.cuh (A4B2C4, SP_A4B4C4, D64_A8B4C4, ...);
// Guard: the arch guard the instruction needs (GD_IF_SM80, GD_IF_SM90, GD_IF_SM120A, ...).
#define GD_MMA_ROW(Tag, Word, Guard, Form, Instr, ...)                                                      \
  struct Tag {                                                                                             \
    using W = Word;                                                                                        \
    static constexpr const char* tag = #Tag;                                                               \
    static constexpr RowInfo info{__VA_ARGS__};                                                            \
    __device__ __forceinline__ static void mma(W* d, const W* a, const W* b, const W* c, uint32_t e,       \
                                               uint32_t sa, uint32_t sb) {                                 \
      (void)d; (void)a; (void)b; (void)c; (void)e; (void)sa; (void)sb;                                     \
      Guard(GD_MMA_##Form(Instr, d, a, b, c, e, sa, sb));                                                 \
    }                                                                                                      \
  }

using T = MmaType;
constexpr BinaryOp kNoOp = BinaryOp::none;
// Field order: name, ptx, a, b, c, m, n, k, na, nb, nc, word_bits, sparse, ordered, op, scale_type,
// scale_block, container_bits, bit_offset, min_cc, max_cc, block_scaled_feature, opcode, routine, note.

// --- f16 / bf16 ----------------------------------------------------------------------------------
#define I_ "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16"
GD_MMA_ROW(F16F16K8, uint32_t, GD_IF_SM80, A2B1C2, I_, "f16_f16.m16n8k8", I_, T::f16, T::f16, T::f16, 16, 8, 8, 2, 1, 2, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "HMMA.1688.F16", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"
GD_MMA_ROW(F16F32K8, uint32_t, GD_IF_SM80, A2B1C4, I_, "f16_f32.m16n8k8", I_, T::f16, T::f16, T::f32, 16, 8, 8, 2, 1, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "HMMA.1688.F32", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"
GD_MMA_ROW(F16F16K16, uint32_t, GD_IF_SM80, A4B2C2, I_, "f16_f16.m16n8k16", I_, T::f16, T::f16, T::f16, 16, 8, 16, 4, 2, 2, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "HMMA.16816.F16", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
GD_MMA_ROW(F16F32K16, uint32_t, GD_IF_SM80, A4B2C4, I_, "f16_f32.m16n8k16", I_, T::f16, T::f16, T::f32, 16, 8, 16, 4, 2, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "HMMA.16816.F32", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32"
GD_MMA_ROW(Bf16K8, uint32_t, GD_IF_SM80, A2B1C4, I_, "bf16_f32.m16n8k8", I_, T::bf16, T::bf16, T::f32, 16, 8, 8, 2, 1, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "HMMA.1688.F32.BF16", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
GD_MMA_ROW(Bf16K16, uint32_t, GD_IF_SM80, A4B2C4, I_, "bf16_f32.m16n8k16", I_, T::bf16, T::bf16, T::f32, 16, 8, 16, 4, 2, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "HMMA.16816.F32.BF16", "", "");
#undef I_
// --- tf32 ------------------------------------------------------------------------------------------
#define I_ "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32"
GD_MMA_ROW(Tf32K4, uint32_t, GD_IF_SM80, A2B1C4, I_, "tf32_f32.m16n8k4", I_, T::tf32, T::tf32, T::f32, 16, 8, 4, 2, 1, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "HMMA.1684.F32.TF32", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
GD_MMA_ROW(Tf32K8, uint32_t, GD_IF_SM80, A4B2C4, I_, "tf32_f32.m16n8k8", I_, T::tf32, T::tf32, T::f32, 16, 8, 8, 4, 2, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "HMMA.1688.F32.TF32", "", "");
#undef I_
// --- f64 (DMMA); the m16n8k* shapes are sm_90+ ------------------------------------------------------
#define I_ "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"
GD_MMA_ROW(F64M8K4, uint64_t, GD_IF_SM80, D64_A1B1C2, I_, "f64.m8n8k4", I_, T::f64, T::f64, T::f64, 8, 8, 4, 1, 1, 2, 64,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "DMMA", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64"
GD_MMA_ROW(F64K4, uint64_t, GD_IF_SM90, D64_A2B1C4, I_, "f64.m16n8k4", I_, T::f64, T::f64, T::f64, 16, 8, 4, 2, 1, 4, 64,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 90, 0, false, "DMMA", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64"
GD_MMA_ROW(F64K8, uint64_t, GD_IF_SM90, D64_A4B2C4, I_, "f64.m16n8k8", I_, T::f64, T::f64, T::f64, 16, 8, 8, 4, 2, 4, 64,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 90, 0, false, "DMMA", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64"
GD_MMA_ROW(F64K16, uint64_t, GD_IF_SM90, D64_A8B4C4, I_, "f64.m16n8k16", I_, T::f64, T::f64, T::f64, 16, 8, 16, 8, 4, 4, 64,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 90, 0, false, "DMMA", "", "");
#undef I_
// --- 8-bit integers ----------------------------------------------------------------------------------
#define I_ "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32"
GD_MMA_ROW(S8K16, uint32_t, GD_IF_SM80, A2B1C4, I_, "s8.m16n8k16", I_, T::s8, T::s8, T::s32, 16, 8, 16, 2, 1, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "IMMA.16816.S8.S8", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
GD_MMA_ROW(S8K32, uint32_t, GD_IF_SM80, A4B2C4, I_, "s8.m16n8k32", I_, T::s8, T::s8, T::s32, 16, 8, 32, 4, 2, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "IMMA.16832.S8.S8", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32"
GD_MMA_ROW(U8K16, uint32_t, GD_IF_SM80, A2B1C4, I_, "u8.m16n8k16", I_, T::u8, T::u8, T::s32, 16, 8, 16, 2, 1, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "IMMA.16816.U8.U8", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32"
GD_MMA_ROW(U8K32, uint32_t, GD_IF_SM80, A4B2C4, I_, "u8.m16n8k32", I_, T::u8, T::u8, T::s32, 16, 8, 32, 4, 2, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "IMMA.16832.U8.U8", "", "");
#undef I_
// --- 4-bit integers and b1: native on sm_80; sm_90 and later emulate them in a called routine ------
#define I_ "mma.sync.aligned.m16n8k32.row.col.s32.s4.s4.s32"
GD_MMA_ROW(S4K32, uint32_t, GD_IF_SM90, A2B1C4, I_, "s4.m16n8k32", I_, T::s4, T::s4, T::s32, 16, 8, 32, 2, 1, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 90, 0, false, "CALL", "IMMA",
           "no INT4 tensor path: ptxas calls a routine that unpacks to 8-bit and runs IMMA");
#undef I_
#define I_ "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32"
GD_MMA_ROW(S4K64, uint32_t, GD_IF_SM90, A4B2C4, I_, "s4.m16n8k64", I_, T::s4, T::s4, T::s32, 16, 8, 64, 4, 2, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 90, 0, false, "CALL", "IMMA",
           "no INT4 tensor path: ptxas calls a routine that unpacks to 8-bit and runs IMMA");
#undef I_
#define I_ "mma.sync.aligned.m16n8k32.row.col.s32.u4.u4.s32"
GD_MMA_ROW(U4K32, uint32_t, GD_IF_SM90, A2B1C4, I_, "u4.m16n8k32", I_, T::u4, T::u4, T::s32, 16, 8, 32, 2, 1, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 90, 0, false, "CALL", "IMMA",
           "no INT4 tensor path: ptxas calls a routine that unpacks to 8-bit and runs IMMA");
#undef I_
#define I_ "mma.sync.aligned.m16n8k64.row.col.s32.u4.u4.s32"
GD_MMA_ROW(U4K64, uint32_t, GD_IF_SM90, A4B2C4, I_, "u4.m16n8k64", I_, T::u4, T::u4, T::s32, 16, 8, 64, 4, 2, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 90, 0, false, "CALL", "IMMA",
           "no INT4 tensor path: ptxas calls a routine that unpacks to 8-bit and runs IMMA");
#undef I_
#define I_ "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc"
GD_MMA_ROW(B1AndK128, uint32_t, GD_IF_SM90, A2B1C4, I_, "b1_and.m16n8k128", I_, T::b1, T::b1, T::s32, 16, 8, 128, 2, 1, 4, 32,
           false, false, BinaryOp::and_popc, T::ue8m0, 0, 0, 0, 90, 99, false, "BMMA", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc"
GD_MMA_ROW(B1AndK256, uint32_t, GD_IF_SM90, A4B2C4, I_, "b1_and.m16n8k256", I_, T::b1, T::b1, T::s32, 16, 8, 256, 4, 2, 4, 32,
           false, false, BinaryOp::and_popc, T::ue8m0, 0, 0, 0, 90, 99, false, "BMMA", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc"
GD_MMA_ROW(B1XorK128, uint32_t, GD_IF_SM90, A2B1C4, I_, "b1_xor.m16n8k128", I_, T::b1, T::b1, T::s32, 16, 8, 128, 2, 1, 4, 32,
           false, false, BinaryOp::xor_popc, T::ue8m0, 0, 0, 0, 90, 99, false, "CALL", "BMMA",
           "no XOR tensor path on sm_90: ptxas calls a routine built on BMMA.AND.POPC");
#undef I_
#define I_ "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc"
GD_MMA_ROW(B1XorK256, uint32_t, GD_IF_SM90, A4B2C4, I_, "b1_xor.m16n8k256", I_, T::b1, T::b1, T::s32, 16, 8, 256, 4, 2, 4, 32,
           false, false, BinaryOp::xor_popc, T::ue8m0, 0, 0, 0, 90, 99, false, "CALL", "BMMA",
           "no XOR tensor path on sm_90: ptxas calls a routine built on BMMA.AND.POPC");
#undef I_
// --- FP8 mma.sync: native on sm_89 and sm_120; sm_90 converts to f16 and runs HMMA ----------------
#define I_ "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"
GD_MMA_ROW(E4m3K32, uint32_t, GD_IF_SM89, A4B2C4, I_, "e4m3_f32.m16n8k32", I_, T::e4m3, T::e4m3, T::f32, 16, 8, 32, 4, 2, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 90, 99, false, "HMMA.16816.F32", "F2FP",
           "no FP8 mma.sync path on sm_90: F2FP unpacks to f16, two HMMA.16816 form A B, FADD adds C");
#undef I_
#define I_ "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32"
GD_MMA_ROW(E5m2K32, uint32_t, GD_IF_SM89, A4B2C4, I_, "e5m2_f32.m16n8k32", I_, T::e5m2, T::e5m2, T::f32, 16, 8, 32, 4, 2, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 90, 99, false, "HMMA.16816.F32", "F2FP",
           "no FP8 mma.sync path on sm_90: F2FP unpacks to f16, two HMMA.16816 form A B, FADD adds C");
#undef I_
// --- sparse 2:4 (mma.sp), with and without ::ordered_metadata --------------------------------------
#define I_ "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
GD_MMA_ROW(SpF16K16, uint32_t, GD_IF_SM80, SP_A2B2C4, I_, "f16_f32.m16n8k16.plain", I_, T::f16, T::f16, T::f32, 16, 8, 16, 2, 2, 4, 32,
           true, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "HMMA.SP.16816.F32", "", "");
#undef I_
#define I_ "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
GD_MMA_ROW(SpoF16K16, uint32_t, GD_IF_SM80, SP_A2B2C4, I_, "f16_f32.m16n8k16.ordered", I_, T::f16, T::f16, T::f32, 16, 8, 16, 2, 2, 4, 32,
           true, true, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "HMMA.SP.16816.F32", "", "");
#undef I_
#define I_ "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32"
GD_MMA_ROW(SpF16K32, uint32_t, GD_IF_SM80, SP_A4B4C4, I_, "f16_f32.m16n8k32.plain", I_, T::f16, T::f16, T::f32, 16, 8, 32, 4, 4, 4, 32,
           true, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "HMMA.SP.16832.F32", "", "");
#undef I_
#define I_ "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32"
GD_MMA_ROW(SpoF16K32, uint32_t, GD_IF_SM80, SP_A4B4C4, I_, "f16_f32.m16n8k32.ordered", I_, T::f16, T::f16, T::f32, 16, 8, 32, 4, 4, 4, 32,
           true, true, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "HMMA.SP.16832.F32", "", "");
#undef I_
#define I_ "mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32"
GD_MMA_ROW(SpS8K64, uint32_t, GD_IF_SM80, SP_A4B4C4, I_, "s8.m16n8k64.plain", I_, T::s8, T::s8, T::s32, 16, 8, 64, 4, 4, 4, 32,
           true, false, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "IMMA.SP", "", "");
#undef I_
#define I_ "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32"
GD_MMA_ROW(SpoS8K64, uint32_t, GD_IF_SM80, SP_A4B4C4, I_, "s8.m16n8k64.ordered", I_, T::s8, T::s8, T::s32, 16, 8, 64, 4, 4, 4, 32,
           true, true, kNoOp, T::ue8m0, 0, 0, 0, 80, 0, false, "IMMA.SP", "", "");
#undef I_
// --- sm_120a: FP8/FP6/FP4 (kind::f8f6f4) and MX / NVFP4 block-scaled mma.sync ----------------------
// FP6/FP4 of kind::f8f6f4 sit in 8-bit containers: FP6 in bits 0-5, FP4 in bits 2-5 (our reading
// of the PTX ISA's packing figures; not yet checked on an sm_120 chip, where a wrong placement
// fails the tile check).
#define I_ "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32"
GD_MMA_ROW(KindE4m3, uint32_t, GD_IF_SM120A, A4B2C4, I_, "f8f6f4_e4m3.m16n8k32", I_, T::e4m3, T::e4m3, T::f32, 16, 8, 32, 4, 2, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 0, 0, 120, 0, true, "QMMA.16832.F32.E4M3.E4M3", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32"
GD_MMA_ROW(KindE3m2, uint32_t, GD_IF_SM120A, A4B2C4, I_, "f8f6f4_e3m2.m16n8k32", I_, T::e3m2, T::e3m2, T::f32, 16, 8, 32, 4, 2, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 8, 0, 120, 0, true, "QMMA.16832.F32.E3M2.E3M2", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32"
GD_MMA_ROW(KindE2m1, uint32_t, GD_IF_SM120A, A4B2C4, I_, "f8f6f4_e2m1.m16n8k32", I_, T::e2m1, T::e2m1, T::f32, 16, 8, 32, 4, 2, 4, 32,
           false, false, kNoOp, T::ue8m0, 0, 8, 2, 120, 0, true, "QMMA.16832.F32.E2M1.E2M1", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0"
GD_MMA_ROW(MxE4m3, uint32_t, GD_IF_SM120A, BS_A4B2C4, I_, "mxf8f6f4_e4m3.m16n8k32", I_, T::e4m3, T::e4m3, T::f32, 16, 8, 32, 4, 2, 4, 32,
           false, false, kNoOp, T::ue8m0, 32, 0, 0, 120, 0, true, "QMMA.SF.16832.F32.E4M3.E4M3", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0"
GD_MMA_ROW(MxE2m1, uint32_t, GD_IF_SM120A, BS_A4B2C4, I_, "mxf4_e2m1.m16n8k64", I_, T::e2m1, T::e2m1, T::f32, 16, 8, 64, 4, 2, 4, 32,
           false, false, kNoOp, T::ue8m0, 32, 0, 0, 120, 0, true, "OMMA.SF.16864.F32.E2M1.E2M1", "", "");
#undef I_
#define I_ "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3"
GD_MMA_ROW(NvE2m1, uint32_t, GD_IF_SM120A, BS_A4B2C4, I_, "mxf4nvf4_e2m1.m16n8k64", I_, T::e2m1, T::e2m1, T::f32, 16, 8, 64, 4, 2, 4, 32,
           false, false, kNoOp, T::ue4m3, 16, 0, 0, 120, 0, true, "OMMA.SF.16864.F32.E2M1.E2M1.UE4M3.4X", "", "");
#undef I_

// Calls f(static_cast<Row*>(nullptr)) for every row.
template <class F>
void for_each_row(F&& f) {
  f(static_cast<F16F16K8*>(nullptr)); f(static_cast<F16F32K8*>(nullptr)); f(static_cast<F16F16K16*>(nullptr));
  f(static_cast<F16F32K16*>(nullptr)); f(static_cast<Bf16K8*>(nullptr)); f(static_cast<Bf16K16*>(nullptr));
  f(static_cast<Tf32K4*>(nullptr)); f(static_cast<Tf32K8*>(nullptr));
  f(static_cast<F64M8K4*>(nullptr)); f(static_cast<F64K4*>(nullptr)); f(static_cast<F64K8*>(nullptr)); f(static_cast<F64K16*>(nullptr));
  f(static_cast<S8K16*>(nullptr)); f(static_cast<S8K32*>(nullptr)); f(static_cast<U8K16*>(nullptr)); f(static_cast<U8K32*>(nullptr));
  f(static_cast<S4K32*>(nullptr)); f(static_cast<S4K64*>(nullptr)); f(static_cast<U4K32*>(nullptr)); f(static_cast<U4K64*>(nullptr));
  f(static_cast<B1AndK128*>(nullptr)); f(static_cast<B1AndK256*>(nullptr));
  f(static_cast<B1XorK128*>(nullptr)); f(static_cast<B1XorK256*>(nullptr));
  f(static_cast<E4m3K32*>(nullptr)); f(static_cast<E5m2K32*>(nullptr));
  f(static_cast<SpF16K16*>(nullptr)); f(static_cast<SpoF16K16*>(nullptr)); f(static_cast<SpF16K32*>(nullptr));
  f(static_cast<SpoF16K32*>(nullptr)); f(static_cast<SpS8K64*>(nullptr)); f(static_cast<SpoS8K64*>(nullptr));
  f(static_cast<KindE4m3*>(nullptr)); f(static_cast<KindE3m2*>(nullptr)); f(static_cast<KindE2m1*>(nullptr));
  f(static_cast<MxE4m3*>(nullptr)); f(static_cast<MxE2m1*>(nullptr)); f(static_cast<NvE2m1*>(nullptr));
}

// --- fragment layouts (PTX ISA "Matrix Fragments for mma.m16n8k*") ---------------------------------
// Lane l = 4 g + t (g = groupID, t = threadID_in_group). Each register holds `per` consecutive
// K elements of A's row / B's column; registers alternate rows g and g + 8 (A), then step K.
enum class Operand { A, B, C };

struct Coord {
  int row = 0, col = 0;
};

inline int element_bits(const RowInfo& r, Operand op) {
  const MmaType t = op == Operand::A ? r.a : op == Operand::B ? r.b : r.c;
  if (op != Operand::C && r.container_bits > 0) return r.container_bits;
  return mma_type_storage_bits(t);
}
inline int elements_per_word(const RowInfo& r, Operand op) { return r.word_bits / element_bits(r, op); }
inline int words(const RowInfo& r, Operand op) { return op == Operand::A ? r.na : op == Operand::B ? r.nb : r.nc; }
// A's stored columns: K, or K/2 for the compressed A of a sparse row.
inline int a_cols(const RowInfo& r) { return r.sparse ? r.k / 2 : r.k; }

// Where element i of register w of lane `lane` sits in the operand's matrix (A: m x a_cols,
// B: k x n, C/D: m x n).
inline Coord fragment_coord(const RowInfo& r, Operand op, int lane, int w, int i) {
  const int g = lane / 4, t = lane % 4, per = elements_per_word(r, op);
  switch (op) {
    case Operand::A: return {g + 8 * (w & 1), t * per + (w >> 1) * 4 * per + i};
    case Operand::B: return {t * per + w * 4 * per + i, g};
    case Operand::C: {
      const int e = w * per + i;
      return {g + 8 * (e >> 1), t * 2 + (e & 1)};
    }
  }
  return {};
}

// The matrix description of an operand in row-major host storage.
inline MatrixDesc operand_desc(const RowInfo& r, Operand op) {
  MatrixDesc d = op == Operand::A   ? row_major(r.a, r.m, a_cols(r))
                 : op == Operand::B ? row_major(r.b, r.k, r.n)
                                    : row_major(r.c, r.m, r.n);
  if (op != Operand::C && r.container_bits > 0) {
    d.container_bits = r.container_bits;
    d.bit_offset = r.bit_offset;
  }
  return d;
}

// Packs a host matrix into per-lane registers: out[lane * words + w] (64-bit words hold 32-bit
// registers in their low half).
inline std::vector<uint64_t> pack_fragments(const RowInfo& r, Operand op, const HostMatrix& m) {
  const int nw = words(r, op), per = elements_per_word(r, op), bits = element_bits(r, op);
  std::vector<uint64_t> out(32 * std::size_t(nw), 0);
  for (int lane = 0; lane < 32; ++lane)
    for (int w = 0; w < nw; ++w)
      for (int i = 0; i < per; ++i) {
        const Coord c = fragment_coord(r, op, lane, w, i);
        // the whole container, padding included
        MatrixDesc whole = m.desc;
        const uint64_t v = get_bits(whole, m.bytes.data(), c.row, c.col) << whole.bit_offset;
        out[std::size_t(lane) * nw + w] |= v << (i * bits);
      }
  return out;
}

// The inverse for D: per-lane registers back into a row-major host matrix of the row's C type.
inline HostMatrix unpack_fragments(const RowInfo& r, const std::vector<uint64_t>& regs) {
  HostMatrix d = make_matrix(operand_desc(r, Operand::C));
  const int nw = words(r, Operand::C), per = elements_per_word(r, Operand::C), bits = element_bits(r, Operand::C);
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  for (int lane = 0; lane < 32; ++lane)
    for (int w = 0; w < nw; ++w)
      for (int i = 0; i < per; ++i) {
        const Coord c = fragment_coord(r, Operand::C, lane, w, i);
        d.set(c.row, c.col, (regs[std::size_t(lane) * nw + w] >> (i * bits)) & mask);
      }
  return d;
}

// Sparse rows: the compressed A (m x k/2) placed into the dense m x k matrix the reference
// multiplies, every group of 4 K elements keeping positions i0 < i1; and the metadata word that
// says so (2-bit indices i0, i1 per group, the same for every group and lane).
inline uint32_t sparse_metadata(int i0, int i1) {
  const uint32_t nibble = uint32_t(i0) | (uint32_t(i1) << 2);
  return nibble * 0x11111111u;
}
inline HostMatrix expand_sparse(const RowInfo& r, const HostMatrix& compressed, int i0, int i1) {
  HostMatrix dense = make_matrix(row_major(r.a, r.m, r.k));
  for (int row = 0; row < r.m; ++row)
    for (int c = 0; c < r.k / 2; ++c) dense.set(row, 4 * (c / 2) + (c % 2 ? i1 : i0), compressed.bits(row, c));
  return dense;
}

// The sign bits of a B register (floats): B with them flipped is -B, which keeps an accumulator
// chain A B + A (-B) + ... bounded. 0 for integer rows (their accumulators wrap harmlessly).
inline uint64_t sign_mask(const RowInfo& r) {
  if (mma_type_is_integer(r.b)) return 0;
  const int bits = element_bits(r, Operand::B), per = elements_per_word(r, Operand::B);
  const int sign = r.container_bits > 0 ? r.bit_offset + mma_type_bits(r.b) - 1 : mma_type_storage_bits(r.b) - 1;
  uint64_t m = 0;
  for (int i = 0; i < per; ++i) m |= uint64_t{1} << (i * bits + sign);
  return m;
}

// Rows whose lowering computes A B apart from the accumulator (FP8 on sm_90: HMMA into zero, then
// FADD): with loop-invariant A and B, ptxas would compute the product once per loop trip. Their
// kernels vary A at every step by a run-time zero, as a real kernel's fresh fragments would.
template <class Row>
constexpr bool varies_a() {
  return (Row::info.a == MmaType::e4m3 || Row::info.a == MmaType::e5m2) && Row::info.max_cc == 99;
}

// Dense floating-point operations (or integer ops) one mma does: 2 M N K (sparse: the logical K).
inline double flops_per_mma(const RowInfo& r) { return 2.0 * r.m * r.n * r.k; }

}  // namespace gd::mma_catalog
