// ISA corpus (compiled by `gpudissect isa` with nvcc at run time, not by the build): global and
// shared atomics and reductions of every kind, warp collectives (shfl/vote/match/redux), CTA
// barriers, memory fences, scoped/ordered loads and stores, cache hints and prefetches.
// Every kernel reads its inputs from memory or parameters and writes its results.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// ATOMG / ATOM / RED: integer atomics on global memory, 32- and 64-bit, with and without return.
extern "C" __global__ void corpus_global_atomics(int* o, int* g, unsigned long long* g64, const int* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  unsigned u = unsigned(v);
  int r = 0;
  r += atomicAdd(g + 0, v);
  r += atomicSub(g + 1, v);
  r += atomicMin(g + 2, v) + atomicMax(g + 3, v);
  r += int(atomicMin(reinterpret_cast<unsigned*>(g) + 4, u)) + int(atomicMax(reinterpret_cast<unsigned*>(g) + 5, u));
  r += atomicAnd(g + 6, v) ^ atomicOr(g + 7, v) ^ atomicXor(g + 8, v);
  r += atomicExch(g + 9, v) + atomicCAS(g + 10, v, r);
  r += int(atomicInc(reinterpret_cast<unsigned*>(g) + 11, u)) + int(atomicDec(reinterpret_cast<unsigned*>(g) + 12, u));
  unsigned long long w = (unsigned long long)u << 3;
  r += int(atomicAdd(g64 + 0, w)) + int(atomicCAS(g64 + 1, w, 7ull)) + int(atomicExch(g64 + 2, w));
  r += int(atomicMin(g64 + 3, w)) + int(atomicMax(reinterpret_cast<long long*>(g64) + 4, (long long)v));
  r += int(atomicAnd(g64 + 5, w) | atomicOr(g64 + 6, w) | atomicXor(g64 + 7, w));
  // reductions (no return value used): RED
  atomicAdd(g + 16, v);
  atomicMin(g + 17, v);
  atomicOr(g + 18, v);
  atomicAdd(g64 + 8, w);
  asm volatile("red.relaxed.gpu.global.add.u32 [%0], %1;" ::"l"(g + 19), "r"(u) : "memory");
  asm volatile("red.release.sys.global.max.s32 [%0], %1;" ::"l"(g + 20), "r"(v) : "memory");
  int sc;
  asm volatile("atom.acquire.cta.global.exch.b32 %0, [%1], %2;" : "=r"(sc) : "l"(g + 21), "r"(v) : "memory");
  int cas16;
  asm volatile("atom.acq_rel.gpu.global.cas.b32 %0, [%1], %2, %3;" : "=r"(cas16) : "l"(g + 22), "r"(v), "r"(r) : "memory");
  o[i] = r + sc + cas16;
}

// Floating-point atomics: f32, f64, f16x2, bf16x2 add (ATOMG.ADD.F32..., RED.ADD.F16x2...), fp min/max.
extern "C" __global__ void corpus_fp_atomics(float* o, float* gf, double* gd, __half2* gh, __nv_bfloat162* gb,
                                             const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  float r = atomicAdd(gf, v);
  atomicAdd(gf + 1, v * 2.f);
  r += float(atomicAdd(gd, double(v)));
  atomicAdd(gd + 1, double(r));
  __half2 h = atomicAdd(gh, __floats2half2_rn(v, r));
  atomicAdd(gh + 1, h);
  __nv_bfloat162 b = atomicAdd(gb, __floats2bfloat162_rn(r, v));
  atomicAdd(gb + 1, b);
  __half hs = atomicAdd(reinterpret_cast<__half*>(gh + 2), __float2half(v));
  unsigned mxb, mxb2, vb = *reinterpret_cast<unsigned*>(&b);
  asm volatile("atom.global.max.noftz.v2.bf16x2 {%0, %1}, [%2], {%3, %4};"
               : "=r"(mxb), "=r"(mxb2) : "l"(gb + 2), "r"(vb), "r"(vb ^ 1u) : "memory");
  asm volatile("red.global.min.noftz.v2.f16x2 [%0], {%1, %2};" ::"l"(gh + 4), "r"(mxb), "r"(mxb2) : "memory");
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};" ::"l"(gf + 4), "f"(v), "f"(r) : "memory");
  float mx = __uint_as_float(mxb);
  o[i] = r + __low2float(h) + __high2float(b) + __half2float(hs) + mx;
}

// ATOMS: shared-memory atomics (integer, CAS, float) and their results.
extern "C" __global__ void corpus_shared_atomics(int* o, const int* in, int n) {
  __shared__ int s[64];
  __shared__ float sf[4];
  __shared__ unsigned long long s64[4];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 64) s[threadIdx.x] = in[threadIdx.x + n];
  if (threadIdx.x < 4) sf[threadIdx.x] = 0.f, s64[threadIdx.x] = 0;
  __syncthreads();
  int v = in[i];
  int r = atomicAdd(&s[0], v) + atomicMin(&s[1], v) + atomicMax(&s[2], v);
  r += atomicAnd(&s[3], v) ^ atomicOr(&s[4], v) ^ atomicXor(&s[5], v);
  r += atomicExch(&s[6], v) + atomicCAS(&s[7], v, r);
  r += int(atomicInc(reinterpret_cast<unsigned*>(&s[8]), 17u));
  atomicAdd(&s[9], 1);
  atomicMax(&s[10], v);
  r += int(atomicAdd(&sf[0], float(v)));
  r += int(atomicAdd(&s64[0], (unsigned long long)v)) + int(atomicCAS(&s64[1], 3ull, (unsigned long long)r));
  __syncthreads();
  o[i] = r + s[threadIdx.x & 63];
}

// SHFL / VOTE / MATCH / REDUX: every warp collective with register and immediate lanes.
extern "C" __global__ void corpus_warp_collectives(int* o, const int* in, unsigned mask, int lane, int width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  float f = __int_as_float(in[i + 1]);
  v += __shfl_sync(0xffffffff, v, 3) + __shfl_sync(0xffffffff, v, lane, width);
  v += __shfl_up_sync(0xffffffff, v, 1) + __shfl_up_sync(0xffffffff, v, lane & 7, 16);
  v += __shfl_down_sync(0xffffffff, v, 16) + __shfl_down_sync(mask | 1, v, lane & 3);
  v += __shfl_xor_sync(0xffffffff, v, 8) + __shfl_xor_sync(0xffffffff, v, lane & 31, 8);
  f += __shfl_xor_sync(0xffffffff, f, 1);
  double d = __shfl_sync(0xffffffff, double(f), lane);
  v += __ballot_sync(0xffffffff, v > 0) + __any_sync(mask, v == 0) + __all_sync(0xffffffff, v < 9);
  v += __uni_sync(0xffffffff, v & 1);
  int pred;
  v += __match_all_sync(0xffffffff, v >> 3, &pred) + pred;
  v += __match_any_sync(0xffffffff, (long long)v << 20);
  v += __reduce_add_sync(0xffffffff, v) + __reduce_min_sync(0xffffffff, v) + __reduce_max_sync(0xffffffff, unsigned(v));
  v += __reduce_and_sync(0xffffffff, unsigned(v)) | __reduce_or_sync(0xffffffff, unsigned(v)) |
       __reduce_xor_sync(0xffffffff, unsigned(v));
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
  float fm;
  asm volatile("redux.sync.max.abs.NaN.f32 %0, %1, 0xffffffff;" : "=f"(fm) : "f"(f));
  f += fm;
#endif
  unsigned lt, ge;
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  asm volatile("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
  v += __activemask() + int(lt ^ ge);
  o[i] = v + int(d) + __float_as_int(f);
}

// BAR / named barriers / barrier reductions, warp sync, nanosleep, clocks and special registers.
extern "C" __global__ void corpus_barriers(int* o, const int* in, int n) {
  __shared__ int s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  s[threadIdx.x] = v;
  __syncthreads();
  v += s[threadIdx.x ^ 1];
  v += __syncthreads_count(v > 0) + __syncthreads_and(v & 1) + __syncthreads_or(v & 2);
  if (threadIdx.x < 64) {
    asm volatile("bar.sync 1, 64;" ::: "memory");
  } else {
    asm volatile("bar.arrive 1, 64;" ::: "memory");
  }
  asm volatile("barrier.sync.aligned 2, %0;" ::"r"(blockDim.x) : "memory");
  unsigned red;
  asm volatile("{ .reg .pred p; setp.ne.s32 p, %1, 0; bar.red.popc.u32 %0, 3, p; }" : "=r"(red) : "r"(v & 4));
  __syncwarp(0xffffffff);
  __nanosleep(unsigned(n) & 255);
  long long t0 = clock64();
  unsigned smid, warpid, gt;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
  asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(gt));
  long long t1 = clock64();
  o[i] = v + int(red) + int(t1 - t0) + int(smid + warpid + gt);
}

// MEMBAR / FENCE / ordered and scoped loads and stores (LDG/STG .STRONG/.CONSTANT, .SYS/.GPU).
extern "C" __global__ void corpus_fences_and_scopes(int* o, int* flag, const int* __restrict__ in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v, w, x, y, z;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(in + i));
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(w) : "l"(flag + 1));
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(x) : "l"(flag + 2));
  asm volatile("ld.acquire.cta.global.u32 %0, [%1];" : "=r"(y) : "l"(flag + 3));
  asm volatile("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(z) : "l"(in + i + n));
  __threadfence_block();
  __threadfence();
  __threadfence_system();
  asm volatile("fence.acq_rel.cta;" ::: "memory");
  asm volatile("fence.sc.gpu;" ::: "memory");
  asm volatile("fence.sc.sys;" ::: "memory");
  asm volatile("fence.proxy.alias;" ::: "memory");
  asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(o + i + n), "r"(v));
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(o + i + 2 * n), "r"(w));
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(flag + 4), "r"(x));
  asm volatile("st.release.cta.global.u32 [%0], %1;" ::"l"(flag + 5), "r"(y));
  asm volatile("st.global.wb.u32 [%0], %1;" ::"l"(o + i + 3 * n), "r"(z));
  o[i] = __ldcg(in + i) + __ldca(in + i + 1) + __ldcs(in + i + 2) + __ldlu(in + i + 3) + __ldcv(in + i + 4);
  __stcg(o + i + 4 * n, v);
  __stcs(o + i + 5 * n, w);
  __stwt(o + i + 6 * n, x);
}

// Cache control: prefetch, discard, createpolicy + L2::cache_hint, L2::256B / evict hints, vector widths.
extern "C" __global__ void corpus_cache_hints(float* o, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float* p = in + i;
  asm volatile("prefetch.global.L1 [%0];" ::"l"(p + 1024));
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p + 2048));
  asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(p + 4096));
  asm volatile("prefetchu.L1 [%0];" ::"l"(p + 8192));
  unsigned long long pol, pol2;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
  asm volatile("createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %0, 0.5;" : "=l"(pol2));
  float a, b, c;
  asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(a) : "l"(p), "l"(pol));
  asm volatile("ld.global.L1::evict_first.L2::256B.f32 %0, [%1];" : "=f"(b) : "l"(p + n));
  asm volatile("ld.global.nc.L1::evict_last.L2::128B.f32 %0, [%1];" : "=f"(c) : "l"(p + 2 * n));
  float4 v4;
  asm volatile("ld.global.L2::64B.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v4.x), "=f"(v4.y), "=f"(v4.z), "=f"(v4.w)
               : "l"(reinterpret_cast<const float4*>(in) + i));
  double2 d2 = reinterpret_cast<const double2*>(in)[i + n];
  unsigned short h = reinterpret_cast<const unsigned short*>(in)[i];
  signed char sb = reinterpret_cast<const signed char*>(in)[i + 3];
  asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" ::"l"(o + i), "f"(a + b + c), "l"(pol2));
  asm volatile("st.global.L1::no_allocate.v2.f32 [%0], {%1, %2};" ::"l"(reinterpret_cast<float2*>(o) + i + n),
               "f"(v4.x + v4.y), "f"(v4.z + v4.w));
  reinterpret_cast<double2*>(o)[i + 2 * n] = d2;
  reinterpret_cast<unsigned short*>(o)[i + 8 * n] = h;
  reinterpret_cast<signed char*>(o)[i + 20 * n] = sb;
  if (a > 1e30f) asm volatile("discard.global.L2 [%0], 128;" ::"l"(o + (i & ~31)) : "memory");
  asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(in + (i & ~31)) : "memory");
}

// Local memory (STL/LDL) via an indexed private array, and generic-address loads/stores (LD/ST).
extern "C" __global__ void corpus_local_and_generic(int* o, const int* in, int* maybe_shared, int sel, int n) {
  __shared__ int s[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  volatile int priv[48];
  for (int k = 0; k < 48; ++k) priv[k] = in[i + k * n];
  s[threadIdx.x & 127] = priv[sel % 48];
  __syncthreads();
  int* p = (sel & 1) ? s + (threadIdx.x & 127) : maybe_shared + i;  // generic pointer
  *p += priv[(sel + 5) % 48];
  bool is_sh = __isShared(p);
  unsigned long long sp = __cvta_generic_to_shared(s + 3);
  o[i] = *p + int(is_sh) + int(sp);
}
