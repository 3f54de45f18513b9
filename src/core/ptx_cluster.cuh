// Thread-block cluster and distributed shared memory (DSMEM) PTX, as named wrappers. Clusters
// exist from sm_90 on: on older targets the cluster instructions compile to a trap (a probe that
// uses them is gated min_cc = 90, so that code never runs), and every target still builds.
#pragma once
#include <cstdint>

#include "ptx.cuh"

namespace gd::ptx {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GD_CLUSTER_PTX(...) __VA_ARGS__
#define GD_NO_CLUSTER_PTX(...)
#else
#define GD_CLUSTER_PTX(...)
#define GD_NO_CLUSTER_PTX(...) __VA_ARGS__
#endif

// Number of SM ids (%nsmid): an upper bound on %smid + 1, not necessarily the SM count.
__device__ __forceinline__ unsigned nsmid() {
  unsigned n;
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(n));
  return n;
}

__device__ __forceinline__ unsigned cluster_ctarank() {
  GD_CLUSTER_PTX(unsigned r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r;)
  GD_NO_CLUSTER_PTX(__trap(); return 0;)
}

__device__ __forceinline__ unsigned cluster_nctarank() {
  GD_CLUSTER_PTX(unsigned r; asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r)); return r;)
  GD_NO_CLUSTER_PTX(__trap(); return 0;)
}

// Linear id of this block's cluster in the grid (x fastest).
__device__ __forceinline__ unsigned cluster_id_linear() {
  GD_CLUSTER_PTX(unsigned x, y, z, nx, ny;
                 asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(x));
                 asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(y));
                 asm volatile("mov.u32 %0, %%clusterid.z;" : "=r"(z));
                 asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(nx));
                 asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(ny));
                 return (z * ny + y) * nx + x;)
  GD_NO_CLUSTER_PTX(__trap(); return 0;)
}

// The shared::cluster address of the same offset in block `rank`'s shared memory (MAPA).
__device__ __forceinline__ uint32_t mapa_shared(uint32_t addr, uint32_t rank) {
  GD_CLUSTER_PTX(uint32_t d; asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(d) : "r"(addr), "r"(rank));
                 return d;)
  GD_NO_CLUSTER_PTX((void)addr; (void)rank; __trap(); return 0;)
}

// Loads and stores through the cluster window: own or another block's shared memory.
__device__ __forceinline__ uint32_t ld_cluster_u32(uint32_t addr) {
  GD_CLUSTER_PTX(uint32_t v; asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
                 return v;)
  GD_NO_CLUSTER_PTX((void)addr; __trap(); return 0;)
}
__device__ __forceinline__ uint2 ld_cluster_v2(uint32_t addr) {
  GD_CLUSTER_PTX(uint2 v; asm volatile("ld.shared::cluster.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "r"(addr) : "memory");
                 return v;)
  GD_NO_CLUSTER_PTX((void)addr; __trap(); return uint2{};)
}
__device__ __forceinline__ uint4 ld_cluster_v4(uint32_t addr) {
  GD_CLUSTER_PTX(uint4 v;
                 asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                              : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr) : "memory");
                 return v;)
  GD_NO_CLUSTER_PTX((void)addr; __trap(); return uint4{};)
}
__device__ __forceinline__ void st_cluster_u32(uint32_t addr, uint32_t v) {
  GD_CLUSTER_PTX(asm volatile("st.shared::cluster.u32 [%0], %1;" :: "r"(addr), "r"(v) : "memory");)
  GD_NO_CLUSTER_PTX((void)addr; (void)v; __trap();)
}
__device__ __forceinline__ void st_cluster_v2(uint32_t addr, uint2 v) {
  GD_CLUSTER_PTX(asm volatile("st.shared::cluster.v2.u32 [%0], {%1, %2};" :: "r"(addr), "r"(v.x), "r"(v.y) : "memory");)
  GD_NO_CLUSTER_PTX((void)addr; (void)v; __trap();)
}
__device__ __forceinline__ void st_cluster_v4(uint32_t addr, uint4 v) {
  GD_CLUSTER_PTX(asm volatile("st.shared::cluster.v4.u32 [%0], {%1, %2, %3, %4};"
                              :: "r"(addr), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");)
  GD_NO_CLUSTER_PTX((void)addr; (void)v; __trap();)
}

// Acquire load / release store on a shared::cluster address (DSMEM ping-pong flags).
__device__ __forceinline__ uint32_t ld_acquire_cluster_u32(uint32_t addr) {
  GD_CLUSTER_PTX(uint32_t v; asm volatile("ld.acquire.cluster.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
                 return v;)
  GD_NO_CLUSTER_PTX((void)addr; __trap(); return 0;)
}
__device__ __forceinline__ void st_release_cluster_u32(uint32_t addr, uint32_t v) {
  GD_CLUSTER_PTX(asm volatile("st.release.cluster.shared::cluster.u32 [%0], %1;" :: "r"(addr), "r"(v) : "memory");)
  GD_NO_CLUSTER_PTX((void)addr; (void)v; __trap();)
}

// The cluster barrier, split (arrive, then wait) and whole. Every thread of every block of the
// cluster must take part (.aligned: all threads of a warp execute it together).
__device__ __forceinline__ void cluster_arrive() {
  GD_CLUSTER_PTX(asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");)
  GD_NO_CLUSTER_PTX(__trap();)
}
// Arrive without release semantics: no memory fence, only the barrier itself.
__device__ __forceinline__ void cluster_arrive_relaxed() {
  GD_CLUSTER_PTX(asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");)
  GD_NO_CLUSTER_PTX(__trap();)
}
__device__ __forceinline__ void cluster_wait() {
  GD_CLUSTER_PTX(asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");)
  GD_NO_CLUSTER_PTX(__trap();)
}
__device__ __forceinline__ void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

// Global-memory flags for inter-SM and host ping-pong: acquire loads and release stores at GPU
// or system scope.
__device__ __forceinline__ uint32_t ld_acquire_gpu_u32(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release_gpu_u32(uint32_t* p, uint32_t v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys_u32(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release_sys_u32(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
// A system-scope relaxed pointer load: served where every agent's writes meet (for another
// GPU's memory, that GPU), never from a copy cached on this side.
__device__ __forceinline__ const void* ld_relaxed_sys_ptr(const void* const* p) {
  const void* v;
  asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ uint32_t atom_add_sys_u32(uint32_t* p, uint32_t v) {
  uint32_t old;
  asm volatile("atom.add.sys.global.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}

// Programmatic dependent launch: let the next kernel start, and wait for the previous one.
__device__ __forceinline__ void griddep_launch_dependents() {
  GD_CLUSTER_PTX(asm volatile("griddepcontrol.launch_dependents;" ::: "memory");)
}
__device__ __forceinline__ void griddep_wait() {
  GD_CLUSTER_PTX(asm volatile("griddepcontrol.wait;" ::: "memory");)
}

#undef GD_CLUSTER_PTX
#undef GD_NO_CLUSTER_PTX

}  // namespace gd::ptx
