// ISA corpus (compiled by `gpudissect isa` with nvcc at run time, not by the build): MUFU special
// functions, packed f16x2/bf16x2 arithmetic, conversions (incl. FP8 packs), integer bit tricks
// (POPC, FLO, BREV, PRMT, SHF, IMAD.HI/WIDE, DP4A/DP2A, BMSK, SGXT, LEA) and FP64.
// Every kernel reads its inputs from memory or parameters and writes its results, so nothing
// is dead code. Builds for sm_90a, sm_100a and sm_120a.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

// MUFU: every special-function unit op, through PTX approx instructions (no library rewrites).
extern "C" __global__ void corpus_mufu(float* o, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = in[i], b = in[i + n];
  float r[8];
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r[0]) : "f"(a));
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r[1]) : "f"(b));
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r[2]) : "f"(a));
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r[3]) : "f"(b));
  asm("sin.approx.ftz.f32 %0, %1;" : "=f"(r[4]) : "f"(a));
  asm("cos.approx.ftz.f32 %0, %1;" : "=f"(r[5]) : "f"(b));
  asm("tanh.approx.f32 %0, %1;" : "=f"(r[6]) : "f"(a));
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r[7]) : "f"(b));
  for (int k = 0; k < 8; ++k) o[i + k * n] = r[k];
  // non-ftz / f64 rcp approximations and the f16 MUFU forms
  double d;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(d) : "d"(double(a)));
  unsigned short h, hin = __half_as_ushort(__float2half(b));
  asm("ex2.approx.f16 %0, %1;" : "=h"(h) : "h"(hin));
  unsigned h2, h2in = in[i + 2 * n] > 0.f ? 0x3c003c00u : 0x40004000u;
  asm("tanh.approx.f16x2 %0, %1;" : "=r"(h2) : "r"(h2in));
  o[i + 8 * n] = float(d) + __half2float(__ushort_as_half(h)) + __uint_as_float(h2);
}

// HFMA2/HADD2/HMUL2/HMNMX2 and friends: packed half and bfloat16 arithmetic.
extern "C" __global__ void corpus_packed_half(__half2* oh, __nv_bfloat162* ob, const __half2* ih,
                                              const __nv_bfloat162* ib, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __half2 a = ih[i], b = ih[i + n], c = ih[i + 2 * n];
  __half2 r = __hfma2(a, b, c);
  r = __hadd2(r, __hmul2(a, c));
  r = __hmin2(r, __hmax2(b, c));
  r = __hfma2_relu(r, a, b);
  r = __hadd2_sat(r, __habs2(c));
  r = __hmax2_nan(r, __hneg2(a));
  r = __hsub2(r, h2exp2(b));
  r = __hmul2(r, h2rsqrt(a));
  unsigned cmp = __hlt2_mask(a, b) ^ __hge2_mask(b, c);
  oh[i] = r;
  oh[i + n] = __halves2half2(__hfma(__low2half(a), __high2half(b), __low2half(c)),
                             __hmax(__high2half(a), __low2half(b)));
  __nv_bfloat162 x = ib[i], y = ib[i + n], z = ib[i + 2 * n];
  __nv_bfloat162 s = __hfma2(x, y, z);
  s = __hadd2(s, __hmul2(x, z));
  s = __hmin2(s, __hmax2(y, z));
  s = __hfma2_relu(s, x, y);
  s = __hsub2(s, __habs2(z));
  ob[i] = s;
  ob[i + n] = __floats2bfloat162_rn(float(cmp), __bfloat162float(__hfma(__low2bfloat16(x), __high2bfloat16(y),
                                                                     __low2bfloat16(z))));
}

// F2F/F2I/I2F/F2FP: conversions between every width, rounding mode and FP8 packs.
extern "C" __global__ void corpus_convert(unsigned* o, const float* in, const double* ind, const long long* inl,
                                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = in[i], b = in[i + n];
  double d = ind[i];
  long long l = inl[i];
  unsigned r = 0;
  r += unsigned(__float2int_rd(a)) + unsigned(__float2int_ru(b)) + __float2uint_rn(a);
  r += unsigned(__float2ll_rz(a)) + unsigned(__float2ull_rn(b));
  r += unsigned(__double2int_rz(d)) + unsigned(__double2ll_rn(d)) + unsigned(__double2uint_ru(d));
  r += __float_as_uint(__ll2float_rn(l)) + __float_as_uint(__ull2float_rz((unsigned long long)l));
  r += __float_as_uint(__int2float_rd(int(l))) + __float_as_uint(__uint2float_ru(unsigned(l)));
  r += __float_as_uint(float(__ll2double_rn(l) * d)) + __float_as_uint(__double2float_rd(d));
  r += __float_as_uint(float(__int2double_rn(int(l)) + d));
  // half / bfloat16 packs (F2FP) and unpacks
  __half2 h2 = __floats2half2_rn(a, b);
  __nv_bfloat162 b2 = __floats2bfloat162_rn(b, a);
  r ^= *reinterpret_cast<unsigned*>(&h2) ^ *reinterpret_cast<unsigned*>(&b2);
  r += __half_as_ushort(__float2half_rz(a)) + __bfloat16_as_ushort(__float2bfloat16_rd(b));
  r += __half_as_ushort(__double2half(d)) + __half_as_ushort(__int2half_rn(int(l)));
  r += unsigned(__half2int_rz(__float2half(b))) + unsigned(__bfloat162int_rn(__float2bfloat16(a)));
  // FP8 e4m3 / e5m2 saturating packs and unpacks
  unsigned short e4, e5;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(e4) : "f"(a), "f"(b));
  asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(e5) : "f"(b), "f"(a));
  unsigned back4, back5;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(back4) : "h"(e4));
  asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(back5) : "h"(e5));
  unsigned short e4h;
  asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(e4h) : "r"(back5));
  // f32 -> f16x2 / bf16x2 with relu, tf32 rounding
  unsigned pk, pkb, tf;
  asm("cvt.rn.relu.f16x2.f32 %0, %1, %2;" : "=r"(pk) : "f"(a), "f"(b));
  asm("cvt.rz.satfinite.bf16x2.f32 %0, %1, %2;" : "=r"(pkb) : "f"(b), "f"(a));
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(tf) : "f"(a));
  r += e4 + e5 + back4 + back5 + e4h + pk + pkb + tf;
  // float rounding to integer values, f32 <-> f64 both ways with modes
  r += __float_as_uint(rintf(a) + nearbyintf(b) + roundf(a)) + unsigned(float(d) > a);
  o[i] = r;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
// Blackwell-only packs: e2m1 (fp4), e2m3/e3m2 (fp6) and ue8m0 scale conversions.
extern "C" __global__ void corpus_convert_fp4_fp6(unsigned* o, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = in[i], b = in[i + n];
  unsigned r = 0;
#if defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM120_ALL)
  unsigned short f6a, f6b, ue8;
  unsigned back;
  asm("{ .reg .b8 t; cvt.rn.satfinite.e2m1x2.f32 t, %1, %2; cvt.u32.u8 %0, t; }" : "=r"(r) : "f"(a), "f"(b));
  asm("cvt.rn.satfinite.e2m3x2.f32 %0, %1, %2;" : "=h"(f6a) : "f"(a), "f"(b));
  asm("cvt.rn.satfinite.e3m2x2.f32 %0, %1, %2;" : "=h"(f6b) : "f"(b), "f"(a));
  asm("cvt.rz.satfinite.ue8m0x2.f32 %0, %1, %2;" : "=h"(ue8) : "f"(a), "f"(b));
  asm("cvt.rn.f16x2.e2m3x2 %0, %1;" : "=r"(back) : "h"(f6a));
  r += f6a + f6b + ue8 + back;
#endif
  o[i] = r;
}
#endif

// Integer bit manipulation and multiply forms.
extern "C" __global__ void corpus_int_bits(unsigned* o, const unsigned* in, unsigned s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned a = in[i], b = in[i + n], c = in[i + 2 * n];
  unsigned r = __popc(a) + __popcll((unsigned long long)b << 32 | c) + __clz(int(b)) + __clzll((long long)a);
  r += __brev(c) ^ unsigned(__brevll((unsigned long long)a << 7));
  r += __byte_perm(a, b, s) + __byte_perm(b, c, 0x3210 ^ (s & 0x7777));
  r += __funnelshift_l(a, b, s) + __funnelshift_rc(b, c, s) + __funnelshift_r(c, a, 5);
  r += __umulhi(a, b) + unsigned(__mulhi(int(b), int(c)));
  unsigned long long w = (unsigned long long)a * b + c;
  long long ws = (long long)int(a) * int(c);
  r += unsigned(w >> 32) + unsigned(ws >> 20) + unsigned(__umul64hi(w, (unsigned long long)c));
  r += unsigned(__dp4a(int(a), int(b), int(c))) + __dp4a(a, c, b);
  r += unsigned(__dp2a_lo(int(a), int(b), int(c))) + __dp2a_hi(b, a, c);
  r += unsigned(max(int(a), int(b))) + min(b, c) + unsigned(abs(int(c - a)));
  r += __vabsdiffu4(a, b) + __vadd4(b, c) + __vmaxu2(a, c) + __vcmpgtu4(b, a);
  r += __vimax3_s32(int(a), int(b), int(c)) + __vimin_s32_relu(int(b), int(c));
  r += __uhadd(a, b) + unsigned(__rhadd(int(b), int(c))) + __sad(int(a), int(c), b);
  unsigned m, sx, bf, bfi;
  asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(m) : "r"(a & 31), "r"(s));
  asm("szext.wrap.s32 %0, %1, %2;" : "=r"(sx) : "r"(b), "r"(s));
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(bf) : "r"(c), "r"(s & 15), "r"(7u));
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(bfi) : "r"(a), "r"(b), "r"(s & 15), "r"(9u));
  unsigned fl, fls;
  asm("bfind.u32 %0, %1;" : "=r"(fl) : "r"(c));
  asm("bfind.shiftamt.s32 %0, %1;" : "=r"(fls) : "r"(a));
  r += m + sx + bf + bfi + fl + fls;
  // address-style arithmetic (LEA, LEA.HI) and 64-bit adds/shifts
  const unsigned long long* p = reinterpret_cast<const unsigned long long*>(in);
  unsigned long long q = p[(a & 0xff) + (unsigned long long)c * 3] + (w << (s & 63)) + (w >> (b & 63));
  o[i] = r + unsigned(q) + unsigned(q >> 40);
}

// FP64: DADD/DMUL/DFMA/DSETP/DMNMX, plus the slow-path division and square root.
extern "C" __global__ void corpus_fp64_ops(double* o, const double* in, double k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double a = in[i], b = in[i + n], c = in[i + 2 * n];
  double r = __fma_rn(a, b, c) + __dadd_rz(a, k) + __dmul_ru(b, c) - __dsub_rd(c, a);
  r += fmax(a, b) + fmin(b, c) + fabs(c) + copysign(a, b);
  r += __drcp_rn(b) + __dsqrt_rn(fabs(a)) + __ddiv_rn(a, c);
  r += floor(a) + ceil(b) + trunc(c) + rint(a);
  r += double(__double2hiint(a) ^ __double2loint(b));
  bool p = (a < b) != (c >= k) || isnan(a) || a == c;
  o[i] = p ? r : -r;
}

// FP32 min/max/setp with NaN propagation, ftz and saturation variants, and FMUL/FADD rounding modes.
extern "C" __global__ void corpus_fp32_modes(float* o, const float* in, float k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = in[i], b = in[i + n], c = in[i + 2 * n];
  float r = __fadd_rd(a, b) + __fmul_ru(b, c) + __fmaf_rz(a, c, k) + __fsub_rn(c, b);
  r += __fsqrt_rn(fabsf(a)) + __frcp_rn(b) + __fdiv_rn(c, a);
  float mx, mn;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(mx) : "f"(a), "f"(b));
  asm("min.xorsign.abs.f32 %0, %1, %2;" : "=f"(mn) : "f"(b), "f"(c));
  float fs;
  asm("fma.rn.sat.f32 %0, %1, %2, %3;" : "=f"(fs) : "f"(a), "f"(b), "f"(c));
  unsigned fin;
  asm("{ .reg .pred q; testp.finite.f32 q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(fin) : "f"(a));
  r += float(fin) + mx + mn + fs + copysignf(a, c) + fdimf(b, c);
  o[i] = (isinf(a) || isnan(b)) ? k : r;
}
