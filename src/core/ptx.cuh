// Every inline PTX the probes use, as small named wrappers (reviewed once, SASS-tested once).
// `volatile` keeps ptxas from merging or hoisting them; operands are registers so nothing folds.
#pragma once
#include <cmath>
#include <cstdint>

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
