// Experiment (not part of the suite): which stream-kernel shape reaches the highest DRAM
// bandwidth on this GPU. Informs src/probes/memory/dram_bandwidth.cu. Build:
//   nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o bw bandwidth_variants.cu
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

template <int U, bool CS>
__global__ void wr(int4* a, long long n) {
  long long s = (long long)gridDim.x * blockDim.x;
  int trips = int(n / (s * U));
  long long f = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  for (int t = 0; t < trips; ++t) {
    long long i = f + t * s * U;
#pragma unroll
    for (int k = 0; k < U; ++k) {
      int v = int(i) + k;
      if (CS) asm volatile("st.global.cs.v4.s32 [%0], {%1,%1,%1,%1};" :: "l"(a + i + k * s), "r"(v) : "memory");
      else asm volatile("st.global.v4.s32 [%0], {%1,%1,%1,%1};" :: "l"(a + i + k * s), "r"(v) : "memory");
    }
  }
}
template <int U, bool CS, bool NC>
__global__ void cp(int4* b, const int4* a, long long n) {
  long long s = (long long)gridDim.x * blockDim.x;
  int trips = int(n / (s * U));
  long long f = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  for (int t = 0; t < trips; ++t) {
    long long i = f + t * s * U;
    int4 v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) {
      if (NC) asm volatile("ld.global.nc.v4.s32 {%0,%1,%2,%3}, [%4];" : "=r"(v[k].x), "=r"(v[k].y), "=r"(v[k].z), "=r"(v[k].w) : "l"(a + i + k * s));
      else asm volatile("ld.global.v4.s32 {%0,%1,%2,%3}, [%4];" : "=r"(v[k].x), "=r"(v[k].y), "=r"(v[k].z), "=r"(v[k].w) : "l"(a + i + k * s));
    }
#pragma unroll
    for (int k = 0; k < U; ++k) {
      if (CS) asm volatile("st.global.cs.v4.s32 [%0], {%1,%2,%3,%4};" :: "l"(b + i + k * s), "r"(v[k].x), "r"(v[k].y), "r"(v[k].z), "r"(v[k].w) : "memory");
      else asm volatile("st.global.v4.s32 [%0], {%1,%2,%3,%4};" :: "l"(b + i + k * s), "r"(v[k].x), "r"(v[k].y), "r"(v[k].z), "r"(v[k].w) : "memory");
    }
  }
}
template <int U, bool CS>
__global__ void triad(float4* a, const float4* b, const float4* c, float q, long long n) {
  long long s = (long long)gridDim.x * blockDim.x;
  int trips = int(n / (s * U));
  long long f = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  for (int t = 0; t < trips; ++t) {
    long long i = f + t * s * U;
    float4 x[U], y[U];
#pragma unroll
    for (int k = 0; k < U; ++k) { x[k] = __ldg(b + i + k * s); y[k] = __ldg(c + i + k * s); }
#pragma unroll
    for (int k = 0; k < U; ++k) {
      float4 r = make_float4(x[k].x + q * y[k].x, x[k].y + q * y[k].y, x[k].z + q * y[k].z, x[k].w + q * y[k].w);
      if (CS) __stcs(a + i + k * s, r); else a[i + k * s] = r;
    }
  }
}
template <int U>
__global__ void rd(const int4* a, long long n, int* sink) {
  long long s = (long long)gridDim.x * blockDim.x;
  int trips = int(n / (s * U));
  long long f = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  int acc = 0;
  for (int t = 0; t < trips; ++t) {
    long long i = f + t * s * U;
    int4 v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = __ldg(a + i + k * s);
#pragma unroll
    for (int k = 0; k < U; ++k) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  if (acc == 0x7fffffff) sink[0] = acc;
}


// Each block writes one contiguous chunk (instead of a grid stride over the whole array).
template <int U>
__global__ void wr_chunk(int4* a, long long n) {
  const long long per_block = n / gridDim.x;
  int4* base = a + blockIdx.x * per_block;
  const int trips = int(per_block / (blockDim.x * U));
  for (int t = 0; t < trips; ++t) {
    int4* p = base + (long long)t * blockDim.x * U + threadIdx.x;
#pragma unroll
    for (int k = 0; k < U; ++k) { int v = t + k; asm volatile("st.global.v4.s32 [%0], {%1,%1,%1,%1};" :: "l"(p + k * blockDim.x), "r"(v) : "memory"); }
  }
}
template <int U>
__global__ void cp_chunk(int4* b, const int4* a, long long n) {
  const long long per_block = n / gridDim.x;
  const long long off = blockIdx.x * per_block;
  const int trips = int(per_block / (blockDim.x * U));
  for (int t = 0; t < trips; ++t) {
    const long long i = off + (long long)t * blockDim.x * U + threadIdx.x;
    int4 v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = __ldg(a + i + k * blockDim.x);
#pragma unroll
    for (int k = 0; k < U; ++k) b[i + k * blockDim.x] = v[k];
  }
}
// Bulk (TMA) stores from shared memory: one elected thread streams a block's chunk out.
template <int CHUNK>
__global__ void wr_bulk(char* a, long long bytes) {
  extern __shared__ __align__(128) char smem[];
  for (int i = threadIdx.x; i < CHUNK / 4; i += blockDim.x) reinterpret_cast<int*>(smem)[i] = i;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x != 0) return;
  const long long per_block = bytes / gridDim.x / CHUNK * CHUNK;
  char* base = a + blockIdx.x * per_block;
  unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  for (long long off = 0; off < per_block; off += CHUNK) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" :: "l"(base + off), "r"(s), "r"(CHUNK) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 8;" ::: "memory");
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

template <class F>
double best_tbps(F launch, double bytes) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (int i = 0; i < 3; ++i) launch();
  std::vector<float> ms;
  for (int i = 0; i < 15; ++i) {
    CK(cudaEventRecord(e0)); launch(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
    float m; CK(cudaEventElapsedTime(&m, e0, e1)); ms.push_back(m);
  }
  CK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  return bytes / (ms[ms.size() / 2] * 1e-3) / 1e12;
}

int main() {
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const long long bytes_per_array = 4LL << 30;
  int4 *a, *b, *c; int* sink;
  CK(cudaMalloc(&a, bytes_per_array)); CK(cudaMalloc(&b, bytes_per_array)); CK(cudaMalloc(&c, bytes_per_array)); CK(cudaMalloc(&sink, 4));
  CK(cudaMemset(a, 1, bytes_per_array)); CK(cudaMemset(b, 1, bytes_per_array)); CK(cudaMemset(c, 1, bytes_per_array));
  if (getenv("BW_ALL"))
  for (int threads : {256, 512, 1024}) for (int bps : {1, 2, 4, 8}) {
    if (threads * bps > 2048) continue;
    const int blocks = sms * bps;
    const long long unit = (long long)blocks * threads * 8;
    const long long n = bytes_per_array / 16 / unit * unit;
    const double B = 16.0 * n;
    printf("threads=%4d blocks/SM=%d | ", threads, bps);
    printf("wr u1 %.3f u4 %.3f u4cs %.3f u8 %.3f | ",
           best_tbps([&] { wr<1, false><<<blocks, threads>>>(a, n); }, B),
           best_tbps([&] { wr<4, false><<<blocks, threads>>>(a, n); }, B),
           best_tbps([&] { wr<4, true><<<blocks, threads>>>(a, n); }, B),
           best_tbps([&] { wr<8, false><<<blocks, threads>>>(a, n); }, B));
    printf("cp u2 %.3f u4 %.3f u4cs %.3f u4ld %.3f u8 %.3f | ",
           best_tbps([&] { cp<2, false, true><<<blocks, threads>>>(b, a, n); }, 2 * B),
           best_tbps([&] { cp<4, false, true><<<blocks, threads>>>(b, a, n); }, 2 * B),
           best_tbps([&] { cp<4, true, true><<<blocks, threads>>>(b, a, n); }, 2 * B),
           best_tbps([&] { cp<4, false, false><<<blocks, threads>>>(b, a, n); }, 2 * B),
           best_tbps([&] { cp<8, false, true><<<blocks, threads>>>(b, a, n); }, 2 * B));
    printf("tr u2 %.3f u4 %.3f u4cs %.3f | ",
           best_tbps([&] { triad<2, false><<<blocks, threads>>>((float4*)a, (float4*)b, (float4*)c, 0.5f, n); }, 3 * B),
           best_tbps([&] { triad<4, false><<<blocks, threads>>>((float4*)a, (float4*)b, (float4*)c, 0.5f, n); }, 3 * B),
           best_tbps([&] { triad<4, true><<<blocks, threads>>>((float4*)a, (float4*)b, (float4*)c, 0.5f, n); }, 3 * B));
    printf("rd u4 %.3f u8 %.3f\n",
           best_tbps([&] { rd<4><<<blocks, threads>>>(b, n, sink); }, B),
           best_tbps([&] { rd<8><<<blocks, threads>>>(b, n, sink); }, B));
    fflush(stdout);
  }

  {
    const long long B = bytes_per_array;
    printf("memset %.3f  memcpyD2D(rd+wr) %.3f\n",
           best_tbps([&] { CK(cudaMemsetAsync(a, 3, B)); }, B),
           best_tbps([&] { CK(cudaMemcpyAsync(b, a, B, cudaMemcpyDeviceToDevice)); }, 2.0 * B));
    for (int threads : {64, 128, 256, 384}) for (int bps : {1, 2}) {
      const int blocks = sms * bps;
      const long long unit = (long long)blocks * threads * 32;
      const long long n = B / 16 / unit * unit;
      const double W = 16.0 * n;
      printf("threads=%d bps=%d | wr u8 %.3f u16 %.3f u32 %.3f | cp u8 %.3f u16 %.3f | tr u8 %.3f u16 %.3f\n", threads, bps,
             best_tbps([&] { wr<8, false><<<blocks, threads>>>(a, n); }, W),
             best_tbps([&] { wr<16, false><<<blocks, threads>>>(a, n); }, W),
             best_tbps([&] { wr<32, false><<<blocks, threads>>>(a, n); }, W),
             best_tbps([&] { cp<8, false, true><<<blocks, threads>>>(b, a, n); }, 2 * W),
             best_tbps([&] { cp<16, false, true><<<blocks, threads>>>(b, a, n); }, 2 * W),
             best_tbps([&] { triad<8, false><<<blocks, threads>>>((float4*)a, (float4*)b, (float4*)c, 0.5f, n); }, 3 * W),
             best_tbps([&] { triad<16, false><<<blocks, threads>>>((float4*)a, (float4*)b, (float4*)c, 0.5f, n); }, 3 * W));
      fflush(stdout);
    }
  }
  return 0;
}
