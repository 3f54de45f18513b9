// ISA corpus (compiled by `gpudissect isa` with nvcc at run time, not by the build): memory
// spaces, atomics, warp collectives, barriers, async copies and warp-level MMA.
#include <cuda_fp16.h>
#include <mma.h>

__constant__ float corpus_table[256];

extern "C" __global__ void corpus_memory(float* o, const float* __restrict__ in, int* counters, int n, int k) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = in[i] + __ldg(in + i + n) + corpus_table[threadIdx.x & 255];
  __syncthreads();
  float v = tile[(threadIdx.x * k) & 255];
  float local[32];
#pragma unroll 1
  for (int j = 0; j < 32; ++j) local[j] = tile[(j * 7 + threadIdx.x) & 255];
  v += local[k & 31];
  atomicAdd(counters, 1);
  atomicMax(counters + 1, int(v));
  atomicAdd(o + n, v);
  int old = atomicCAS(counters + 2, k, i);
  atomicAdd(reinterpret_cast<unsigned long long*>(counters + 4), 1ull);
  __threadfence();
  o[i] = v + float(old);
  reinterpret_cast<float4*>(o)[i + n] = reinterpret_cast<const float4*>(in)[i];
}

extern "C" __global__ void corpus_warp(int* o, const int* in, int lane) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  v += __shfl_sync(0xffffffff, v, lane);
  v += __shfl_xor_sync(0xffffffff, v, 1);
  v += __shfl_down_sync(0xffffffff, v, 2);
  v += __shfl_up_sync(0xffffffff, v, 4);
  v += __ballot_sync(0xffffffff, v > 0);
  v += __any_sync(0xffffffff, v == 3) + __all_sync(0xffffffff, v != 5);
  v += __match_any_sync(0xffffffff, v & 7);
  v += __reduce_add_sync(0xffffffff, v) + __reduce_max_sync(0xffffffff, v);
  v += __activemask();
  __syncwarp();
  if (v & 1) v = __popc(__ballot_sync(__activemask(), v > 9));
  __syncthreads();
  o[i] = v + __syncthreads_count(v > 0);
}

extern "C" __global__ void corpus_async_copy(float* o, const float* in) {
  __shared__ alignas(16) float buf[2][128];
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&buf[0][threadIdx.x * 4 % 128]));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(in + blockIdx.x * 128 + threadIdx.x * 4 % 128));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  __syncthreads();
  o[blockIdx.x * blockDim.x + threadIdx.x] = buf[0][threadIdx.x % 128] * 2.f;
}

extern "C" __global__ void corpus_mma(float* o, const half* a, const half* b) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(o, acc, 16, wmma::mem_row_major);
}
