// Instruction rows of the catalog's shape (alu_catalog.cuh) kept outside it: adding them there
// would recompile every family that instantiates the whole catalog (throughput, pipes, sass).
// latency/alu_deltas.cu times their chains, compute/pipe_depth.cu their streams.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "alu_catalog.cuh"

namespace gd::alu_extra_rows {

using alu_catalog::Rng;

// fma(-|x|, a, b): the negate and abs ride on FFMA's source operand (FFMA R, -|R|, R, R), so the
// difference from the plain FFMA chain is what the modifier costs. |x| <= 1 keeps |x'| <= 1.
struct FfmaNegAbs : alu_catalog::AnyCc {
  using T = float;
  static constexpr const char* name = "ffma_negabs";
  static constexpr const char* tag = "FfmaNegAbs";
  static constexpr const char* description = "FFMA with -|x| as a source modifier (fma(-|x|, a, b))";
  static constexpr const char* source = "ptx::ffma(-fabsf(x), a, b)";
  static constexpr alu_catalog::Tolerance tolerance = alu_catalog::kExact;
  __host__ __device__ static T step(T x, T a, T b) { return ptx::ffma(-std::fabs(x), a, b); }
  static std::array<T, 3> inputs(Rng& r) { return alu_catalog::unit<float>(r); }
  static std::vector<alu_catalog::OpcodePerStep> sass() { return {{"FFMA"}}; }
};

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
struct CvtPackI2ip : alu_catalog::FromSm90 {
  using T = uint32_t;
  static constexpr const char* name = "cvt_pack_i2ip";
  static constexpr const char* tag = "CvtPackI2ip";
  static constexpr const char* description = "I2IP.U8.S32.SAT (cvt.pack.sat.u8.s32.b32 of x and a over x)";
  static constexpr const char* source = "pack_sat_u8(x, a)";
  static constexpr alu_catalog::Tolerance tolerance = alu_catalog::kExact;
  __host__ __device__ static T step(T x, T a, T b) {
    (void)b;
    return pack_sat_u8(x, a);
  }
  // a in -512..511: saturates low, passes, or saturates high.
  static std::array<T, 3> inputs(Rng& r) { return {uint32_t(r()), uint32_t(int32_t(r() % 1024) - 512), 0}; }
  static std::vector<alu_catalog::OpcodePerStep> sass() { return {{"I2IP.U8.S32.SAT"}}; }
};

}  // namespace gd::alu_extra_rows
