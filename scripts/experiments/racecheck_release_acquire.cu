// Does compute-sanitizer's racecheck flag correct release/acquire flag passing through shared
// memory? A standalone reproducer (no gpudissect headers, so it can go to NVIDIA as it is) for
// the reports racecheck makes on topology.sm_pingpong's DSMEM ping-pong.
//   mode 0: two blocks of a cluster ping-pong a flag in each other's shared memory
//           (st.release.cluster / polling ld.acquire.cluster), as topology.sm_pingpong does.
//   mode 1: two warps of one block pass a flag through shared memory (st.release.cta /
//           ld.acquire.cta).
//   mode 2: block 0 writes block 1's shared memory, then barrier.cluster arrive.release /
//           wait.acquire, then block 1 reads it: the barrier-synchronised twin.
// Build and run on an sm_90 GPU:
//   nvcc -O2 -lineinfo -gencode arch=compute_90a,code=sm_90a -o rr racecheck_release_acquire.cu
//   for m in 0 1 2; do ./rr $m; compute-sanitizer --tool racecheck ./rr $m; done
// On an H200 (compute-sanitizer 2025.3.1, 2026-11-30): every mode gives the right values
// (100 rounds, 7, 42); racecheck reports 2 races for mode 0 and 1 for mode 1, none for mode 2.
// scripts/sanitize.sh sets such reports aside when every access in them is one of our
// release/acquire helpers.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
__device__ uint32_t smem_addr(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ uint32_t mapa(uint32_t a, uint32_t rank) { uint32_t r; asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank)); return r; }
__device__ uint32_t ld_acq_cluster(uint32_t a) { uint32_t v; asm volatile("ld.acquire.cluster.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory"); return v; }
__device__ void st_rel_cluster(uint32_t a, uint32_t v) { asm volatile("st.release.cluster.shared::cluster.u32 [%0], %1;" :: "r"(a), "r"(v) : "memory"); }
__device__ uint32_t ld_acq_cta(uint32_t a) { uint32_t v; asm volatile("ld.acquire.cta.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory"); return v; }
__device__ void st_rel_cta(uint32_t a, uint32_t v) { asm volatile("st.release.cta.shared.u32 [%0], %1;" :: "r"(a), "r"(v) : "memory"); }
__device__ uint32_t cluster_rank() { uint32_t r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
__device__ void cluster_sync() { asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory"); }

__global__ void __cluster_dims__(2, 1, 1) k(int mode, int rounds, unsigned* out) {
  __shared__ uint32_t flag;
  __shared__ uint32_t payload;
  if (threadIdx.x == 0) flag = 0, payload = 0;
  __syncthreads();
  cluster_sync();
  const uint32_t me = cluster_rank(), other = me ^ 1;
  if (mode == 0) {
    if (threadIdx.x == 0) {
      const uint32_t mine = smem_addr(&flag), theirs = mapa(smem_addr(&flag), other);
      for (int i = 1; i <= rounds; ++i) {
        if (me == 0) { st_rel_cluster(theirs, i); while (ld_acq_cluster(mine) != (uint32_t)i) {} }
        else { while (ld_acq_cluster(mine) != (uint32_t)i) {} st_rel_cluster(theirs, i); }
      }
      out[me] = ld_acq_cluster(mine);
    }
  } else if (mode == 1) {
    if (me == 0) {
      const uint32_t a = smem_addr(&flag);
      if (threadIdx.x == 0) st_rel_cta(a, 7);
      if (threadIdx.x == 32) { while (ld_acq_cta(a) != 7) {} out[0] = 7; }
    }
  } else {
    if (me == 0 && threadIdx.x == 0) asm volatile("st.shared::cluster.u32 [%0], %1;" :: "r"(mapa(smem_addr(&payload), 1)), "r"(42u) : "memory");
    cluster_sync();
    if (me == 1 && threadIdx.x == 0) out[1] = payload;
  }
  cluster_sync();  // no block exits while the other may still touch its shared memory
}

int main(int argc, char** argv) {
  const int mode = argc > 1 ? atoi(argv[1]) : 0;
  unsigned* out;
  cudaMalloc(&out, 8);
  cudaMemset(out, 0, 8);
  k<<<2, 64>>>(mode, 100, out);
  cudaError_t e = cudaDeviceSynchronize();
  unsigned h[2] = {0, 0};
  cudaMemcpy(h, out, 8, cudaMemcpyDeviceToHost);
  printf("mode %d: %s, out %u %u\n", mode, cudaGetErrorString(e), h[0], h[1]);
  return e != cudaSuccess;
}
