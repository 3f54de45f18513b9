// Memory-hierarchy PTX as named wrappers: loads and stores over an access width (4, 8 or 16 bytes),
// shared loads, timed single loads, atomics and reductions, and one 64-bit load/store per cache operator.
#pragma once
#include <cstdint>

#include "ptx.cuh"

namespace gd::ptx {

// The register type of one access of W bytes.
template <int W> struct VecOf;
template <> struct VecOf<4> { using type = unsigned; };
template <> struct VecOf<8> { using type = uint2; };
template <> struct VecOf<16> { using type = uint4; };
template <int W> using Vec = typename VecOf<W>::type;

template <int W>
__device__ __forceinline__ Vec<W> splat(unsigned v) {
  if constexpr (W == 4) return v;
  else if constexpr (W == 8) return make_uint2(v, v ^ 1u);
  else return make_uint4(v, v ^ 1u, v ^ 2u, v ^ 3u);
}

template <int W>
__device__ __forceinline__ unsigned fold(Vec<W> v) {
  if constexpr (W == 4) return v;
  else if constexpr (W == 8) return v.x ^ v.y;
  else return v.x ^ v.y ^ v.z ^ v.w;
}

// One PTX load/store text per (operator, width): the operator string is spliced into the
// instruction, so every variant is the same wrapper.
#define GD_PTX_LD_W(name, op)                                                                          \
  template <int W>                                                                                     \
  __device__ __forceinline__ Vec<W> name(const Vec<W>* p) {                                            \
    Vec<W> v;                                                                                          \
    if constexpr (W == 4) asm volatile("ld.global" op ".u32 %0, [%1];" : "=r"(v) : "l"(p));           \
    else if constexpr (W == 8) asm volatile("ld.global" op ".v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p)); \
    else asm volatile("ld.global" op ".v4.u32 {%0, %1, %2, %3}, [%4];"                                \
                      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));                          \
    return v;                                                                                          \
  }
// ld.global.nc: the read-only (texture) path, LDG.E.*.CONSTANT on sm_90.
GD_PTX_LD_W(ldw_nc, ".nc")
// The plain weak load (default .ca): LDG.E.*, cached in L1 and L2.
GD_PTX_LD_W(ldw_plain, "")
// .cg: cached in L2 only (LDG.E.*.STRONG.GPU on sm_90), so repeated reads are served by L2.
GD_PTX_LD_W(ldw_cg, ".cg")
#undef GD_PTX_LD_W

#define GD_PTX_ST_W(name, op)                                                                          \
  template <int W>                                                                                     \
  __device__ __forceinline__ void name(Vec<W>* p, Vec<W> v) {                                          \
    if constexpr (W == 4) asm volatile("st.global" op ".u32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); \
    else if constexpr (W == 8) asm volatile("st.global" op ".v2.u32 [%0], {%1, %2};" :: "l"(p), "r"(v.x), "r"(v.y) : "memory"); \
    else asm volatile("st.global" op ".v4.u32 [%0], {%1, %2, %3, %4};"                                 \
                      :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");                   \
  }
// The plain write-back store (STG.E.*): what ordinary code emits.
GD_PTX_ST_W(stw_plain, "")
// .cs, evict-first (STG.E.EF.*).
GD_PTX_ST_W(stw_cs, ".cs")
#undef GD_PTX_ST_W

// ld.shared of W bytes at a shared-window address (LDS, LDS.64, LDS.128).
template <int W>
__device__ __forceinline__ Vec<W> ldsw(unsigned addr) {
  Vec<W> v;
  if constexpr (W == 4) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr));
  else if constexpr (W == 8) asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "r"(addr));
  else asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr));
  return v;
}

// Cycles of one .cg load of the pointer at p (served by L2 or beyond), clock to clock; *next gets
// the loaded pointer. The data is consumed (xor with `zero`, 0 at run time) before the second
// clock read, so the read waits for it. The figure includes the fixed cost of the clock read and
// the xor: callers compare lines with each other.
__device__ __forceinline__ long long timed_chase_cg(const void* p, unsigned long long zero, const void** next) {
  unsigned long long v;
  long long t0, t1;
  asm volatile(
      "{\n\t.reg .u64 w;\n\t"
      "mov.u64 %0, %%clock64;\n\t"
      "ld.global.cg.u64 w, [%3];\n\t"
      "xor.b64 %2, w, %4;\n\t"
      "mov.u64 %1, %%clock64;\n\t}"
      : "=l"(t0), "=l"(t1), "=l"(v)
      : "l"(p), "l"(zero)
      : "memory");
  *next = reinterpret_cast<const void*>(v);
  return t1 - t0;
}

}  // namespace gd::ptx

namespace gd::ptx::atomic {

// One atomic or reduction per struct: apply_global on a global pointer, apply_shared on a
// shared-window address; each returns the old value (a reduction, which returns nothing, its
// operand). `tag` names the row in the SASS expectations and the probe's axis.
#define GD_ATOM_RET(Name, op_type, T, cons)                                                              \
  struct Name {                                                                                        \
    using type = T;                                                                                    \
    static constexpr bool returns = true;                                                              \
    static __device__ __forceinline__ T apply_global(T* p, T v) {                                      \
      T old;                                                                                           \
      asm volatile("atom.global" op_type " %0, [%1], %2;" : "=" cons(old) : "l"(p), cons(v) : "memory"); \
      return old;                                                                                      \
    }                                                                                                  \
    static __device__ __forceinline__ T apply_shared(unsigned a, T v) {                                \
      T old;                                                                                           \
      asm volatile("atom.shared" op_type " %0, [%1], %2;" : "=" cons(old) : "r"(a), cons(v) : "memory"); \
      return old;                                                                                      \
    }                                                                                                  \
  };
GD_ATOM_RET(AddU32, ".add.u32", unsigned, "r")
GD_ATOM_RET(AddF32, ".add.f32", float, "f")
GD_ATOM_RET(AddF64, ".add.f64", double, "d")
GD_ATOM_RET(AddF16x2, ".add.noftz.f16x2", unsigned, "r")
GD_ATOM_RET(MinU32, ".min.u32", unsigned, "r")
GD_ATOM_RET(MaxS32, ".max.s32", int, "r")
GD_ATOM_RET(ExchB32, ".exch.b32", unsigned, "r")
#undef GD_ATOM_RET

// Scoped adds (global only; shared memory is CTA-scoped by nature).
#define GD_ATOM_SCOPED(Name, scope)                                                                     \
  struct Name {                                                                                        \
    using type = unsigned;                                                                             \
    static constexpr bool returns = true;                                                              \
    static __device__ __forceinline__ unsigned apply_global(unsigned* p, unsigned v) {                 \
      unsigned old;                                                                                    \
      asm volatile("atom.relaxed" scope ".global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory"); \
      return old;                                                                                      \
    }                                                                                                  \
    static __device__ __forceinline__ unsigned apply_shared(unsigned, unsigned v) { return v; }        \
  };
GD_ATOM_SCOPED(AddU32Cta, ".cta")
GD_ATOM_SCOPED(AddU32Sys, ".sys")
#undef GD_ATOM_SCOPED

// Compare-and-swap that succeeds when the word holds v (it then holds v + 1).
struct CasB32 {
  using type = unsigned;
  static constexpr bool returns = true;
  static __device__ __forceinline__ unsigned apply_global(unsigned* p, unsigned v) {
    unsigned old;
    asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;" : "=r"(old) : "l"(p), "r"(v), "r"(v + 1) : "memory");
    return old;
  }
  static __device__ __forceinline__ unsigned apply_shared(unsigned a, unsigned v) {
    unsigned old;
    asm volatile("atom.shared.cas.b32 %0, [%1], %2, %3;" : "=r"(old) : "r"(a), "r"(v), "r"(v + 1) : "memory");
    return old;
  }
};

// Reductions: no value comes back (RED), so they have a throughput but no latency chain.
#define GD_RED(Name, op_type, T, cons)                                                                   \
  struct Name {                                                                                        \
    using type = T;                                                                                    \
    static constexpr bool returns = false;                                                             \
    static __device__ __forceinline__ T apply_global(T* p, T v) {                                      \
      asm volatile("red.global" op_type " [%0], %1;" :: "l"(p), cons(v) : "memory");                    \
      return v;                                                                                        \
    }                                                                                                  \
    static __device__ __forceinline__ T apply_shared(unsigned a, T v) {                                \
      asm volatile("red.shared" op_type " [%0], %1;" :: "r"(a), cons(v) : "memory");                    \
      return v;                                                                                        \
    }                                                                                                  \
  };
GD_RED(RedAddU32, ".add.u32", unsigned, "r")
GD_RED(RedAddF32, ".add.f32", float, "f")
#undef GD_RED

}  // namespace gd::ptx::atomic
// --- cache operators on one 64-bit pointer (latency signatures) ---------------------------------
namespace gd::ptx::cacheop {

enum class Kind { Load, Store, Prefetch, None };

#define GD_CACHEOP_LOAD(Name, text)                                                             \
  struct Name {                                                                                 \
    static constexpr Kind kind = Kind::Load;                                                    \
    static __device__ __forceinline__ const void* load(const void* p) {                         \
      const void* v;                                                                            \
      asm volatile(text " %0, [%1];" : "=l"(v) : "l"(p) : "memory");                              \
      return v;                                                                                 \
    }                                                                                           \
    static __device__ __forceinline__ void store(void*, const void*) {}                         \
  };
GD_CACHEOP_LOAD(LdDefault, "ld.global.u64")
GD_CACHEOP_LOAD(LdCa, "ld.global.ca.u64")
GD_CACHEOP_LOAD(LdCg, "ld.global.cg.u64")
GD_CACHEOP_LOAD(LdCs, "ld.global.cs.u64")
GD_CACHEOP_LOAD(LdLu, "ld.global.lu.u64")
GD_CACHEOP_LOAD(LdCv, "ld.global.cv.u64")
GD_CACHEOP_LOAD(LdNc, "ld.global.nc.u64")
GD_CACHEOP_LOAD(LdL1NoAllocate, "ld.global.L1::no_allocate.u64")
GD_CACHEOP_LOAD(LdL1EvictLast, "ld.global.L1::evict_last.u64")
GD_CACHEOP_LOAD(LdL1EvictFirst, "ld.global.L1::evict_first.u64")
#undef GD_CACHEOP_LOAD

// A load carrying an L2 cache policy made by createpolicy (evict_last for the whole range).
struct LdPolicyEvictLast {
  static constexpr Kind kind = Kind::Load;
  static __device__ __forceinline__ const void* load(const void* p) {
    const void* v;
    asm volatile(
        "{\n\t.reg .b64 pol;\n\t"
        "createpolicy.fractional.L2::evict_last.b64 pol, 1.0;\n\t"
        "ld.global.L2::cache_hint.u64 %0, [%1], pol;\n\t}"
        : "=l"(v) : "l"(p) : "memory");
    return v;
  }
  static __device__ __forceinline__ void store(void*, const void*) {}
};

#define GD_CACHEOP_STORE(Name, text)                                                            \
  struct Name {                                                                                 \
    static constexpr Kind kind = Kind::Store;                                                   \
    static __device__ __forceinline__ const void* load(const void* p) { return p; }             \
    static __device__ __forceinline__ void store(void* p, const void* v) {                      \
      asm volatile(text " [%0], %1;" :: "l"(p), "l"(v) : "memory");                              \
    }                                                                                           \
  };
GD_CACHEOP_STORE(StWb, "st.global.wb.u64")
GD_CACHEOP_STORE(StCg, "st.global.cg.u64")
GD_CACHEOP_STORE(StCs, "st.global.cs.u64")
GD_CACHEOP_STORE(StWt, "st.global.wt.u64")
#undef GD_CACHEOP_STORE

struct PrefetchL1 {
  static constexpr Kind kind = Kind::Prefetch;
  static __device__ __forceinline__ const void* load(const void* p) { return p; }
  static __device__ __forceinline__ void store(void* p, const void*) {
    asm volatile("prefetch.global.L1 [%0];" :: "l"(p) : "memory");
  }
};

// Nothing before the first read: the baseline a store or prefetch is compared with.
struct FirstTouch {
  static constexpr Kind kind = Kind::None;
  static __device__ __forceinline__ const void* load(const void* p) { return p; }
  static __device__ __forceinline__ void store(void*, const void*) {}
};

}  // namespace gd::ptx::cacheop
