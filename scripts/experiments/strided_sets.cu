// Experiment (not part of the suite; issue 34): how many lines d bytes apart fit in the L1 through
// plain loads (ld.global, LDG.E) and through the texture path (tex1Dfetch on a linear texture)?
// A random cyclic chase over n lines d bytes apart, one thread, the largest L1 carveout: below the
// knee every step hits. If the knee in lines stays at the capacity as d grows, strided lines reach
// every set (a hashed index, or a line at least d long for the knee in bytes to stay put); if it
// falls with d, d's lines share fewer sets (an unhashed index). Then: do the four sub-partitions of
// an SM share one L1 (warp 0 warms a chain, warp 2 times it)?
// Build: nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o strided_sets strided_sets.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "common.cuh"  // CK

template <bool TEX>
__device__ __forceinline__ unsigned next(const unsigned* buf, cudaTextureObject_t t, unsigned i) {
  if constexpr (TEX) return tex1Dfetch<unsigned>(t, int(i));
  else {
    unsigned v;
    asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(buf + i));
    return v;
  }
}

template <bool TEX>
__global__ void chase(const unsigned* buf, cudaTextureObject_t t, int warm, int steps, long long* cyc, unsigned* sink) {
  unsigned i = 0;
  for (int s = 0; s < warm; ++s) i = next<TEX>(buf, t, i);
  const long long t0 = clock64();
  for (int s = 0; s < steps; ++s) i = next<TEX>(buf, t, i);
  const long long t1 = clock64();
  cyc[0] = t1 - t0;
  sink[0] = i;
}

// Warp `warmer` laps the chain, then warp `timer` times a lap: one L1 for both, or two.
__global__ void subpartitions(const unsigned* buf, int lap, int warmer, int timer, long long* cyc, unsigned* sink) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned i = 0;
  if (warp == warmer && lane == 0)
    for (int s = 0; s < lap; ++s) i = next<false>(buf, 0, i);
  __syncthreads();
  if (warp == timer && lane == 0) {
    const long long t0 = clock64();
    for (int s = 0; s < lap; ++s) i = next<false>(buf, 0, i);
    cyc[0] = clock64() - t0;
  }
  if (lane == 0) sink[warp] = i;
}

int main() {
  const size_t kBufBytes = size_t(64) << 20;
  const size_t words = kBufBytes / 4;
  unsigned *buf, *sink;
  long long* cyc;
  CK(cudaMalloc(&buf, kBufBytes));
  CK(cudaMalloc(&sink, 64 * 4));
  CK(cudaMalloc(&cyc, 8));
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = buf;
  res.res.linear.desc = cudaCreateChannelDesc<unsigned>();
  res.res.linear.sizeInBytes = kBufBytes;
  cudaTextureDesc td{};
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex;
  CK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  CK(cudaFuncSetAttribute(chase<false>, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  CK(cudaFuncSetAttribute(chase<true>, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  CK(cudaFuncSetAttribute(subpartitions, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  std::mt19937_64 rng(7);
  std::vector<unsigned> host(words, 0);
  auto write_chain = [&](size_t n, size_t dw) {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t(0));
    std::shuffle(order.begin() + 1, order.end(), rng);  // a random cycle starting at line 0
    std::fill(host.begin(), host.begin() + std::min(words, n * dw + 1), 0u);
    for (size_t k = 0; k < n; ++k) host[order[k] * dw] = unsigned(order[(k + 1) % n] * dw);
    CK(cudaMemcpy(buf, host.data(), std::min(words, n * dw + 1) * 4, cudaMemcpyHostToDevice));
  };
  auto per_step = [&](bool texture, int n) {
    const int steps = std::max(2048, 2 * n);
    double best = 1e30;
    for (int r = 0; r < 3; ++r) {
      if (texture) chase<true><<<1, 1>>>(buf, tex, n, steps, cyc, sink);
      else chase<false><<<1, 1>>>(buf, tex, n, steps, cyc, sink);
      CK(cudaDeviceSynchronize());
      long long c;
      CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
      best = std::min(best, double(c) / steps);
    }
    return best;
  };
  const int ns[] = {16, 64, 128, 192, 256, 384, 448, 512, 640, 768, 896, 1024, 1280, 1536, 1664, 1792, 1856, 1920, 2048, 2560, 3072, 4096};
  const size_t ds[] = {128, 256, 512, 1024, 2048, 4096, 8192, 16384};
  for (int texture = 0; texture < 2; ++texture) {
    printf("\n%s: cycles per step of a random cycle over n lines d bytes apart (min of 3)\n", texture ? "texture" : "ld.global");
    printf("%8s", "n \\ d");
    for (size_t d : ds) printf("%8zu", d);
    printf("\n");
    for (int n : ns) {
      printf("%8d", n);
      for (size_t d : ds) {
        if (size_t(n) * d > kBufBytes) {
          printf("%8s", "-");
          continue;
        }
        write_chain(size_t(n), d / 4);
        printf("%8.1f", per_step(texture, n));
      }
      printf("\n");
    }
  }
  // Sub-partitions: a 128 KiB random chain in 128-byte lines; warp w runs on sub-partition w % 4.
  const int lap = 1024;
  write_chain(lap, 32);
  printf("\none SM, 4 warps: a lap of a 128 KiB chain timed by one warp after another warmed it (cycles per load)\n");
  const int pairs[][2] = {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {-1, 2}};
  for (auto& p : pairs) {
    long long c;
    subpartitions<<<1, 128>>>(buf, lap, p[0], p[1], cyc, sink);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    printf("  warmed by warp %2d, timed by warp %d: %.1f\n", p[0], p[1], double(c) / lap);
  }
  return 0;
}
