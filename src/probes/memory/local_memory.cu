// Local memory (what register spills and dynamically indexed arrays compile to): latency of a
// dependent chase through a per-thread array (L1-resident and past L1) and the bandwidth of a
// spill-like store/reload stream, in bytes per clock per SM.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "analysis/chain.hpp"
#include "analysis/sm_rate.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "memory_common.hpp"
#include "memory_tools.hpp"

namespace gd {
namespace probe_local_memory {

constexpr int kLocalUnroll = 8;

// Every lane fills its own array from the cycle `next` and chases it: a warp's loads of one index
// are one line of the interleaved local window, so the warp's footprint is Words x 128 bytes
// (256 words: 32 KiB, inside L1; 2048: 256 KiB, past it).
template <int Words>
__global__ void __launch_bounds__(32) local_chase_kernel(const unsigned* next, int steps, RegionTiming* timing,
                                                         unsigned* sink) {
  unsigned a[Words];
#pragma unroll 1
  for (int i = 0; i < Words; ++i) a[i] = next[i];
  unsigned i = 0;
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int s = 0; s < steps; s += kLocalUnroll) {
#pragma unroll
    for (int k = 0; k < kLocalUnroll; ++k) i = a[i];
  }
  const RegionTiming t = clock.end();
  if (threadIdx.x == 0) timing[0] = t;
  if (i == 0xffffffffu) sink[0] = i;
}

void run_local_latency(ProbeContext& ctx) {
  const int words = int(ctx.int_param("words"));
  std::mt19937_64 rng(std::random_device{}());
  DeviceBuffer<unsigned> next{std::size_t(words)}, sink{1};
  memory::with_value<256, 2048>(words, "words", [&](auto wc) {
    constexpr int W = decltype(wc)::value;
    next.from_host(memory::random_cycle(W, rng));
    GD_CUDA_CHECK(cudaFuncSetAttribute(local_chase_kernel<W>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       int(cudaSharedmemCarveoutMaxL1)));
    const std::vector<std::int64_t> lengths{256, 512, 1024};
    emit_chain_latency(ctx, measure_launched_chain(ctx, lengths, [&](std::int64_t steps, RegionTiming* timing) {
      launch(ctx, local_chase_kernel<W>, {1, 32}, next.get(), int(steps), timing, sink.get());
      GD_CUDA_CHECK_LAUNCH();
    }));
  });
  ctx.extra()["warp_footprint_bytes"] = words * 128;
}

ProbeSpec local_latency_spec() {
  ProbeSpec s;
  s.id = "memory.local.latency";
  s.description = "local-memory (spill) load latency: a chase through a per-thread array, 32 KiB or 256 KiB per warp";
  s.axes = {std::move(Axis::list("words", {256, 2048})).quick({256})};
  for (const std::string w : {"256", "2048"})
    s.sass.push_back(expect_sass("*local_chase_kernel<" + w + ">*", SassRegion::Clocked, {{"LDL", kLocalUnroll, -1}},
                                 {"STL", "LDG"}));
  s.metrics = chain_latency_metrics("latency of one dependent local load (LDL)");
  s.run = run_local_latency;
  s.time_cap_s = 3;
  s.quick_time_cap_s = 1;
  return s;
}

GD_REGISTER_PROBE(local_latency_spec());

// --------------------------------------------------------------------------------- bandwidth

constexpr int kLocalVecs = 16;        // 256 bytes of local array per thread
constexpr int kStreamThreads = 512;   // one block per SM: 128 KiB of local data, inside L1

// Each trip stores the whole array (STL.128) and reloads it (LDL.128), as a spill and its reload;
// `j` and `r` (both 0 at run time) make every index dynamic, which keeps the array in local
// memory, and ptxas cannot match a reload to its store (so no load is forwarded away).
__global__ void __launch_bounds__(kStreamThreads) local_stream_kernel(int trips, unsigned j, unsigned r,
                                                                      RegionTiming* timing, unsigned* sink) {
  uint4 a[kLocalVecs];
  unsigned acc = threadIdx.x;
  __syncthreads();
  BlockClock clock;
  clock.begin();
#pragma unroll 1
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int k = 0; k < kLocalVecs; ++k) a[(k + j) % kLocalVecs] = make_uint4(acc + k, acc, acc ^ k, t);
#pragma unroll
    for (int k = 0; k < kLocalVecs; ++k) {
      const uint4 v = a[(k + r) % kLocalVecs];
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  }
  __syncthreads();
  clock.end(timing);
  if (acc == 0x7fffffffu) sink[0] = acc;
}

void run_local_bandwidth(ProbeContext& ctx) {
  const DeviceInfo& d = ctx.device();
  const int trips = int(ctx.int_param("trips"));
  if (trips < 1) throw UserError("trips must be positive");
  GD_CUDA_CHECK(cudaFuncSetAttribute(local_stream_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     int(cudaSharedmemCarveoutMaxL1)));
  DeviceBuffer<RegionTiming> timing(std::size_t(d.sm_count));
  DeviceBuffer<unsigned> sink(1);
  const double bytes_per_block = 2.0 * kLocalVecs * 16 * kStreamThreads * trips;  // stored + reloaded
  const memory::SmRateResult r = memory::measure_sm_rate(ctx, timing, bytes_per_block, [&] {
    launch(ctx, local_stream_kernel, {unsigned(d.sm_count), kStreamThreads}, trips, 0u, 0u, timing.get(), sink.get());
    GD_CUDA_CHECK_LAUNCH();
  });
  ctx.metric("bandwidth/bytes_per_clk_per_sm", r.bytes_per_clock);
  ctx.metric("bandwidth/tbps", r.bytes_per_clock.median * d.sm_count * r.mhz * 1e6 / 1e12);
  ctx.extra()["local_bytes_per_sm"] = kLocalVecs * 16 * kStreamThreads;
}

ProbeSpec local_bandwidth_spec() {
  ProbeSpec s;
  s.id = "memory.local.bandwidth";
  s.description = "local-memory (spill) store+reload bandwidth, 16-byte STL/LDL, 128 KiB per SM, B/clk/SM";
  s.axes = {std::move(Axis::list("trips", std::vector<std::int64_t>{256})).quick({64})};
  s.sass = {expect_sass("*local_stream_kernel*", SassRegion::Clocked, {{"STL.128", kLocalVecs, -1}, {"LDL.128", kLocalVecs, -1}},
                        {"LDG", "STG"})};
  s.metrics = {{"bandwidth/bytes_per_clk_per_sm", "B/clk/SM", "bytes stored plus reloaded per SM clock (median over SMs)"},
               {"bandwidth/tbps", "TB/s", "bytes per clock per SM x SM count x observed clock"}};
  s.run = run_local_bandwidth;
  s.time_cap_s = 3;
  s.quick_time_cap_s = 1;
  return s;
}

GD_REGISTER_PROBE(local_bandwidth_spec());

}  // namespace probe_local_memory
}  // namespace gd
