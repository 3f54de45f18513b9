// ISA corpus (compiled by `gpudissect isa` with nvcc at run time, not by the build): Ampere-style
// cp.async (LDGSTS), Hopper/Blackwell bulk and tensor copies (UBLKCP, UTMALDG/UTMASTG), mbarriers
// (SYNCS), async-proxy fences, clusters and distributed shared memory, setmaxnreg, elect.sync and
// programmatic dependent launch. Every kernel reads its inputs from memory or parameters and
// writes its results. Builds for sm_90a, sm_100a and sm_120a.
#include <cuda.h>  // CUtensorMap

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// LDGSTS: cp.async of 4, 8 and 16 bytes with .ca and .cg, zero-fill (src-size), groups and mbarrier arrive.
extern "C" __global__ void corpus_cp_async(float* o, const float* in, int src_bytes) {
  __shared__ alignas(16) float buf[4][256];
  __shared__ alignas(8) unsigned long long bar;
  const int t = threadIdx.x;
  const float* g = in + blockIdx.x * 1024;
  if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(&bar)), "r"(blockDim.x));
  __syncthreads();
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem_addr(&buf[0][t])), "l"(g + t));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(smem_addr(&buf[1][(t * 2) & 255])), "l"(g + 256 + ((t * 2) & 255)));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 16;" ::"r"(smem_addr(&buf[2][(t * 4) & 255])),
               "l"(g + 512 + ((t * 4) & 255)));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16, %2;" ::"r"(smem_addr(&buf[3][(t * 4) & 255])),
               "l"(g + 768 + ((t * 4) & 255)), "r"(src_bytes));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 2;" ::: "memory");
  asm volatile("cp.async.wait_group 1;" ::: "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_addr(&bar)) : "memory");
  __syncthreads();
  o[blockIdx.x * blockDim.x + t] = buf[0][t & 255] + buf[1][(t + 1) & 255] + buf[2][(t + 2) & 255] + buf[3][(t + 3) & 255];
}

// SYNCS: mbarrier init / arrive / arrive.expect_tx / try_wait / test_wait / arrive_drop / inval.
extern "C" __global__ void corpus_mbarrier(int* o, const int* in, unsigned tx) {
  __shared__ alignas(8) unsigned long long bar[2];
  const unsigned b0 = smem_addr(&bar[0]), b1 = smem_addr(&bar[1]);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b0), "r"(blockDim.x));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b1), "r"(blockDim.x));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  unsigned long long st;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(b0) : "memory");
  unsigned done = 0;
  asm volatile(
      "{ .reg .pred p; WAIT: mbarrier.test_wait.shared::cta.b64 p, [%1], %2; @!p bra WAIT; selp.u32 %0, 1, 0, p; }"
      : "=r"(done) : "r"(b0), "l"(st) : "memory");
  unsigned long long st1;
  if (threadIdx.x == 0)
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %0, [%1], %2;" : "=l"(st1) : "r"(b1), "r"(tx) : "memory");
  else
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 %0, [%1];" : "=l"(st1) : "r"(b1) : "memory");
  if (threadIdx.x == 1) asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(b1), "r"(tx) : "memory");
  if (threadIdx.x == 2) asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(b1), "r"(2 * tx) : "memory");
  unsigned ok;
  asm volatile(
      "{ .reg .pred p; LOOP: mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2, %3; @!p bra LOOP; "
      "selp.u32 %0, 1, 0, p; }"
      : "=r"(ok) : "r"(b1), "r"(0u), "r"(1000u) : "memory");
  unsigned pending;
  asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(st1));
  if (threadIdx.x >= 32) asm volatile("mbarrier.arrive_drop.shared::cta.b64 _, [%0];" ::"r"(b0) : "memory");
  __syncthreads();
  if (threadIdx.x == 0) asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(b1) : "memory");
  o[blockIdx.x * blockDim.x + threadIdx.x] = in[threadIdx.x] + int(done + ok + pending);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// UBLKCP / UBLKRED / UBLKPF: bulk copies global<->shared completed through an mbarrier or a bulk group.
extern "C" __global__ void corpus_bulk_copy(float* o, const float* in, unsigned bytes) {
  __shared__ alignas(128) float buf[2048];
  __shared__ alignas(8) unsigned long long bar;
  const unsigned b = smem_addr(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(in + 4096), "r"(bytes) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(smem_addr(buf)), "l"(in + blockIdx.x * 2048), "r"(bytes), "r"(b) : "memory");
  }
  asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }" ::"r"(b) : "memory");
  buf[threadIdx.x] *= 2.f;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(o + blockIdx.x * 2048),
                 "r"(smem_addr(buf)), "r"(bytes) : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" ::"l"(o + 65536),
                 "r"(smem_addr(buf + 1024)), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
  asm volatile("fence.proxy.async.global;" ::: "memory");
}

// UTMALDG / UTMASTG / UTMAREDG / UTMAPF: tensor-map (TMA) copies; the map is a __grid_constant__ parameter.
extern "C" __global__ void corpus_tensor_copy(const __grid_constant__ CUtensorMap map, float* o, int x, int y) {
  __shared__ alignas(1024) float tile[64 * 64];
  __shared__ alignas(8) unsigned long long bar;
  const unsigned b = smem_addr(&bar);
  const unsigned long long m = reinterpret_cast<unsigned long long>(&map);
  if (threadIdx.x == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(m) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(m), "r"(x), "r"(y + 64) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(64 * 64 * 4) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(smem_addr(tile)), "l"(m), "r"(x), "r"(y), "r"(b) : "memory");
  }
  asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }" ::"r"(b) : "memory");
  o[threadIdx.x] = tile[threadIdx.x];
  tile[threadIdx.x] += 1.f;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(m), "r"(x),
                 "r"(y), "r"(smem_addr(tile)) : "memory");
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(m),
                 "r"(x + 64), "r"(y), "r"(smem_addr(tile)) : "memory");
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
                 ::"r"(smem_addr(tile)), "l"(m), "r"(x), "r"(y), "r"(1), "r"(b) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}

// Clusters and distributed shared memory: mapa, ld/st/atom on shared::cluster, barrier.cluster,
// cluster special registers, st.async / red.async completing on a remote mbarrier.
extern "C" __global__ void __cluster_dims__(2, 1, 1) corpus_cluster(int* o, const int* in) {
  __shared__ int s[256];
  __shared__ alignas(8) unsigned long long bar;
  unsigned rank, nrank, cid, is_cluster;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(nrank));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
  asm volatile("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }" : "=r"(is_cluster));
  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(&bar)), "r"(blockDim.x));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
  const unsigned peer = (rank + 1) % nrank;
  unsigned remote, remote_bar;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_addr(&s[threadIdx.x])), "r"(peer));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(smem_addr(&bar)), "r"(peer));
  int v, old;
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote) : "memory");
  asm volatile("atom.shared::cluster.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(remote), "r"(v) : "memory");
  asm volatile("red.shared::cluster.xor.b32 [%0], %1;" ::"r"(remote), "r"(old) : "memory");
  unsigned long long gen = reinterpret_cast<unsigned long long>(&s[threadIdx.x ^ 1]);
  unsigned long long gmapped;
  asm volatile("mapa.u64 %0, %1, %2;" : "=l"(gmapped) : "l"(gen), "r"(peer));
  int w = *reinterpret_cast<volatile int*>(gmapped);
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  if (threadIdx.x == 0)
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&bar)), "r"(8u) : "memory");
  if (threadIdx.x == 1) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];" ::"r"(remote), "r"(w),
                 "r"(remote_bar) : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], %1, [%2];" ::"r"(remote),
                 "r"(v), "r"(remote_bar) : "memory");
  }
  asm volatile("barrier.cluster.arrive;" ::: "memory");
  asm volatile("barrier.cluster.wait;" ::: "memory");
  o[blockIdx.x * blockDim.x + threadIdx.x] = v + old + w + int(rank + nrank + cid + is_cluster);
}
#endif

// elect.sync, programmatic dependent launch (griddepcontrol), and warp-group register reallocation.
extern "C" __global__ void __launch_bounds__(384, 1) corpus_warp_specialization(int* o, const int* in) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM120_ALL)
  // ptxas emits USETMAXREG only when the kernel's register budget is pinned (__launch_bounds__ above)
  if (threadIdx.x < 128) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  }
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned leader, is_leader;
  asm volatile("{ .reg .pred p; elect.sync %0|p, 0xffffffff; selp.u32 %1, 1, 0, p; }" : "=r"(leader), "=r"(is_leader));
  if (is_leader) v += int(leader);
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  o[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
