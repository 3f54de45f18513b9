// Inline PTX for asynchronous data movement: cp.async (LDGSTS), bulk and tensor copies (UBLKCP,
// UTMALDG/UTMASTG), mbarriers (SYNCS), proxy fences, elect.sync and tensor-map maintenance.
// cp.async exists from sm_80; everything else is Hopper-and-later and compiles only into sm_90+
// code (GD_ASYNC_SM90): the generic sm_80 build gets a trap, and the probes using those
// wrappers are gated to compute capability 9.0 and code built for it (async_common.cuh).
#pragma once
#include <cstdint>

#include <cuda.h>  // CUtensorMap (a plain 128-byte struct; nothing from libcuda is linked)

#include "ptx.cuh"
#include "ptx_cluster.cuh"  // the cluster rank, mapa and barrier the async paths use

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GD_ASYNC_SM90 1
#define GD_SM90_ONLY(...) __VA_ARGS__
#else
#define GD_SM90_ONLY(...) __trap();
#endif
// Multicast into a cluster's CTAs: a target feature of sm_90a and sm_100a-class code; ptxas
// accepts it for sm_120a only with an advisory that it is expected to be much slower there, so it
// is compiled for the first two only; elsewhere it traps and the probe is gated.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define GD_ASYNC_MULTICAST 1
#define GD_MULTICAST_ONLY(...) __VA_ARGS__
#else
#define GD_MULTICAST_ONLY(...) __trap();
#endif

namespace gd::ptx {

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// --- plain loads the async paths are compared with --------------------------------------------
// L2 (bypassing L1), the level cp.async.cg and the bulk copies read from.
__device__ __forceinline__ unsigned ld_cg_u32(const void* p) {
  unsigned v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// --- cp.async (LDGSTS), sm_80+ ----------------------------------------------------------------
enum class CpAsyncCache { Ca, Cg };  // .ca allocates in L1; .cg (16 bytes only) bypasses it

template <int Bytes, CpAsyncCache Cache>
__device__ __forceinline__ void cp_async(unsigned dst, const void* src) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
  static_assert(Cache == CpAsyncCache::Ca || Bytes == 16, "cp.async.cg copies 16 bytes only");
  if constexpr (Cache == CpAsyncCache::Cg)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
  else if constexpr (Bytes == 16)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
  else if constexpr (Bytes == 8)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(dst), "l"(src) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(src) : "memory");
}
// 16 bytes, L1 bypassed, with L2 told to fetch the whole 256-byte block around them from DRAM
// (the .L2::256B prefetch-size qualifier).
__device__ __forceinline__ void cp_async_cg16_l2_256(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
// Copies src_bytes (< 16) from global and fills the rest of the 16 bytes with zeros.
__device__ __forceinline__ void cp_async_cg16_zfill(unsigned dst, const void* src, unsigned src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int Pending>  // waits until at most Pending committed groups are still in flight
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
}

// --- mbarrier (SYNCS) -------------------------------------------------------------------------
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ unsigned long long mbarrier_arrive(unsigned bar) {
  unsigned long long state;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(bar) : "memory");
  return state;
}
// Makes barrier initialisation visible to the async proxy (and the cluster) before first use.
__device__ __forceinline__ void fence_mbarrier_init() {
  GD_SM90_ONLY(asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");)
}
__device__ __forceinline__ void mbarrier_expect_tx(unsigned bar, unsigned bytes) {
  GD_SM90_ONLY(asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");)
}
__device__ __forceinline__ void mbarrier_arrive_expect_tx(unsigned bar, unsigned bytes) {
  GD_SM90_ONLY(asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");)
}
__device__ __forceinline__ bool mbarrier_try_wait_parity(unsigned bar, unsigned parity) {
  unsigned ok = 0;
  GD_SM90_ONLY(asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                            : "=r"(ok) : "r"(bar), "r"(parity) : "memory");)
  return ok != 0;
}
__device__ __forceinline__ void mbarrier_wait_parity(unsigned bar, unsigned parity) {
  while (!mbarrier_try_wait_parity(bar, parity)) {
  }
}

// --- proxy fences, elect ------------------------------------------------------------------------
// Orders this thread's generic-proxy shared-memory accesses with later async-proxy ones (TMA).
__device__ __forceinline__ void fence_proxy_async_shared() {
  GD_SM90_ONLY(asm volatile("fence.proxy.async.shared::cta;" ::: "memory");)
}
// One lane of the (full) warp is elected; returns whether this lane is it.
__device__ __forceinline__ bool elect_one() {
  unsigned is_leader = 0;
  GD_SM90_ONLY(asm volatile("{ .reg .pred p; .reg .b32 r; elect.sync r|p, 0xffffffff; selp.u32 %0, 1, 0, p; }"
                            : "=r"(is_leader));)
  return is_leader != 0;
}

// --- bulk copies (UBLKCP), sm_90+ ---------------------------------------------------------------
// global -> own shared memory, completing `bytes` of transaction count on the mbarrier.
// Sizes and addresses are multiples of 16 bytes.
__device__ __forceinline__ void bulk_load(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
  GD_SM90_ONLY(asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                            ::"r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");)
}
// im2col mode, 4D (NHWC): c, w, h, n name the column's first pixel; off_w, off_h (16-bit) the
// filter tap added to every pixel of the column.
__device__ __forceinline__ void tensor_load_im2col_4d(unsigned dst, const CUtensorMap* map, unsigned bar, int c, int w,
                                                      int h, int n, unsigned short off_w, unsigned short off_h) {
  [[maybe_unused]] const auto m = reinterpret_cast<unsigned long long>(map);
  GD_SM90_ONLY(asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                            " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};"
                            ::"r"(dst), "l"(m), "r"(c), "r"(w), "r"(h), "r"(n), "r"(bar), "h"(off_w), "h"(off_h)
                            : "memory");)
}
// With an L2 eviction policy from createpolicy (the .L2::cache_hint form).
__device__ __forceinline__ void bulk_load_hint(unsigned dst, const void* src, unsigned bytes, unsigned bar,
                                               unsigned long long policy) {
  GD_SM90_ONLY(asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;"
      ::"r"(dst), "l"(src), "r"(bytes), "r"(bar), "l"(policy) : "memory");)
}
// shared -> global, tracked by the bulk async-group of this thread.
__device__ __forceinline__ void bulk_store(void* dst, unsigned src, unsigned bytes) {
  GD_SM90_ONLY(asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(bytes)
                            : "memory");)
}
// shared::cta -> another CTA's shared memory in the cluster (dst and bar are shared::cluster
// addresses from mapa), completing on that CTA's mbarrier. The destination must be another CTA:
// compute-sanitizer's memcheck rejects the executing CTA's own shared memory ("not located in
// remote CTA"), however addressed.
__device__ __forceinline__ void bulk_copy_to_cluster(unsigned dst, unsigned src, unsigned bytes, unsigned remote_bar) {
  GD_SM90_ONLY(asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                            ::"r"(dst), "r"(src), "r"(bytes), "r"(remote_bar) : "memory");)
}
__device__ __forceinline__ void bulk_commit() { GD_SM90_ONLY(asm volatile("cp.async.bulk.commit_group;" ::: "memory");) }
// Waits until the source of every committed bulk store may be reused (read done)...
__device__ __forceinline__ void bulk_wait_read_all() {
  GD_SM90_ONLY(asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");)
}
// ...keeping at most Pending committed groups still reading their source.
template <int Pending>
__device__ __forceinline__ void bulk_wait_read() {
  GD_SM90_ONLY(asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");)
}
// ...or until the stores are complete (visible in global memory).
__device__ __forceinline__ void bulk_wait_all() { GD_SM90_ONLY(asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");) }

__device__ __forceinline__ unsigned long long l2_policy_evict_first() {
  unsigned long long p = 0;
  GD_SM90_ONLY(asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));)
  return p;
}
__device__ __forceinline__ unsigned long long l2_policy_evict_last() {
  unsigned long long p = 0;
  GD_SM90_ONLY(asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));)
  return p;
}

// --- tensor copies (UTMALDG / UTMASTG), sm_90+ ---------------------------------------------------
// The tensor map is a __grid_constant__ kernel parameter (or in global memory); c0..c4 are the
// box's starting coordinates, innermost first (by value: an array argument stays in local memory
// on sm_120a); Rank 1..5 uses the first Rank of them.
template <int Rank>
__device__ __forceinline__ void tensor_load(unsigned dst, const CUtensorMap* map, unsigned bar, int c0, int c1 = 0,
                                            int c2 = 0, int c3 = 0, int c4 = 0) {
  static_assert(Rank >= 1 && Rank <= 5, "tensor copies have 1 to 5 dimensions");
  [[maybe_unused]] const auto m = reinterpret_cast<unsigned long long>(map);
  if constexpr (Rank == 1)
    GD_SM90_ONLY(asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                              " [%0], [%1, {%2}], [%3];" ::"r"(dst), "l"(m), "r"(c0), "r"(bar) : "memory");)
  else if constexpr (Rank == 2)
    GD_SM90_ONLY(asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                              " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(bar) : "memory");)
  else if constexpr (Rank == 3)
    GD_SM90_ONLY(asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                              " [%0], [%1, {%2, %3, %4}], [%5];"
                              ::"r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(bar) : "memory");)
  else if constexpr (Rank == 4)
    GD_SM90_ONLY(asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                              " [%0], [%1, {%2, %3, %4, %5}], [%6];"
                              ::"r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar) : "memory");)
  else
    GD_SM90_ONLY(asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                              " [%0], [%1, {%2, %3, %4, %5, %6}], [%7];"
                              ::"r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(bar) : "memory");)
}
// With an L2 eviction policy from createpolicy (the .L2::cache_hint form).
__device__ __forceinline__ void tensor_load_2d_hint(unsigned dst, const CUtensorMap* map, int x, int y, unsigned bar,
                                                    unsigned long long policy) {
  [[maybe_unused]] const auto m = reinterpret_cast<unsigned long long>(map);
  GD_SM90_ONLY(asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
                            " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst), "l"(m), "r"(x), "r"(y), "r"(bar), "l"(policy)
                            : "memory");)
}
// 2D tile delivered to every CTA of the cluster named in cta_mask (same shared offset, each
// CTA's mbarrier at the same offset).
__device__ __forceinline__ void tensor_load_2d_multicast(unsigned dst, const CUtensorMap* map, int x, int y, unsigned bar,
                                                         unsigned short cta_mask) {
  [[maybe_unused]] const auto m = reinterpret_cast<unsigned long long>(map);
  GD_MULTICAST_ONLY(asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                                 ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;"
                                 ::"r"(dst), "l"(m), "r"(x), "r"(y), "r"(bar), "h"(cta_mask) : "memory");)
}
__device__ __forceinline__ void tensor_store_2d(const CUtensorMap* map, int x, int y, unsigned src) {
  [[maybe_unused]] const auto m = reinterpret_cast<unsigned long long>(map);
  GD_SM90_ONLY(asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                            ::"l"(m), "r"(x), "r"(y), "r"(src) : "memory");)
}
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
  GD_SM90_ONLY(asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<unsigned long long>(map)) : "memory");)
}

// Rewrites the global address field of a tensor map held in global memory (arch-specific:
// sm_90a, sm_100a and sm_120a code); the map must then be fenced before a copy uses it.
__device__ __forceinline__ void tensormap_replace_global_address(CUtensorMap* map, unsigned long long address) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM120_ALL)
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" ::"l"(map), "l"(address) : "memory");
#else
  __trap();
#endif
}

// Releases this thread's writes to a tensor map (tensormap.replace) to the tensor-map proxy.
__device__ __forceinline__ void fence_proxy_tensormap_release() {
  GD_SM90_ONLY(asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");)
}

// --- clusters ---------------------------------------------------------------------------------
// Arrives on an mbarrier in another CTA of the cluster (a shared::cluster address from mapa),
// with the default semantics, as CUTLASS's ClusterBarrier does: the explicit .release.cluster
// form costs a MEMBAR.ALL.GPU per arrival on sm_90a.
__device__ __forceinline__ void mbarrier_arrive_cluster(unsigned remote_bar) {
  GD_SM90_ONLY(asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote_bar) : "memory");)
}

}  // namespace gd::ptx
