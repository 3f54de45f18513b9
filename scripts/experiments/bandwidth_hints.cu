// Experiment (not part of the suite): do L2 prefetch-size hints on loads raise copy/triad
// bandwidth? Build: nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o bwh bandwidth_hints.cu
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

template <int H> __device__ __forceinline__ int4 ld(const int4* p) {
  int4 v;
  if (H == 0) asm volatile("ld.global.nc.v4.s32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  if (H == 1) asm volatile("ld.global.nc.L2::128B.v4.s32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  if (H == 2) asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.s32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}
__device__ __forceinline__ void st(int4* p, int4 v) {
  asm volatile("st.global.cs.v4.s32 [%0], {%1,%2,%3,%4};" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
template <int U, int H> __global__ void rd(const int4* a, long long n, int* sink) {
  long long s = (long long)gridDim.x * blockDim.x; int trips = int(n / (s * U));
  long long f = blockIdx.x * (long long)blockDim.x + threadIdx.x; int acc = 0;
  for (int t = 0; t < trips; ++t) { long long i = f + t * s * U; int4 v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = ld<H>(a + i + k * s);
#pragma unroll
    for (int k = 0; k < U; ++k) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w; }
  if (acc == 0x7fffffff) sink[0] = acc;
}
template <int U, int H> __global__ void cp(int4* b, const int4* a, long long n) {
  long long s = (long long)gridDim.x * blockDim.x; int trips = int(n / (s * U));
  long long f = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  for (int t = 0; t < trips; ++t) { long long i = f + t * s * U; int4 v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = ld<H>(a + i + k * s);
#pragma unroll
    for (int k = 0; k < U; ++k) st(b + i + k * s, v[k]); }
}
template <int U, int H> __global__ void tr(int4* a, const int4* b, const int4* c, long long n) {
  long long s = (long long)gridDim.x * blockDim.x; int trips = int(n / (s * U));
  long long f = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  for (int t = 0; t < trips; ++t) { long long i = f + t * s * U; int4 x[U], y[U];
#pragma unroll
    for (int k = 0; k < U; ++k) { x[k] = ld<H>(b + i + k * s); y[k] = ld<H>(c + i + k * s); }
#pragma unroll
    for (int k = 0; k < U; ++k) st(a + i + k * s, make_int4(x[k].x + 3 * y[k].x, x[k].y + 3 * y[k].y, x[k].z + 3 * y[k].z, x[k].w + 3 * y[k].w)); }
}
template <class F> double tbps(F launch, double bytes) {
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (int i = 0; i < 30; ++i) launch();  // ~100 ms of warm-up
  std::vector<float> ms;
  for (int i = 0; i < 15; ++i) { CK(cudaEventRecord(e0)); launch(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
    float m; CK(cudaEventElapsedTime(&m, e0, e1)); ms.push_back(m); }
  CK(cudaGetLastError()); std::sort(ms.begin(), ms.end());
  return bytes / (ms[ms.size() / 2] * 1e-3) / 1e12;
}
int main() {
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const long long B = 4LL << 30; int4 *a, *b, *c; int* sink;
  CK(cudaMalloc(&a, B)); CK(cudaMalloc(&b, B)); CK(cudaMalloc(&c, B)); CK(cudaMalloc(&sink, 4));
  CK(cudaMemset(a, 1, B)); CK(cudaMemset(b, 1, B)); CK(cudaMemset(c, 1, B));
  for (int threads : {256, 512, 1024}) for (int bps : {1, 2, 4}) {
    if (threads * bps > 2048) continue;
    const int blocks = sms * bps; const long long unit = (long long)blocks * threads * 4; const long long n = B / 16 / unit * unit;
    const double W = 16.0 * n;
    printf("threads=%4d bps=%d | rd h0 %.3f h1 %.3f h2 %.3f | cp h0 %.3f h1 %.3f h2 %.3f | tr h0 %.3f h1 %.3f h2 %.3f\n", threads, bps,
      tbps([&] { rd<4, 0><<<blocks, threads>>>(b, n, sink); }, W), tbps([&] { rd<4, 1><<<blocks, threads>>>(b, n, sink); }, W),
      tbps([&] { rd<4, 2><<<blocks, threads>>>(b, n, sink); }, W),
      tbps([&] { cp<4, 0><<<blocks, threads>>>(a, b, n); }, 2 * W), tbps([&] { cp<4, 1><<<blocks, threads>>>(a, b, n); }, 2 * W),
      tbps([&] { cp<4, 2><<<blocks, threads>>>(a, b, n); }, 2 * W),
      tbps([&] { tr<4, 0><<<blocks, threads>>>(a, b, c, n); }, 3 * W), tbps([&] { tr<4, 1><<<blocks, threads>>>(a, b, c, n); }, 3 * W),
      tbps([&] { tr<4, 2><<<blocks, threads>>>(a, b, c, n); }, 3 * W));
    fflush(stdout);
  }
  return 0;
}
