// Experiment (not part of the suite): a copy through the bulk-copy (TMA) engine, global ->
// shared -> global in 1D bulk chunks, one elected thread per block driving an S-stage ring.
// Does it beat 16-byte LDG/STG copies (~4.0 TB/s on the H200)?
// Build: nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o bwtma bandwidth_tma_copy.cu
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <cstring>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

template <int CHUNK, int STAGES>
__global__ void tma_copy(char* dst, const char* src, long long chunks_per_block) {
  extern __shared__ __align__(128) char ring[];
  __shared__ __align__(8) unsigned long long bar[STAGES];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < STAGES; ++s)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_addr(&bar[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const long long base = (long long)blockIdx.x * chunks_per_block * CHUNK;
  auto load = [&](long long k) {
    const int s = int(k % STAGES);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_addr(&bar[s])), "r"(CHUNK) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(smem_addr(ring + s * CHUNK)), "l"(src + base + k * CHUNK), "r"(CHUNK), "r"(smem_addr(&bar[s])) : "memory");
  };
  auto wait_loaded = [&](long long k) {
    const int s = int(k % STAGES);
    const unsigned parity = unsigned((k / STAGES) & 1);
    unsigned done = 0;
    while (!done)
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                   : "=r"(done) : "r"(smem_addr(&bar[s])), "r"(parity) : "memory");
  };
  auto store = [&](long long k) {
    const int s = int(k % STAGES);
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                 :: "l"(dst + base + k * CHUNK), "r"(smem_addr(ring + s * CHUNK)), "r"(CHUNK) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  };
  // Loads run STAGES-1 chunks ahead; a stage is reloaded only after its store has read it.
  const long long n = chunks_per_block;
  for (long long k = 0; k < n + STAGES - 1; ++k) {
    if (k < n) {
      if (k >= STAGES) asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(STAGES - 1) : "memory");
      load(k);
    }
    const long long j = k - (STAGES - 1);
    if (j >= 0) {
      wait_loaded(j);
      store(j);
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

template <class F> double tbps(F launch, double bytes) {
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (int i = 0; i < 30; ++i) launch();
  std::vector<float> ms;
  for (int i = 0; i < 15; ++i) { CK(cudaEventRecord(e0)); launch(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
    float m; CK(cudaEventElapsedTime(&m, e0, e1)); ms.push_back(m); }
  CK(cudaGetLastError()); std::sort(ms.begin(), ms.end());
  return bytes / (ms[ms.size() / 2] * 1e-3) / 1e12;
}

template <int CHUNK, int STAGES>
void try_config(char* dst, char* src, long long B, int sms, int bps) {
  const int blocks = sms * bps;
  const long long per_block = B / blocks / CHUNK;
  const long long bytes = per_block * CHUNK * blocks;
  const int smem = CHUNK * STAGES;
  CK(cudaFuncSetAttribute(tma_copy<CHUNK, STAGES>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const double r = tbps([&] { tma_copy<CHUNK, STAGES><<<blocks, 32, smem>>>(dst, src, per_block); }, 2.0 * bytes);
  // Check a few bytes: the copy must be a copy.
  char h1[64], h2[64];
  CK(cudaMemcpy(h1, src + bytes / 2, 64, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(h2, dst + bytes / 2, 64, cudaMemcpyDeviceToHost));
  printf("chunk=%6d stages=%d blocks/SM=%d: %.3f TB/s %s\n", CHUNK, STAGES, bps, r, memcmp(h1, h2, 64) ? "WRONG" : "ok");
  fflush(stdout);
}

int main() {
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const long long B = 4LL << 30; char *a, *b;
  CK(cudaMalloc(&a, B)); CK(cudaMalloc(&b, B));
  std::vector<int> host(1 << 20); for (size_t i = 0; i < host.size(); ++i) host[i] = int(i * 2654435761u);
  for (long long off = 0; off < B; off += 4 << 20) CK(cudaMemcpy(a + off, host.data(), 4 << 20, cudaMemcpyHostToDevice));
  CK(cudaMemset(b, 0, B));
  printf("memcpy D2D %.3f TB/s\n", tbps([&] { CK(cudaMemcpyAsync(b, a, B, cudaMemcpyDeviceToDevice)); }, 2.0 * B));
  try_config<16384, 4>(b, a, B, sms, 1);
  try_config<16384, 8>(b, a, B, sms, 1);
  try_config<16384, 4>(b, a, B, sms, 2);
  try_config<32768, 4>(b, a, B, sms, 1);
  try_config<8192, 8>(b, a, B, sms, 1);
  try_config<8192, 8>(b, a, B, sms, 2);
  try_config<4096, 16>(b, a, B, sms, 2);
  try_config<8192, 12>(b, a, B, sms, 2);
  return 0;
}
