// Every inline PTX the probes use, as small named wrappers (reviewed once, SASS-tested once).
// `volatile` keeps ptxas from merging or hoisting them; operands are registers so nothing folds.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace gd::ptx {

__device__ __forceinline__ unsigned long long globaltimer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned smid() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// The 32-bit shared-window address of a shared-memory pointer.
__device__ __forceinline__ unsigned shared_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// Plain shared-memory load (the block's own window): the baseline of the cluster, async and
// chase loads.
__device__ __forceinline__ unsigned ld_shared_u32(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

// Marks the next clocked region for the SASS verifier (SassRegion::Marked): a performance-monitor
// trigger (PMTRIG), one issue slot, that no other code of ours emits and ptxas keeps in place, so
// a kernel timing several regions can have one of them checked alone.
__device__ __forceinline__ void region_marker() { asm volatile("pmevent 7;"); }

// --- dependent ALU steps (latency chains) --------------------------------------------------
// Each also compiles for the host with the same arithmetic, so a probe checks its device
// result against the identical function on the CPU.
#ifdef __CUDA_ARCH__
#define GD_PTX_DEVICE_ONLY(...) __VA_ARGS__
#define GD_PTX_HOST_ONLY(...)
#else
#define GD_PTX_DEVICE_ONLY(...)
#define GD_PTX_HOST_ONLY(...) __VA_ARGS__
#endif

__host__ __device__ __forceinline__ float ffma(float a, float b, float c) {
  GD_PTX_HOST_ONLY(return std::fma(a, b, c);)
  GD_PTX_DEVICE_ONLY(float d; asm volatile("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c)); return d;)
}

// Two adds that ptxas fuses into one three-input IADD3.
__host__ __device__ __forceinline__ uint32_t iadd3(uint32_t a, uint32_t b, uint32_t c) {
  GD_PTX_HOST_ONLY(return a + b + c;)
  GD_PTX_DEVICE_ONLY(uint32_t d;
                     asm volatile("add.u32 %0, %1, %2;\n\tadd.u32 %0, %0, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
                     return d;)
}

__host__ __device__ __forceinline__ uint32_t imad(uint32_t a, uint32_t b, uint32_t c) {
  GD_PTX_HOST_ONLY(return a * b + c;)
  GD_PTX_DEVICE_ONLY(uint32_t d; asm volatile("mad.lo.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d;)
}

// LUT 0x96 is a ^ b ^ c.
__host__ __device__ __forceinline__ uint32_t lop3_xor3(uint32_t a, uint32_t b, uint32_t c) {
  GD_PTX_HOST_ONLY(return a ^ b ^ c;)
  GD_PTX_DEVICE_ONLY(uint32_t d; asm volatile("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d;)
}

// 3-operand forms: d = f(a, b, c); each wrapper is one PTX instruction unless its comment says.
#define GD_PTX_STEP3(name, T, expr, ptx_text, cons)                                              \
  __host__ __device__ __forceinline__ T name(T a, T b, T c) {                                 \
    GD_PTX_HOST_ONLY((void)a; (void)b; (void)c; return (expr);)                                \
    GD_PTX_DEVICE_ONLY(T d; asm volatile(ptx_text : "=" cons(d) : cons(a), cons(b), cons(c)); return d;) \
  }

// --- host models of the packed 16-bit formats (bit-exact: float rounding then one rounding to
// 16 bits is innocuous for add, mul and fma, since 24 >= 2 * 11 + 2) ----------------------------
__host__ __device__ __forceinline__ float half_bits_to_float(uint32_t h) {
  __half_raw r; r.x = uint16_t(h); return __half2float(__half(r));
}
__host__ __device__ __forceinline__ uint32_t float_to_half_bits(float f) {
  return __half_raw(__float2half_rn(f)).x;
}
__host__ __device__ __forceinline__ float bf16_bits_to_float(uint32_t h) {
  __nv_bfloat16_raw r; r.x = uint16_t(h); return __bfloat162float(__nv_bfloat16(r));
}
__host__ __device__ __forceinline__ uint32_t float_to_bf16_bits(float f) {
  return __nv_bfloat16_raw(__float2bfloat16_rn(f)).x;
}
// Applies f to both 16-bit lanes of packed operands, as float, rounding back through `round`.
template <class F>
__host__ __device__ __forceinline__ uint32_t lanes2(uint32_t a, uint32_t b, uint32_t c, bool bf16, F f) {
  uint32_t d = 0;
  for (int lane = 0; lane < 2; ++lane) {
    const auto get = [&](uint32_t v) { const uint32_t h = (v >> (16 * lane)) & 0xffffu;
                                       return bf16 ? bf16_bits_to_float(h) : half_bits_to_float(h); };
    const float r = f(get(a), get(b), get(c));
    d |= (bf16 ? float_to_bf16_bits(r) : float_to_half_bits(r)) << (16 * lane);
  }
  return d;
}

// Host reference of prmt.b32 in its default mode: each selector nibble picks one of the eight
// bytes of {b, a}; its bit 3 replicates that byte's sign bit instead.
__host__ __device__ __forceinline__ uint32_t prmt_model(uint32_t a, uint32_t b, uint32_t sel) {
  const uint64_t bytes = (uint64_t(b) << 32) | a;
  uint32_t d = 0;
  for (int i = 0; i < 4; ++i) {
    const uint32_t s = (sel >> (4 * i)) & 0xfu;
    uint32_t byte = uint32_t(bytes >> (8 * (s & 7))) & 0xffu;
    if (s & 8) byte = (byte & 0x80u) ? 0xffu : 0u;
    d |= byte << (8 * i);
  }
  return d;
}

__host__ __device__ __forceinline__ uint32_t dp4a_model(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d = c;
  for (int i = 0; i < 4; ++i) d += ((a >> (8 * i)) & 0xffu) * ((b >> (8 * i)) & 0xffu);
  return d;
}
__host__ __device__ __forceinline__ uint32_t dp2a_lo_model(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d = c;
  for (int i = 0; i < 2; ++i) d += ((a >> (16 * i)) & 0xffffu) * ((b >> (8 * i)) & 0xffu);
  return d;
}
__host__ __device__ __forceinline__ int32_t bits_s32(uint32_t v) { return int32_t(v); }

// --- integer --------------------------------------------------------------------------------
GD_PTX_STEP3(imad_hi, uint32_t, uint32_t((uint64_t(a) * b) >> 32) + c, "mad.hi.u32 %0, %1, %2, %3;", "r")
// d = hi32(a) * lo32(b) + c, a 64-bit product and sum (IMAD.WIDE.U32). Taking the high word
// of a makes a chain need the whole 64-bit result; from the low word ptxas would keep 32 bits.
GD_PTX_STEP3(imad_wide, uint64_t, uint64_t(uint32_t(a >> 32)) * uint32_t(b) + c,
             "{ .reg .u32 al, ah, bl, bh;\n\tmov.b64 {al, ah}, %1;\n\tmov.b64 {bl, bh}, %2;\n\tmad.wide.u32 %0, ah, bl, %3; }", "l")
// 64-bit multiply-add: a software sequence of 32-bit IMADs.
GD_PTX_STEP3(imad64, uint64_t, a * b + c, "mad.lo.u64 %0, %1, %2, %3;", "l")
// Funnel shift: the high word of {a:b} << (c & 31) (c is the shift, a the high word).
GD_PTX_STEP3(shf_l_wrap, uint32_t, uint32_t((((uint64_t(a) << 32) | b) << (c & 31)) >> 32),
             "shf.l.wrap.b32 %0, %2, %1, %3;", "r")
GD_PTX_STEP3(shf_r_wrap, uint32_t, uint32_t((((uint64_t(a) << 32) | b) >> (c & 31))),
             "shf.r.wrap.b32 %0, %2, %1, %3;", "r")
// d = max(min(a, b), c): IMNMX twice (one min alone would let ptxas merge neighbours into a
// three-input VIMNMX3).
GD_PTX_STEP3(imin_imax_s32, uint32_t,
             uint32_t(std::max(std::min(bits_s32(a), bits_s32(b)), bits_s32(c))),
             "min.s32 %0, %1, %2;\n\tmax.s32 %0, %0, %3;", "r")
GD_PTX_STEP3(fsetp_fsel, float, a < b ? c : b,
             "{ .reg .pred p;\n\tsetp.lt.f32 p, %1, %2;\n\tselp.f32 %0, %3, %2, p; }", "f")
GD_PTX_STEP3(prmt, uint32_t, prmt_model(a, b, c), "prmt.b32 %0, %1, %2, %3;", "r")
GD_PTX_STEP3(dp4a_u32, uint32_t, dp4a_model(a, b, c), "dp4a.u32.u32 %0, %1, %2, %3;", "r")
GD_PTX_STEP3(dp2a_lo_u32, uint32_t, dp2a_lo_model(a, b, c), "dp2a.lo.u32.u32 %0, %1, %2, %3;", "r")
// d = (a < b) ? c : b: the chain runs through the predicate (ISETP, then SEL).
GD_PTX_STEP3(setp_sel, uint32_t, a < b ? c : b,
             "{ .reg .pred p;\n\tsetp.lt.u32 p, %1, %2;\n\tselp.b32 %0, %3, %2, p; }", "r")

// One-operand integer steps (b and c unused: the chain is the instruction alone).
#define GD_PTX_STEP1(name, T, expr, ptx_text, cons)                                              \
  __host__ __device__ __forceinline__ T name(T a) {                                             \
    GD_PTX_HOST_ONLY(return (expr);)                                                            \
    GD_PTX_DEVICE_ONLY(T d; asm volatile(ptx_text : "=" cons(d) : cons(a)); return d;)         \
  }
GD_PTX_STEP1(popc, uint32_t, uint32_t(__builtin_popcount(a)), "popc.b32 %0, %1;", "r")
// Position of the most significant set bit; 0xffffffff for 0 (FLO.U32).
GD_PTX_STEP1(bfind, uint32_t, a ? uint32_t(31 - __builtin_clz(a)) : 0xffffffffu, "bfind.u32 %0, %1;", "r")
GD_PTX_STEP1(brev, uint32_t, [](uint32_t v) { uint32_t r = 0; for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i); return r; }(a),
             "brev.b32 %0, %1;", "r")
GD_PTX_STEP1(iabs, uint32_t, uint32_t(bits_s32(a) < 0 ? 0u - a : a), "abs.s32 %0, %1;", "r")

// Bit mask of c & 31 ones starting at bit a & 31, clipped to 32 bits (bmsk.wrap).
__host__ __device__ __forceinline__ uint32_t bmsk_wrap(uint32_t a, uint32_t b) {
  GD_PTX_HOST_ONLY(return uint32_t((((uint64_t(1) << (b & 31)) - 1) << (a & 31)) & 0xffffffffu);)
  GD_PTX_DEVICE_ONLY(uint32_t d; asm volatile("bmsk.wrap.b32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d;)
}

// --- DPX and SIMD video intrinsics (CUDA's own, not PTX: the host models are the definitions) --
__host__ __device__ __forceinline__ uint32_t vimax3_s32(uint32_t a, uint32_t b, uint32_t c) {
  GD_PTX_HOST_ONLY(return uint32_t(std::max({bits_s32(a), bits_s32(b), bits_s32(c)}));)
  GD_PTX_DEVICE_ONLY(return uint32_t(__vimax3_s32(int(a), int(b), int(c)));)
}
// max(a + b, c), the add wrapping in 32 bits.
__host__ __device__ __forceinline__ uint32_t viaddmax_s32(uint32_t a, uint32_t b, uint32_t c) {
  GD_PTX_HOST_ONLY(return uint32_t(std::max(bits_s32(a + b), bits_s32(c)));)
  GD_PTX_DEVICE_ONLY(return uint32_t(__viaddmax_s32(int(a), int(b), int(c)));)
}
// Lane-wise 16-bit add, wrapping.
__host__ __device__ __forceinline__ uint32_t vadd2(uint32_t a, uint32_t b) {
  GD_PTX_HOST_ONLY(return ((a + b) & 0xffffu) | (((a >> 16) + (b >> 16)) << 16);)
  GD_PTX_DEVICE_ONLY(return __vadd2(a, b);)
}
// Lane-wise |a - b| of unsigned bytes.
__host__ __device__ __forceinline__ uint32_t vabsdiffu4(uint32_t a, uint32_t b) {
  GD_PTX_HOST_ONLY(uint32_t d = 0; for (int i = 0; i < 32; i += 8) {
    const uint32_t x = (a >> i) & 0xffu, y = (b >> i) & 0xffu;
    d |= (x > y ? x - y : y - x) << i;
  } return d;)
  GD_PTX_DEVICE_ONLY(return __vabsdiffu4(a, b);)
}

// --- FP32 / FP64 ----------------------------------------------------------------------------
#define GD_PTX_STEP2(name, T, expr, ptx_text, cons)                                              \
  __host__ __device__ __forceinline__ T name(T a, T b) {                                        \
    GD_PTX_HOST_ONLY(return (expr);)                                                            \
    GD_PTX_DEVICE_ONLY(T d; asm volatile(ptx_text : "=" cons(d) : cons(a), cons(b)); return d;) \
  }
// A 64-bit add: no single adder on sm_90 (IADD3 + IADD3.X with the carry), IADD.64 on sm_120.
GD_PTX_STEP2(iadd64, uint64_t, a + b, "add.u64 %0, %1, %2;", "l")
GD_PTX_STEP2(fadd_rn, float, a + b, "add.rn.f32 %0, %1, %2;", "f")
GD_PTX_STEP2(fmul_rn, float, a * b, "mul.rn.f32 %0, %1, %2;", "f")
GD_PTX_STEP2(fmin_f32, float, std::fmin(a, b), "min.f32 %0, %1, %2;", "f")
GD_PTX_STEP2(dadd_rn, double, a + b, "add.rn.f64 %0, %1, %2;", "d")
GD_PTX_STEP2(dmul_rn, double, a * b, "mul.rn.f64 %0, %1, %2;", "d")
GD_PTX_STEP2(dmin_f64, double, std::fmin(a, b), "min.f64 %0, %1, %2;", "d")
GD_PTX_STEP3(dfma_rn, double, std::fma(a, b, c), "fma.rn.f64 %0, %1, %2, %3;", "d")

// --- packed FP16 / BF16 (operands are the packed bits) ---------------------------------------
GD_PTX_STEP3(hadd2, uint32_t, lanes2(a, b, c, false, [](float x, float y, float) { return x + y; }),
             "add.rn.f16x2 %0, %1, %2;", "r")
GD_PTX_STEP3(hmul2, uint32_t, lanes2(a, b, c, false, [](float x, float y, float) { return x * y; }),
             "mul.rn.f16x2 %0, %1, %2;", "r")
GD_PTX_STEP3(hfma2, uint32_t, lanes2(a, b, c, false, [](float x, float y, float z) { return std::fma(x, y, z); }),
             "fma.rn.f16x2 %0, %1, %2, %3;", "r")
// max(min(a, b), c): a min alone would let ptxas merge neighbours into three-input VHMNMX.
GD_PTX_STEP3(hmin_hmax2, uint32_t,
             lanes2(a, b, c, false, [](float x, float y, float z) { return std::fmax(std::fmin(x, y), z); }),
             "min.f16x2 %0, %1, %2;\n\tmax.f16x2 %0, %0, %3;", "r")
GD_PTX_STEP3(bf16_fma2, uint32_t, lanes2(a, b, c, true, [](float x, float y, float z) { return std::fma(x, y, z); }),
             "fma.rn.bf16x2 %0, %1, %2, %3;", "r")

// --- SFU (MUFU): .approx.ftz, the single-instruction forms; host references are the exact
// functions, so results are compared with a tolerance ----------------------------------------
// 1 / -a: the negation is an operand modifier; without it ptxas folds rcp(rcp(x)) to x.
GD_PTX_STEP1(rcp_neg_approx, float, 1.0f / -a, "{ .reg .f32 n;\n\tneg.f32 n, %1;\n\trcp.approx.ftz.f32 %0, n; }", "f")
GD_PTX_STEP1(rsqrt_approx, float, 1.0f / std::sqrt(a), "rsqrt.approx.ftz.f32 %0, %1;", "f")
GD_PTX_STEP1(sqrt_approx, float, std::sqrt(a), "sqrt.approx.ftz.f32 %0, %1;", "f")
GD_PTX_STEP1(sin_approx, float, std::sin(a), "sin.approx.ftz.f32 %0, %1;", "f")
GD_PTX_STEP1(cos_approx, float, std::cos(a), "cos.approx.ftz.f32 %0, %1;", "f")
GD_PTX_STEP1(tanh_approx, float, std::tanh(a), "tanh.approx.f32 %0, %1;", "f")
// 2^-a: the negation is an operand modifier of MUFU.EX2, and keeps the chain contracting.
GD_PTX_STEP1(ex2_neg_approx, float, std::exp2(-a), "{ .reg .f32 n;\n\tneg.f32 n, %1;\n\tex2.approx.ftz.f32 %0, n; }", "f")
GD_PTX_STEP1(lg2_approx, float, std::log2(a), "lg2.approx.ftz.f32 %0, %1;", "f")

// --- conversions (round trips, so the chain stays in one type) -------------------------------
GD_PTX_STEP1(f32_f16_f32, float, half_bits_to_float(float_to_half_bits(a)),
             "{ .reg .b16 h;\n\tcvt.rn.f16.f32 h, %1;\n\tcvt.f32.f16 %0, h; }", "f")
GD_PTX_STEP1(f32_bf16_f32, float, bf16_bits_to_float(float_to_bf16_bits(a)),
             "{ .reg .b16 h;\n\tcvt.rn.bf16.f32 h, %1;\n\tcvt.f32.bf16 %0, h; }", "f")
GD_PTX_STEP1(f64_f32_f64, double, double(float(a)),
             "{ .reg .f32 s;\n\tcvt.rn.f32.f64 s, %1;\n\tcvt.f64.f32 %0, s; }", "d")
GD_PTX_STEP1(f32_s32_f32, float, float(int32_t(std::nearbyint(a))),
             "{ .reg .s32 i;\n\tcvt.rni.s32.f32 i, %1;\n\tcvt.rn.f32.s32 %0, i; }", "f")
GD_PTX_STEP1(f64_s32_f64, double, double(int32_t(std::nearbyint(a))),
             "{ .reg .s32 i;\n\tcvt.rni.s32.f64 i, %1;\n\tcvt.rn.f64.s32 %0, i; }", "d")
// Packs two floats into bf16x2 (F2FP) and widens the high half (a's) back.
GD_PTX_STEP2(f2fp_bf16x2_hi, float, bf16_bits_to_float(float_to_bf16_bits(a)),
             "{ .reg .b32 p;\n\t.reg .b16 lo, hi;\n\tcvt.rn.bf16x2.f32 p, %1, %2;\n\tmov.b32 {lo, hi}, p;\n\tcvt.f32.bf16 %0, hi; }", "f")

#undef GD_PTX_STEP1
#undef GD_PTX_STEP2
#undef GD_PTX_STEP3
#undef GD_PTX_DEVICE_ONLY
#undef GD_PTX_HOST_ONLY

// --- loads with an explicit cache policy (pointer chasing) ----------------------------------
// A plain weak load (default .ca policy): plain LDG.E.64, cached in L1 and L2, the load ordinary
// code issues. An explicit ld.global.ca would become LDG.E.64.STRONG.SM on sm_90, not the same.
__device__ __forceinline__ const void* ld_ptr(const void* const* p) {
  const void* v;
  asm volatile("ld.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// .cg caches in L2 only (LDG.E.64.STRONG.GPU on sm_90), so the chase sees L2 even for tiny sets.
__device__ __forceinline__ const void* ld_cg_ptr(const void* const* p) {
  const void* v;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// --- 16-byte streaming accesses (bandwidth) --------------------------------------------------
__device__ __forceinline__ int4 ld_nc_v4(const int4* p) {
  int4 v;
  asm volatile("ld.global.nc.v4.s32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

// .cs (evict-first) keeps streamed-out data from displacing what is still to be read.
__device__ __forceinline__ void st_cs_v4(int4* p, int4 v) {
  asm volatile("st.global.cs.v4.s32 [%0], {%1, %2, %3, %4};"
               :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}

__device__ __forceinline__ float4 ld_nc_f4(const float4* p) {
  float4 v;
  asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}

__device__ __forceinline__ void st_cs_f4(float4* p, float4 v) {
  asm volatile("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};"
               :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}

}  // namespace gd::ptx
