// Instruction rows of the catalog's shape (alu_catalog.cuh) kept outside it: adding them there
// would recompile every family that instantiates the whole catalog (throughput, pipes, sass).
// latency/alu_deltas.cu times their chains, compute/pipe_depth.cu their streams.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include <cstring>

#include <cuda_fp8.h>

#include "alu_catalog.cuh"

namespace gd::alu_extra_rows {

using alu_catalog::Rng;

// fma(-|x|, a, b): the negate and abs ride on FFMA's source operand (FFMA R, -|R|, R, R), so the
// difference from the plain FFMA chain is what the modifier costs. |x| <= 1 keeps |x'| <= 1.
GD_ALU_VARIANT(FfmaNegAbs, "ffma_negabs", float, alu_catalog::unit<float>, alu_catalog::kExact, alu_catalog::AnyCc,
               "FFMA with -|x| as a source modifier (fma(-|x|, a, b))", ptx::ffma(-std::fabs(x), a, b), {"FFMA"});

// cvt.pack.sat.u8.s32.b32 d, x, a, x: x and a saturated to u8 into d's low 16 bits (x above a),
// x's low 16 bits above them (PTX ISA, cvt.pack). One I2IP per step on sm_90 and later. Its inline
// PTX stays beside the row, out of core/ptx_instr.cuh, for the same reason as the rows.
__host__ __device__ inline uint32_t pack_sat_u8(uint32_t x, uint32_t a) {
#ifdef __CUDA_ARCH__
  uint32_t d;
  asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(a), "r"(x));
  return d;
#else
  const auto sat = [](uint32_t v) { return uint32_t(std::clamp(int32_t(v), 0, 255)); };
  return (x << 16) | (sat(x) << 8) | sat(a);
#endif
}
// a in -512..511: saturates low, passes, or saturates high.
inline std::array<uint32_t, 3> pack_operands(Rng& r) { return {uint32_t(r()), uint32_t(int32_t(r() % 1024) - 512), 0}; }
GD_ALU_VARIANT(CvtPackI2ip, "cvt_pack_i2ip", uint32_t, pack_operands, alu_catalog::kExact, alu_catalog::FromSm90,
               "I2IP.U8.S32.SAT (cvt.pack.sat.u8.s32.b32 of x and a over x)", pack_sat_u8(x, a), {"I2IP.U8.S32.SAT"});

// expf as CUDA C compiles it without --use_fast_math (the softmax's exponential): a range
// reduction on the FMA pipe around one MUFU.EX2. x = e^-x contracts to 0.567 (slope -0.57), so
// the host's exp and the device's (2 ulp) stay within the tolerance however long the chain.
GD_ALU_VARIANT(Expf, "expf", float, alu_catalog::signed_unit, (alu_catalog::Tolerance{1e-6, 1e-7}), alu_catalog::AnyCc,
               "expf(-x) without fast math: FFMA.SAT, FFMA.RM, FADD, 2 FFMA, SHF, MUFU.EX2, FMUL", expf(-x),
               {"MUFU.EX2"}, {"FFMA", 4}, {"FFMA.SAT"}, {"FFMA.RM"}, {"FADD"}, {"FMUL"}, {"SHF.L.U32"});

// --- fp8 e4m3 conversions alone (sm_89 and later; the catalog's rows time their round trip) --
// Pack: cvt.rn.satfinite.e4m3x2.f32 of (a, x) into 16 bits, zero-extended (a LOP3 & 0xffff the
// PTX cannot avoid) and read back as the next step's f32: the chain is F2FP + LOP3, and
// latency.delta.fp8_e4m3_pack subtracts the catalog's LOP3 chain. After the first step the f32 is
// a denormal that rounds to 0: the values settle, the dependence does not.
__host__ __device__ inline uint32_t e4m3x2_pack(uint32_t x, uint32_t a_bits) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  uint32_t d;
  asm("{ .reg .b16 h; cvt.rn.satfinite.e4m3x2.f32 h, %1, %2; cvt.u32.u16 %0, h; }"
      : "=r"(d)
      : "f"(__uint_as_float(a_bits)), "f"(__uint_as_float(x)));
  return d;
#elif defined(__CUDA_ARCH__)
  (void)a_bits;
  __trap();  // no fp8 before sm_89: the rows are gated (FromSm90)
  return x;
#else
  float lo, hi;
  std::memcpy(&lo, &x, sizeof lo);
  std::memcpy(&hi, &a_bits, sizeof hi);
  return __nv_cvt_float2_to_fp8x2(float2{lo, hi}, __NV_SATFINITE, __NV_E4M3);
#endif
}
// Unpack: cvt.rn.f16x2.e4m3x2 of x's low 16 bits (one F2FP, which reads the low half itself).
__host__ __device__ inline uint32_t e4m3x2_unpack(uint32_t x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  uint32_t d;
  asm("{ .reg .b16 l, h; mov.b32 {l, h}, %1; cvt.rn.f16x2.e4m3x2 %0, l; }" : "=r"(d) : "r"(x));
  return d;
#elif defined(__CUDA_ARCH__)
  __trap();
  return x;
#else
  const __half2_raw r = __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t(x & 0xffffu), __NV_E4M3);
  return uint32_t(r.x) | (uint32_t(r.y) << 16);
#endif
}

// a (the high lane, as f32 bits) in +-448, e4m3's finite range.
inline std::array<uint32_t, 3> e4m3_pack_operands(Rng& r) {
  const float a = float(alu_catalog::uniform(r, -448, 448));
  uint32_t ab;
  std::memcpy(&ab, &a, sizeof ab);
  return {uint32_t(r()), ab, 0};
}
GD_ALU_VARIANT(Fp8E4m3Pack, "cvt_e4m3x2_pack_lop3", uint32_t, e4m3_pack_operands, alu_catalog::kExact, alu_catalog::FromSm90,
               "F2FP.SATFINITE.E4M3.F32.PACK_AB_MERGE_C + LOP3 (f32 pair to e4m3x2, zero-extended)", e4m3x2_pack(x, a),
               {"F2FP.SATFINITE.E4M3.F32.PACK_AB_MERGE_C"}, {"LOP3.LUT"});

// A start whose chain settles at 0 without passing a NaN pair (0x7f/0xff bytes): the host's NaN
// encoding is not what the comparison should rest on.
inline std::array<uint32_t, 3> e4m3_unpack_start(Rng& r) {
  for (;;) {
    const uint32_t x0 = uint32_t(r());
    uint32_t x = x0;
    bool nan = false;
    for (int i = 0; i < 16 && x != 0; ++i) {
      for (uint32_t byte : {x & 0x7fu, (x >> 8) & 0x7fu}) nan |= byte == 0x7fu;
      x = e4m3x2_unpack(x);
    }
    if (!nan && x == 0) return {x0, 0, 1};
  }
}
GD_ALU_VARIANT(Fp8E4m3Unpack, "cvt_e4m3x2_unpack", uint32_t, e4m3_unpack_start, alu_catalog::kExact, alu_catalog::FromSm90,
               "F2FP.F16.E4M3.UNPACK_B (e4m3x2 to f16x2; the low f16's bits are the next pair)", e4m3x2_unpack(x),
               {"F2FP.F16.E4M3.UNPACK_B"});

}  // namespace gd::alu_extra_rows
