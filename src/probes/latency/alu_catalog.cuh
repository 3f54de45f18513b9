// The instruction catalog behind latency.alu.*, compute.alu.* and pipes.*: one row per
// instruction variant (its dependent step, run on the device and as the host reference, its
// operands, the SASS its chain must compile to, and how exactly the host can reproduce it).
// latency/alu.cu times each row's chain, compute/alu_throughput.cu its independent streams; the
// tenth variant costs a row here, not a file.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/probe.hpp"
#include "core/ptx.cuh"
#include "core/ptx_instr.cuh"

namespace gd::alu_catalog {

using Rng = std::mt19937_64;

// How close the device result must be to the host reference. Both zero: bit-exact. Approximate
// (MUFU) steps pass when |device - host| <= abs + rel * |host|.
struct Tolerance {
  double rel = 0;
  double abs = 0;
  constexpr bool exact() const { return rel == 0 && abs == 0; }
};
inline constexpr Tolerance kExact{};

// An opcode the chain must contain, as a count per dependent step (scaled by the unroll).
// 0.5 for opcodes ptxas alternates with another on every other step. A kernel may hold up to
// max_per_step per step (-1: exactly per_step) plus kLoopSlack: so a chain of twice the steps,
// or a step compiled to more than the row says, is caught, not only a missing one.
// in_routine: how many the routine a CALL step runs must hold (its body is listed once,
// however many steps call it).
struct OpcodePerStep {
  const char* opcode;
  double per_step = 1;
  double max_per_step = -1;
  int in_routine = 0;
};
// Instructions of a timed loop's own (counter, compare, branch, hoisted operand moves) that may
// share a row's opcode, per kernel.
inline constexpr int kLoopSlack = 4;

// Compute-capability range a variant's expected SASS exists in (0: unbounded), and how many
// dependent steps one loop trip of the throughput kernel holds: 256 keeps the loop's own
// instructions near 1 % of the issue slots; a long software sequence (tens of instructions per
// step) needs fewer to stay a reasonable kernel.
template <int Min = 0, int Max = 0, int StepsPerTrip = 256>
struct CcRange {
  static constexpr int min_cc = Min;
  static constexpr int max_cc = Max;
  static constexpr int steps_per_trip = StepsPerTrip;
};
using AnyCc = CcRange<>;
using FromSm90 = CcRange<90>;
using BeforeSm120 = CcRange<0, 119>;
using Sm90ToSm119 = CcRange<90, 119>;
using FromSm120 = CcRange<120>;
using Sequence = CcRange<0, 0, 32>;       // a software sequence: fewer steps per trip
using Sm90Sequence = CcRange<90, 0, 32>;

// --- operand set-ups: {x0, a, b}, random at run time, in ranges where the chain stays finite ---
inline double uniform(Rng& r, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(r); }
inline uint32_t u32(Rng& r) { return uint32_t(r()); }

inline std::array<uint32_t, 3> bits32(Rng& r) { return {u32(r), u32(r), u32(r)}; }
inline std::array<uint32_t, 3> odd_multiplier(Rng& r) { return {u32(r), u32(r) | 1u, u32(r)}; }
// A shift count in 1..31: 0 would make a funnel shift a copy.
inline std::array<uint32_t, 3> shift_count(Rng& r) { return {u32(r), u32(r), 1u + u32(r) % 31u}; }
// Selector nibble 0 picks a byte of x, so every step depends on the last.
inline std::array<uint32_t, 3> prmt_selector(Rng& r) { return {u32(r), u32(r), (u32(r) & ~0xfu) | (u32(r) % 4u)}; }
inline std::array<uint32_t, 3> bmsk_width(Rng& r) { return {u32(r), 1u + u32(r) % 31u, 0}; }
inline std::array<uint64_t, 3> bits64(Rng& r) { return {r(), r() | 1u, r()}; }

template <class F>
std::array<F, 3> unit(Rng& r) { return {F(uniform(r, 0.5, 1)), F(uniform(r, 0.5, 1)), F(uniform(r, 0.5, 1))}; }
// a within 2^-10 of 1: a product chain of 16k steps neither overflows nor underflows.
template <class F>
std::array<F, 3> near_one(Rng& r) { return {F(uniform(r, 0.5, 1)), F(1 + uniform(r, -1, 1) / 1024), F(0)}; }
template <class F>
std::array<F, 3> wide(Rng& r) { return {F(uniform(r, -1e3, 1e3)), F(uniform(r, -1e3, 1e3)), F(0)}; }
inline std::array<float, 3> positive(Rng& r) { return {float(uniform(r, 0.5, 2)), 0, 0}; }
inline std::array<float, 3> signed_unit(Rng& r) { return {float(uniform(r, -1, 1)), 0, 0}; }
// x = log2(x) + 3 contracts to about 5.45, where the slope is below 1.
inline std::array<float, 3> log_offset(Rng& r) { return {float(uniform(r, 1, 8)), 3.0f, 0}; }

// Subnormal x and b (below 2^-126 = 1.18e-38) with a < 3/4: x = x a + b stays subnormal.
inline std::array<float, 3> subnormal(Rng& r) {
  return {float(uniform(r, 1e-40, 1e-39)), float(uniform(r, 0.5, 0.75)), float(uniform(r, 1e-41, 2e-40))};
}
// b: start position (bits 0..7, 0..15) and length (bits 8..15, 8..16) of a bit field.
inline std::array<uint32_t, 3> bit_field(Rng& r) { return {u32(r), u32(r), (u32(r) % 16u) | ((8u + u32(r) % 9u) << 8)}; }
inline std::array<uint32_t, 3> field_length(Rng& r) { return {u32(r), u32(r), 1u + u32(r) % 24u}; }
// b = 0: masks a special register's value out of the host-visible result, not out of the code.
inline std::array<uint32_t, 3> zero_mask(Rng& r) { return {u32(r), u32(r), 0u}; }
inline std::array<uint32_t, 3> lane_index(Rng& r) { return {u32(r), u32(r), u32(r) % 32u}; }

// Packed 16-bit lanes from two float ranges.
inline uint32_t pack2(Rng& r, double lo, double hi, bool bf16) {
  uint32_t d = 0;
  for (int lane = 0; lane < 2; ++lane) {
    const float f = float(uniform(r, lo, hi));
    d |= (bf16 ? ptx::float_to_bf16_bits(f) : ptx::float_to_half_bits(f)) << (16 * lane);
  }
  return d;
}
inline std::array<uint32_t, 3> half_add(Rng& r) { return {pack2(r, 0.5, 1, false), pack2(r, 1.0 / 64, 1.0 / 32, false), 0}; }
inline std::array<uint32_t, 3> half_mul(Rng& r) { return {pack2(r, 0.5, 1, false), pack2(r, 1 - 1.0 / 128, 1 + 1.0 / 128, false), 0}; }
inline std::array<uint32_t, 3> half_fma(Rng& r) {
  return {pack2(r, 0.5, 1, false), pack2(r, 0.5, 0.9, false), pack2(r, 0, 0.25, false)};
}
inline std::array<uint32_t, 3> half_unit(Rng& r) { return {pack2(r, -1, 1, false), pack2(r, 0, 1, false), pack2(r, -1, 0, false)}; }
// Four finite halves in x, random halves in a, and b = 0 (see ptx::hmma_f16_acc).
inline std::array<unsigned long long, 3> mma_zero_b(Rng& r) {
  auto four = [&r] { return (static_cast<unsigned long long>(pack2(r, 0.5, 1, false)) << 32) | pack2(r, 0.5, 1, false); };
  return {four(), four(), 0};
}
inline std::array<uint32_t, 3> bf16_fma(Rng& r) { return {pack2(r, 0.5, 1, true), pack2(r, 0.5, 0.9, true), pack2(r, 0, 0.25, true)}; }

// One row. Step: an expression in x (the chain value), a and b (operands from Setup). Names are
// qualified: rows kept outside the catalog (latency/alu_extra_rows.cuh, pipes/pipe_rows.cuh) use
// it in their own namespaces.
#define GD_ALU_VARIANT(Tag, Name, Type, Setup, Tol, Cc, Desc, Step, ...)                              \
  struct Tag : Cc {                                                                                   \
    using T = Type;                                                                                   \
    static constexpr const char* name = Name;                                                         \
    static constexpr const char* tag = #Tag;                                                          \
    static constexpr const char* description = Desc;                                                  \
    static constexpr const char* source = #Step;                                                      \
    static constexpr ::gd::alu_catalog::Tolerance tolerance = Tol;                                    \
    __host__ __device__ static T step(T x, T a, T b) { (void)a; (void)b; return Step; }             \
    static std::array<T, 3> inputs(::gd::alu_catalog::Rng& r) { return Setup(r); }                   \
    static std::vector<::gd::alu_catalog::OpcodePerStep> sass() { return {__VA_ARGS__}; }           \
  }

// clang-format off
// --- integer ------------------------------------------------------------------------------------
// sm_80 keeps the two adds apart (two IADD3 a step); sm_90 and later fuse them.
GD_ALU_VARIANT(Iadd3, "iadd3", uint32_t, bits32, kExact, AnyCc, "IADD3 (two adds fused)", ptx::iadd3(x, a, b), {"IADD3", 1, 2});
GD_ALU_VARIANT(Imad, "imad", uint32_t, odd_multiplier, kExact, AnyCc, "IMAD", ptx::imad(x, a, b), {"IMAD"});
GD_ALU_VARIANT(Lop3, "lop3", uint32_t, bits32, kExact, AnyCc, "LOP3.LUT (xor of three)", ptx::lop3_xor3(x, a, b), {"LOP3.LUT"});
GD_ALU_VARIANT(ImadHi, "imad_hi", uint32_t, bits32, kExact, AnyCc, "IMAD.HI.U32 (mad.hi.u32)", ptx::imad_hi(x, a, b), {"IMAD.HI.U32"});
GD_ALU_VARIANT(ImadWide, "imad_wide", uint64_t, bits64, kExact, BeforeSm120,
               "IMAD.WIDE.U32 (mad.wide.u32, 64-bit result feeding the next step; sm_120's ptxas keeps only the "
               "high word live and emits IMAD.HI.U32 instead)", ptx::imad_wide(x, a, b), {"IMAD.WIDE.U32"});
GD_ALU_VARIANT(Iadd64, "iadd64", uint64_t, bits64, kExact, BeforeSm120,
               "64-bit add: an IADD3 per step for the low word, and one IADD3.X with two carries per two steps "
               "for the high word (ptxas merges them); sm_120 has IADD.64: iadd64_native",
               // sm_80: an IADD3 and an IADD3.X a step (the IADD3 count takes in the .X).
               ptx::iadd64(x, a), {"IADD3", 1.5, 2}, {"IADD3.X", 0.5, 1});
GD_ALU_VARIANT(Iadd64Native, "iadd64_native", uint64_t, bits64, kExact, FromSm120,
               "64-bit add as one IADD.64 (sm_120 on; earlier chips use a carry pair: iadd64)", ptx::iadd64(x, a), {"IADD.64"});
GD_ALU_VARIANT(Imad64, "imad64", uint64_t, bits64, kExact, AnyCc,
               "64-bit multiply-add (mad.lo.u64): IMAD.WIDE.U32 + 2 IMAD + IADD3 sequence", ptx::imad64(x, a, b),
               // The add compiles as IADD3 or IMAD.IADD: in the pipes' pair kernel about half are
               // IMAD.IADD on sm_90a, 39 of 64 on sm_80.
               {"IMAD.WIDE.U32"}, {"IMAD", 3, 4}, {"IADD3", 0.25, 1});
GD_ALU_VARIANT(ShfL, "shf_l", uint32_t, shift_count, kExact, AnyCc, "SHF.L.W.U32.HI (funnel shift left)",
               ptx::shf_l_wrap(x, a, b), {"SHF.L.W.U32.HI"});
GD_ALU_VARIANT(ShfR, "shf_r", uint32_t, shift_count, kExact, AnyCc, "SHF.R.W.U32 (funnel shift right)",
               ptx::shf_r_wrap(x, a, b), {"SHF.R.W.U32"});
GD_ALU_VARIANT(Prmt, "prmt", uint32_t, prmt_selector, kExact, AnyCc, "PRMT (byte permute)", ptx::prmt(x, a, b), {"PRMT"});
GD_ALU_VARIANT(Popc, "popc", uint32_t, bits32, kExact, AnyCc, "POPC (settles to a fixed point; each step still runs POPC)",
               ptx::popc(x), {"POPC"});
GD_ALU_VARIANT(Flo, "flo", uint32_t, bits32, kExact, AnyCc, "FLO.U32 (bfind.u32)", ptx::bfind(x), {"FLO.U32"});
GD_ALU_VARIANT(Brev, "brev", uint32_t, bits32, kExact, AnyCc, "BREV", ptx::brev(x), {"BREV"});
GD_ALU_VARIANT(Bmsk, "bmsk", uint32_t, bmsk_width, kExact, AnyCc, "BMSK.W (bit mask from position and width)",
               ptx::bmsk_wrap(x, a), {"BMSK.W"});
GD_ALU_VARIANT(IabsLop3, "iabs_lop3", uint32_t, bits32, kExact, AnyCc,
               "pair: LOP3 + IABS (abs of abs folds, so an xor keeps each IABS live)", ptx::iabs(x ^ a), {"IABS"}, {"LOP3.LUT"});
GD_ALU_VARIANT(Imnmx, "imnmx_pair", uint32_t, bits32, kExact, FromSm90,
               "pair: min then max (VIMNMX on sm_90+; sm_80 code uses IMNMX); one min alone merges into VIMNMX3",
               ptx::imin_imax_s32(x, a, b), {"VIMNMX", 2});
GD_ALU_VARIANT(IsetpSel, "isetp_sel", uint32_t, bits32, kExact, AnyCc, "pair: ISETP + SEL through the predicate",
               ptx::setp_sel(x, a, b), {"ISETP"}, {"SEL"});
GD_ALU_VARIANT(Dp4a, "dp4a", uint32_t, bits32, kExact, AnyCc, "IDP.4A.U8.U8", ptx::dp4a_u32(x, a, b), {"IDP.4A"});
GD_ALU_VARIANT(Dp2a, "dp2a", uint32_t, bits32, kExact, AnyCc, "IDP.2A.LO.U16.U8", ptx::dp2a_lo_u32(x, a, b), {"IDP.2A.LO"});
GD_ALU_VARIANT(Vimax3, "dpx_vimax3", uint32_t, bits32, kExact, Sm90ToSm119,
               "Hopper DPX __vimax3_s32: VIMNMX3 (hardware on sm_90/sm_100; emulated on sm_120)",
               ptx::vimax3_s32(x, a, b), {"VIMNMX3"});
GD_ALU_VARIANT(Viaddmax, "dpx_viaddmax", uint32_t, bits32, kExact, Sm90ToSm119,
               "Hopper DPX __viaddmax_s32: VIADDMNMX (hardware on sm_90/sm_100; emulated on sm_120)",
               ptx::viaddmax_s32(x, a, b), {"VIADDMNMX"});
GD_ALU_VARIANT(Vadd2, "simd_vadd2", uint32_t, bits32, kExact, FromSm90,
               "SIMD __vadd2: VIADD.16x2 (sm_90+; an IADD3/LOP3 sequence on sm_80)", ptx::vadd2(x, a), {"VIADD.16x2"});
GD_ALU_VARIANT(Vabsdiff4, "simd_vabsdiff4", uint32_t, bits32, kExact, BeforeSm120,
               "SIMD __vabsdiffu4: VABSDIFF4.U8 (emulated on sm_120)", ptx::vabsdiffu4(x, a), {"VABSDIFF4.U8"});
// --- FP32 ---------------------------------------------------------------------------------------
GD_ALU_VARIANT(Ffma, "ffma", float, unit<float>, kExact, AnyCc, "FFMA", ptx::ffma(x, a, b), {"FFMA"});
GD_ALU_VARIANT(Fadd, "fadd", float, unit<float>, kExact, AnyCc, "FADD", ptx::fadd_rn(x, a), {"FADD"});
GD_ALU_VARIANT(Fmul, "fmul", float, near_one<float>, kExact, AnyCc, "FMUL", ptx::fmul_rn(x, a), {"FMUL"});
GD_ALU_VARIANT(Fmnmx, "fmnmx", float, unit<float>, kExact, AnyCc,
               "FMNMX of -x (a free modifier; min of min would merge into FMNMX3 on sm_100)", ptx::fmin_f32(-x, a), {"FMNMX"});
GD_ALU_VARIANT(FsetpFsel, "fsetp_fsel", float, unit<float>, kExact, AnyCc, "pair: FSETP + FSEL through the predicate",
               ptx::fsetp_fsel(x, a, b), {"FSETP"}, {"FSEL"});
// --- FP16 / BF16 packed -------------------------------------------------------------------------
GD_ALU_VARIANT(Hadd2, "hadd2", uint32_t, half_add, kExact, AnyCc,
               "HADD2; ptxas issues every other step as HFMA2 (x*1+a) on sm_90+, so this is their mean (in the pipes' "
               "pair kernel it keeps every step HADD2)",
               ptx::hadd2(x, a, b), {"HADD2", 0.5, 1});
GD_ALU_VARIANT(Hmul2, "hmul2", uint32_t, half_mul, kExact, AnyCc,
               "HMUL2; ptxas issues every other step as HFMA2 (x*a-0), so this is their mean", ptx::hmul2(x, a, b),
               {"HMUL2", 0.5, 1});
GD_ALU_VARIANT(Hfma2, "hfma2", uint32_t, half_fma, kExact, AnyCc, "HFMA2 (sm_90 alternates HFMA2 and HFMA2.MMA)",
               ptx::hfma2(x, a, b), {"HFMA2"});
GD_ALU_VARIANT(Hmnmx2, "hmnmx2_pair", uint32_t, half_unit, kExact, AnyCc,
               "pair: HMNMX2 min then max (one min alone merges into VHMNMX)", ptx::hmin_hmax2(x, a, b), {"HMNMX2", 2});
GD_ALU_VARIANT(Bf16Fma2, "bf16_hfma2", uint32_t, bf16_fma, kExact, AnyCc, "HFMA2.BF16_V2", ptx::bf16_fma2(x, a, b),
               {"HFMA2.BF16_V2"});
// --- FP64 ---------------------------------------------------------------------------------------
GD_ALU_VARIANT(Dadd, "dadd", double, unit<double>, kExact, AnyCc, "DADD", ptx::dadd_rn(x, a), {"DADD"});
GD_ALU_VARIANT(Dmul, "dmul", double, near_one<double>, kExact, AnyCc, "DMUL", ptx::dmul_rn(x, a), {"DMUL"});
GD_ALU_VARIANT(Dfma, "dfma", double, unit<double>, kExact, AnyCc, "DFMA", ptx::dfma_rn(x, a, b), {"DFMA"});
GD_ALU_VARIANT(Dmnmx, "dmnmx_seq", double, unit<double>, kExact, AnyCc,
               "min.f64 has no DMNMX: DSETP.MIN + FSEL + SEL + LOP3 sequence (NaN handling)", ptx::dmin_f64(-x, a),
               {"DSETP.MIN"}, {"FSEL"}, {"SEL"});
// --- SFU (MUFU), compared with a tolerance --------------------------------------------------------
GD_ALU_VARIANT(MufuRcp, "mufu_rcp", float, positive, (Tolerance{1e-3, 1e-6}), AnyCc, "MUFU.RCP (of -x)",
               ptx::rcp_neg_approx(x), {"MUFU.RCP"});
GD_ALU_VARIANT(MufuRsq, "mufu_rsq", float, positive, (Tolerance{1e-4, 1e-6}), AnyCc, "MUFU.RSQ", ptx::rsqrt_approx(x),
               {"MUFU.RSQ"});
GD_ALU_VARIANT(MufuSqrt, "mufu_sqrt", float, positive, (Tolerance{1e-4, 1e-6}), AnyCc, "MUFU.SQRT", ptx::sqrt_approx(x),
               {"MUFU.SQRT"});
// sin(x) and tanh(x) decay slowly towards 0, where the approximation's error adds up over 16k
// steps: a loose absolute bound, which still tells sin from cos or from a broken chain.
GD_ALU_VARIANT(MufuSin, "mufu_sin_pair", float, signed_unit, (Tolerance{0, 0.05}), AnyCc,
               "pair: FMUL.RZ (times 1/2pi) + MUFU.SIN", ptx::sin_approx(x), {"MUFU.SIN"}, {"FMUL.RZ"});
GD_ALU_VARIANT(MufuCos, "mufu_cos_pair", float, signed_unit, (Tolerance{1e-3, 1e-5}), AnyCc,
               "pair: FMUL.RZ (times 1/2pi) + MUFU.COS", ptx::cos_approx(x), {"MUFU.COS"}, {"FMUL.RZ"});
GD_ALU_VARIANT(MufuTanh, "mufu_tanh", float, signed_unit, (Tolerance{0, 0.05}), AnyCc, "MUFU.TANH", ptx::tanh_approx(x),
               {"MUFU.TANH"});
GD_ALU_VARIANT(MufuEx2, "mufu_ex2", float, signed_unit, (Tolerance{1e-4, 1e-6}), AnyCc, "MUFU.EX2 (of -x)",
               ptx::ex2_neg_approx(x), {"MUFU.EX2"});
GD_ALU_VARIANT(MufuLg2, "mufu_lg2_fadd", float, log_offset, (Tolerance{1e-4, 1e-6}), AnyCc,
               "pair: MUFU.LG2 + FADD (log2 alone never contracts: the +3 keeps the chain finite)",
               ptx::fadd_rn(ptx::lg2_approx(x), a), {"MUFU.LG2"}, {"FADD"});
// --- conversions: round trips, so the chain stays in one type; each reports the pair -------------
GD_ALU_VARIANT(F32F16, "cvt_f32_f16_f32", float, wide<float>, kExact, AnyCc,
               "pair: F2FP.PACK_AB (f32 to f16) + HADD2.F32 (f16 to f32); with two independent chains ptxas packs "
               "both conversions into one F2FP.PACK_AB", ptx::f32_f16_f32(x), {"F2FP.PACK_AB", 0.5, 1}, {"HADD2.F32"});
GD_ALU_VARIANT(F32Bf16, "cvt_f32_bf16_f32", float, wide<float>, kExact, AnyCc,
               "pair: F2F.BF16.F32 + a 16-bit shift back (SHF.L or IMAD.U32)", ptx::f32_bf16_f32(x), {"F2F.BF16.F32"});
GD_ALU_VARIANT(F64F32, "cvt_f64_f32_f64", double, wide<double>, kExact, AnyCc, "pair: F2F.F32.F64 + F2F.F64.F32",
               ptx::f64_f32_f64(x), {"F2F.F32.F64"}, {"F2F.F64.F32"});
GD_ALU_VARIANT(F2iI2f, "cvt_f32_s32_f32", float, wide<float>, kExact, FromSm90,
               "pair: F2I + I2FP.F32.S32 (sm_80 code uses I2F)", ptx::f32_s32_f32(x), {"F2I"}, {"I2FP.F32.S32"});
GD_ALU_VARIANT(F2iI2fF64, "cvt_f64_s32_f64", double, wide<double>, kExact, AnyCc, "pair: F2I.F64 + I2F.F64",
               ptx::f64_s32_f64(x), {"F2I.F64"}, {"I2F.F64"});
GD_ALU_VARIANT(F2fpBf16, "cvt_f2fp_bf16x2", float, wide<float>, kExact, AnyCc,
               "F2FP.BF16.PACK_AB (two f32 to bf16x2) + PRMT and IMAD.U32 to widen the high half back",
               ptx::f2fp_bf16x2_hi(x, a), {"F2FP.BF16.PACK_AB"}, {"PRMT"});
// --- second wave: software sequences, subnormals, fp8, warp-level, special registers, mma ------
// Each sequence row names the opcodes its step holds and how many; its latency is the whole
// sequence's and the description lists what else it contains.
GD_ALU_VARIANT(FfmaSubnormal, "ffma_subnormal", float, subnormal, kExact, AnyCc,
               "FFMA with subnormal operands and result (no flush to zero): against ffma, the subnormal penalty",
               ptx::ffma(x, a, b), {"FFMA"});
GD_ALU_VARIANT(FdivRn, "fdiv_rn", float, unit<float>, kExact, Sequence,
               "div.rn.f32 (a / x, IEEE): MUFU.RCP + FCHK + 5 FFMA, and a CALL to the slow path FCHK flags",
               ptx::fdiv_rn(a, x), {"MUFU.RCP"}, {"FCHK"}, {"FFMA", 5});
GD_ALU_VARIANT(FdivFull, "fdiv_full", float, unit<float>, (Tolerance{1e-2, 0}), Sequence,
               "div.full.f32 (a / x, the fast-math division, 2 ulp): MUFU.RCP + 4 FMUL with range scaling",
               ptx::fdiv_full(a, x), {"MUFU.RCP"}, {"FMUL", 4});
GD_ALU_VARIANT(FsqrtRn, "fsqrt_rn", float, unit<float>, kExact, Sequence,
               "sqrt.rn.f32 (IEEE): MUFU.RSQ + FMUL + FFMA refinement, and a CALL to the slow path",
               ptx::fsqrt_rn(x), {"MUFU.RSQ"}, {"FFMA", 2});
GD_ALU_VARIANT(FrcpRn, "frcp_rn", float, unit<float>, kExact, Sequence,
               "rcp.rn.f32 (IEEE; rcp.approx is mufu_rcp): MUFU.RCP + 2 FFMA, and a CALL to the slow path",
               ptx::frcp_rn(x), {"MUFU.RCP"}, {"FFMA", 2});
GD_ALU_VARIANT(DdivRn, "ddiv_rn", double, unit<double>, kExact, Sequence,
               "div.rn.f64 (a / x): MUFU.RCP64H + 7 DFMA + DMUL, and a CALL to the slow path",
               ptx::ddiv_rn(a, x), {"MUFU.RCP64H"}, {"DFMA", 7});
GD_ALU_VARIANT(DsqrtRn, "dsqrt_rn", double, unit<double>, kExact, Sequence,
               "sqrt.rn.f64: MUFU.RSQ64H + DMUL and 5 DFMA refinement, and a CALL to the slow path",
               ptx::dsqrt_rn(x), {"MUFU.RSQ64H"}, {"DFMA", 5});
GD_ALU_VARIANT(MufuRcp64h, "mufu_rcp64h", double, unit<double>, (Tolerance{1e-2, 0}), AnyCc,
               "MUFU.RCP64H, the 64-bit reciprocal seed (rcp.approx.ftz.f64 of -x; the negation is a DADD)",
               ptx::drcp_approx_neg(x), {"MUFU.RCP64H"});
GD_ALU_VARIANT(Udiv32, "idiv_u32", uint32_t, bits32, kExact, Sequence,
               "div.u32 (a / (x | 1)): I2F.U32.RP + MUFU.RCP + F2I + IMAD.HI and fix-ups, about 20 instructions",
               ptx::udiv32(a, x | 1u), {"MUFU.RCP"}, {"IMAD.HI.U32", 2});
GD_ALU_VARIANT(Urem32, "irem_u32", uint32_t, bits32, kExact, Sequence,
               "rem.u32 (a % (x | 1) + b): the division sequence and a multiply-subtract",
               ptx::urem32(a, x | 1u) + b, {"MUFU.RCP"}, {"IMAD.HI.U32", 2});
GD_ALU_VARIANT(Udiv64, "idiv_u64", uint64_t, bits64, kExact, Sequence,
               "div.u64 (a / (x | 1)): per step a CALL to the 64-bit division routine (I2F.U64.RP + MUFU.RCP seed, "
               "IMAD.WIDE refinement), which random 64-bit divisors take, past an inline 32-bit path they skip",
               ptx::udiv64(a, x | 1u), {"CALL.REL.NOINC"},
               {.opcode = "MUFU.RCP", .per_step = 0, .max_per_step = 1, .in_routine = 1},
               {.opcode = "I2F.U64.RP", .per_step = 0, .in_routine = 1});
GD_ALU_VARIANT(Bfe, "bfe", uint32_t, bit_field, kExact, AnyCc,
               "bfe.u32 of x ^ a: SHF.R.U32.HI + SGXT.U32 (no BFE on sm_70 and later) and the xor",
               ptx::bfe_u32(x ^ a, b, b >> 8), {"SHF.R.U32.HI"}, {"SGXT.U32"});
GD_ALU_VARIANT(Bfi, "bfi", uint32_t, field_length, kExact, AnyCc,
               "bfi.b32 (x into a at bit 8): no BFI on sm_70 and later; the mask (BMSK) depends only on the length, "
               "so ptxas hoists it when it can, leaving a shift and a LOP3 merge per step",
               ptx::bfi_b32(x, a, b), {"LOP3.LUT"});
GD_ALU_VARIANT(Clz, "clz", uint32_t, bits32, kExact, AnyCc, "clz.b32 of x ^ a: FLO.U32 + IADD3 (32 - position)",
               ptx::clz32(x ^ a), {"FLO.U32"});
GD_ALU_VARIANT(Fp8E4m3, "cvt_f32_e4m3_f32", float, wide<float>, kExact, FromSm90,
               "fp8 round trip: F2FP.SATFINITE.E4M3.F32.PACK_AB + F2FP.F16.E4M3.UNPACK_B + HADD2.F32 (sm_89+)",
               ptx::f32_e4m3_f32(x), {"F2FP.SATFINITE.E4M3.F32.PACK_AB_MERGE_C"}, {"F2FP.F16.E4M3.UNPACK_B"});
GD_ALU_VARIANT(Fp8E5m2, "cvt_f32_e5m2_f32", float, wide<float>, kExact, FromSm90,
               "fp8 round trip: F2FP.SATFINITE.E5M2.F32.PACK_AB + F2FP.F16.E5M2.UNPACK_B + HADD2.F32 (sm_89+)",
               ptx::f32_e5m2_f32(x), {"F2FP.SATFINITE.E5M2.F32.PACK_AB_MERGE_C"}, {"F2FP.F16.E5M2.UNPACK_B"});
GD_ALU_VARIANT(ShflIdx, "shfl_idx", uint32_t, lane_index, kExact, AnyCc,
               "SHFL.IDX from lane x & 31 (every lane holds the same value; a fixed source lane would let ptxas "
               "fold a shuffle of a shuffle)", ptx::shfl_idx(x, x), {"SHFL.IDX"});
GD_ALU_VARIANT(ShflUp, "shfl_up", uint32_t, lane_index, kExact, AnyCc, "SHFL.UP", ptx::shfl_up(x, b), {"SHFL.UP"});
GD_ALU_VARIANT(ShflDown, "shfl_down", uint32_t, lane_index, kExact, AnyCc, "SHFL.DOWN", ptx::shfl_down(x, b),
               {"SHFL.DOWN"});
GD_ALU_VARIANT(ShflBfly, "shfl_bfly", uint32_t, lane_index, kExact, AnyCc, "SHFL.BFLY", ptx::shfl_bfly(x, b),
               {"SHFL.BFLY"});
GD_ALU_VARIANT(VoteBallot, "vote_ballot", uint32_t, bits32, kExact, AnyCc,
               "pair: VOTE.ANY (ballot of x odd) + LOP3 (xor a)", ptx::vote_ballot_xor(x, a), {"VOTE.ANY"});
GD_ALU_VARIANT(MatchAny, "match_any", uint32_t, bits32, kExact, AnyCc, "pair: MATCH.ANY + IADD3",
               ptx::match_any_add(x, a), {"MATCH.ANY"});
GD_ALU_VARIANT(ReduxAdd, "redux_add", uint32_t, bits32, kExact, AnyCc,
               "REDUX.SUM (into a uniform register) + MOV back + LOP3 (xor a)", ptx::redux_add(x) ^ a, {"REDUX.SUM"});
// sm_80 hoists the %warpid read out of the chain (one S2R for the whole loop) and reads %smid
// through S2R, not the uniform datapath: both rows measure what they name from sm_90 on.
GD_ALU_VARIANT(SrWarpid, "sreg_warpid", uint32_t, zero_mask, kExact, FromSm90,
               "S2R SR_VIRTID (%warpid) + SHF + SGXT to extract the field, used by LOP3 + IADD3",
               ptx::sreg_warpid_add(x, a, b), {"S2R"}, {"SGXT.U32"});
GD_ALU_VARIANT(SrSmid, "sreg_smid_s2ur", uint32_t, zero_mask, kExact, FromSm90,
               "S2UR SR_SMID: the uniform datapath (%smid is warp-uniform), used by LOP3 + IADD3",
               ptx::sreg_smid_add(x, a, b), {"S2UR"});
GD_ALU_VARIANT(HmmaAcc, "mma_f16_f32", float, unit<float>, (Tolerance{1e-2, 0}), AnyCc,
               "HMMA.1688.F32 (mma.sync m16n8k8 f16 x f16 + f32): the accumulator chain, one warp-wide MMA per step",
               ptx::hmma_acc(x, a, b), {"HMMA.1688.F32"});
GD_ALU_VARIANT(HmmaF16, "mma_f16_f16", unsigned long long, mma_zero_b, kExact, AnyCc,
               "HMMA.1688.F16 (mma.sync m16n8k8 f16 x f16 + f16, B = 0): the accumulator registers are the chain, "
               "HMMA alone (the pipes' tensor reference)",
               ptx::hmma_f16_acc(x, a, b), {"HMMA.1688.F16"});
// clang-format on

using Catalog = std::tuple<Ffma, Iadd3, Imad, Lop3, ImadHi, ImadWide, Iadd64, Iadd64Native, Imad64, ShfL, ShfR, Prmt,
                           Popc, Flo, Brev, Bmsk, IabsLop3, Imnmx, IsetpSel, Dp4a, Dp2a, Vimax3, Viaddmax, Vadd2,
                           Vabsdiff4, Fadd, Fmul, Fmnmx, FsetpFsel, Hadd2, Hmul2, Hfma2, Hmnmx2, Bf16Fma2, Dadd, Dmul,
                           Dfma, Dmnmx, MufuRcp, MufuRsq, MufuSqrt, MufuSin, MufuCos, MufuTanh, MufuEx2, MufuLg2,
                           F32F16, F32Bf16, F64F32, F2iI2f, F2iI2fF64, F2fpBf16, FfmaSubnormal, FdivRn, FdivFull,
                           FsqrtRn, FrcpRn, DdivRn, DsqrtRn, MufuRcp64h, Udiv32, Urem32, Udiv64, Bfe, Bfi, Clz, Fp8E4m3,
                           Fp8E5m2, ShflIdx, ShflUp, ShflDown, ShflBfly, VoteBallot, MatchAny, ReduxAdd, SrWarpid,
                           SrSmid, HmmaAcc, HmmaF16>;

// What a kernel running `steps` of the row per timed loop trip must hold, for its SassExpectation.
template <class Op>
std::vector<OpcodeExpectation> expected_opcodes(int steps) {
  std::vector<OpcodeExpectation> require;
  for (const auto& op : Op::sass()) {
    const double most = op.max_per_step < 0 ? op.per_step : op.max_per_step;
    // A routine's body is listed once and holds no loop of ours: its count is exact.
    const int slack = most > 0 ? kLoopSlack : 0;
    require.push_back({op.opcode, int(op.per_step * steps) + op.in_routine, int(std::ceil(most * steps)) + op.in_routine + slack});
  }
  return require;
}
// The expectation of a kernel (glob) whose timed region runs `steps` of the row: the row's
// opcodes, bounded, and the routine a CALL step runs when the row names what it holds.
template <class Op>
SassExpectation chain_sass(std::string kernel, int steps, SassRegion region = SassRegion::Clocked) {
  const auto ops = Op::sass();
  const bool calls = std::any_of(ops.begin(), ops.end(), [](const OpcodePerStep& o) { return o.in_routine > 0; });
  return expect_sass(std::move(kernel), region, expected_opcodes<Op>(steps), {"LDL", "STL"}, calls);
}
// The row's compute-capability range as a probe's requirements.
template <class Op>
Requirements requirements() {
  Requirements r;
  r.min_cc = Op::min_cc;
  r.max_cc = Op::max_cc;
  return r;
}

// Whether Op is one of the catalog's rows (the pipes' families also pair rows of their own).
template <class Op>
inline constexpr bool kInCatalog =
    []<class... V>(std::tuple<V...>*) { return (std::is_same_v<Op, V> || ...); }(static_cast<Catalog*>(nullptr));

// Calls f(static_cast<Variant*>(nullptr)) for every row: the pointer carries the type.
template <class F>
void for_each_variant(F&& f) {
  [&]<class... V>(std::tuple<V...>*) { (f(static_cast<V*>(nullptr)), ...); }(static_cast<Catalog*>(nullptr));
}

// A family whose file CMake compiles in slices (GPUDISSECT_SLICED_SOURCES: the file itself as
// slice 0 and generated units including it with GD_SLICE 1, 2, ...) registers here only its
// slice's rows, a contiguous run of the catalog, so the catalog's kernels compile in parallel
// and the rows keep their order (the slices link in order). Out-of-slice rows are never
// instantiated. Without slicing (GD_SLICES 1) it is for_each_variant.
#ifndef GD_SLICE
#define GD_SLICE 0
#endif
#ifndef GD_SLICES
#define GD_SLICES 1
#endif
static_assert(GD_SLICE >= 0 && GD_SLICE < GD_SLICES, "GD_SLICE must be in [0, GD_SLICES)");
inline constexpr bool kFirstSlice = GD_SLICE == 0;

template <std::size_t Slice, std::size_t Slices, class F>
void for_each_variant_in(F&& f) {
  constexpr std::size_t n = std::tuple_size_v<Catalog>;
  constexpr std::size_t lo = n * Slice / Slices, hi = n * (Slice + 1) / Slices;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ([&] {
      if constexpr (I >= lo && I < hi) f(static_cast<std::tuple_element_t<I, Catalog>*>(nullptr));
    }(), ...);
  }(std::make_index_sequence<n>{});
}
template <class F>
void for_each_variant_of_this_slice(F&& f) {
  for_each_variant_in<GD_SLICE, GD_SLICES>(std::forward<F>(f));
}

}  // namespace gd::alu_catalog
