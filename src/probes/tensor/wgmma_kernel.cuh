// The wgmma probes' timed kernel (src/probes/tensor/wgmma*.cu): warpgroups issuing groups of
// wgmma on operands in shared memory (or A in registers). Its instantiations all live in
// wgmma_kernels.cu, so editing a probe's host code does not recompile some 340 kernels.
#pragma once
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "core/ptx_async.cuh"
#include "core/ptx_wgmma.cuh"
#include "core/timing.cuh"

namespace gd::wgmma_probe {

using wgmma::Swizzle;

// K steps held in shared memory; the wgmma of a group cycle through them (descriptor advance).
constexpr int kSteps = 4;
constexpr int kWarpgroupThreads = 128;
constexpr int kMaxWarpgroups = 2;  // with N = 256 a thread holds 128 accumulators: two fit an SM

struct KernelArgs {
  const uint4* image;       // A tile then B tile, byte for byte as they lie in shared memory
  unsigned image_words;     // 16-byte words in the image
  unsigned a_bytes;         // B starts here (a multiple of 1024)
  const std::uint32_t* c;   // initial accumulator registers of a warpgroup's threads (R each)
  std::uint32_t* d;         // block 0, warpgroup 0: accumulator registers after the loop
  RegionTiming* timing;     // one per block
  int iters;
  unsigned swizzle;         // wgmma::Swizzle
  std::uint32_t meta;       // sparse metadata, the same word in every thread
  std::uint32_t sentinel;   // an accumulator XOR no thread reaches: keeps every result live
};

__device__ __forceinline__ std::uint32_t reg_bits(float x) { return __float_as_uint(x); }
__device__ __forceinline__ std::uint32_t reg_bits(std::uint32_t x) { return x; }
template <class Reg>
__device__ __forceinline__ Reg reg_from(std::uint32_t x) {
  if constexpr (std::is_same_v<Reg, float>) return __uint_as_float(x);
  else return x;
}

// Each iteration: fence, U wgmma back to back (K steps j mod 4), commit, wait until at most G-1
// groups are in flight. U = 1, G = 1 is the latency chain (issue to wait_group 0, the next
// wgmma depending on the accumulator); larger U and G the throughput loop. Thread 0 times the
// block; all warpgroups of the block share the operands in shared memory.
template <class Op, int N, bool RS, int U, int G>
__global__ void __launch_bounds__(kMaxWarpgroups * kWarpgroupThreads, 1) wgmma_kernel(KernelArgs p) {
#if GD_WGMMA
  using Reg = typename Op::Reg;
  constexpr int R = Op::template regs<N>;
  constexpr unsigned kBStep = Op::sparse ? 64 : 32;  // bytes of K per row and wgmma (A: always 32)
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const unsigned raw = ptx::smem_u32(smem_raw);
  const unsigned base = (raw + 1023) & ~1023u;
  unsigned char* tile = smem_raw + (base - raw);
  for (unsigned i = threadIdx.x; i < p.image_words; i += blockDim.x) reinterpret_cast<uint4*>(tile)[i] = p.image[i];
  ptx::fence_proxy_async_shared();  // the generic-proxy stores above, before wgmma reads them
  __syncthreads();
  const Swizzle swz = Swizzle(p.swizzle);
  std::uint64_t da[kSteps], db[kSteps];
  std::uint32_t a[kSteps][4];
  const unsigned lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
#pragma unroll
  for (int s = 0; s < kSteps; ++s) {
    da[s] = wgmma::kmajor_desc(base, 32 * s, 64, swz);
    db[s] = wgmma::kmajor_desc(base + p.a_bytes, kBStep * s, N, swz);
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      // The A fragment of m64k(32 bytes): register r holds 4 bytes of row 16w + lane/4 (+8 for
      // odd r) at K byte 16 (r / 2) + 4 (lane % 4): the same bytes for every operand type.
      const unsigned row = 16 * warp + lane / 4 + 8 * (r & 1);
      const unsigned kb = 32 * s + 16 * (r >> 1) + 4 * (lane % 4);
      a[s][r] = RS ? *reinterpret_cast<const std::uint32_t*>(tile + wgmma::kmajor_offset(row, kb, 64, swz)) : 0u;
    }
  }
  const unsigned t = threadIdx.x % kWarpgroupThreads;
  Reg d[R];
#pragma unroll
  for (int i = 0; i < R; ++i) {
    d[i] = reg_from<Reg>(p.c[t * R + i]);
    wgmma::fence_operand(d[i]);
  }
  BlockClock clock;
  __syncthreads();
  clock.begin();
  for (int it = 0; it < p.iters; ++it) {
    wgmma::fence();
#pragma unroll
    for (int j = 0; j < U; ++j) Op::template mma<N, RS>(d, a[j % kSteps], da[j % kSteps], db[j % kSteps], p.meta);
    wgmma::commit_group();
    wgmma::wait_group<G - 1>();
  }
  wgmma::wait_group<0>();
#pragma unroll
  for (int i = 0; i < R; ++i) wgmma::fence_operand(d[i]);
  __syncthreads();
  clock.end(p.timing);
  if (blockIdx.x == 0 && threadIdx.x < kWarpgroupThreads) {
#pragma unroll
    for (int i = 0; i < R; ++i) p.d[t * R + i] = reg_bits(d[i]);
  } else {
    std::uint32_t x = 0;
#pragma unroll
    for (int i = 0; i < R; ++i) x ^= reg_bits(d[i]);
    if (x == p.sentinel) p.d[0] = x;
  }
#endif
}
using Kernel = void (*)(KernelArgs);

// The kernels of ptx_wgmma.cuh's operation `op` (its struct's name, "F16F32", ...) for a run-time
// N and operand source; nullptr for an N or operation not instantiated (wgmma_kernels.cu).
Kernel latency_kernel(std::string_view op, int n, bool rs);     // U = 1, G = 1
Kernel throughput_kernel(std::string_view op, int n, bool rs);  // U = kSteps, G = 2
// One wgmma per group, `groups` groups in flight, operands in shared memory: F16F32 and E4m3F32
// at N = 64 and 256.
Kernel inflight_kernel(std::string_view op, int n, int groups);

}  // namespace gd::wgmma_probe
