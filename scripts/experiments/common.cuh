// Shared by the experiments in this folder: the CUDA error check; for the constant L1.5 ones
// (const_l15_*.cu) the SM id and a random cycle over
// lines `stride` bytes apart as word indices in a 64 KiB constant table.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#define CK(x)                                                  \
  do {                                                         \
    cudaError_t e = (x);                                       \
    if (e != cudaSuccess) {                                    \
      printf("%s: %s\n", #x, cudaGetErrorString(e));           \
      exit(1);                                                 \
    }                                                          \
  } while (0)

constexpr int kBankWords = 16384;  // 64 KiB: all the constant data a module may declare

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

inline std::vector<unsigned> random_cycle(int lines, int stride, std::mt19937& rng) {
  std::vector<unsigned> order(lines), words(kBankWords, 0);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin() + 1, order.end(), rng);
  for (int k = 0; k < lines; ++k) words[order[k] * (stride / 4)] = order[(k + 1) % lines] * (stride / 4);
  return words;
}
