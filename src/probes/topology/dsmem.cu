// Distributed shared memory: load latency into the own and a remote block's shared memory,
// bandwidth per SM by cluster size and access width, and the cluster barrier's cost: what a
// kernel pays to share data across the SMs of a cluster instead of through L2.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "analysis/chain.hpp"
#include "core/device_buffer.hpp"
#include "core/launch_ex.cuh"
#include "core/ptx_cluster.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"

namespace gd {
namespace probe_dsmem {

// ---------------------------------------------------------------------------- latency (chase)

constexpr int kChaseSlots = 1024;  // 4 KiB of 32-bit slots per block
constexpr int kChaseUnroll = 8;

// Every block fills its slots with the address of the next slot of a random cycle, in the window
// the reader uses (plain shared, or the cluster window mapped to this block); thread 0 of rank 0
// then chases `steps` loads through block `target`'s slots. The cluster barrier at the end keeps
// every block's shared memory alive until the reader is done.
template <bool Cluster>
__global__ void dsmem_chase_kernel(const uint32_t* perm, unsigned target, int steps, RegionTiming* timing,
                                   uint32_t* sink) {
  __shared__ uint32_t slots[kChaseSlots];
  const unsigned rank = ptx::cluster_ctarank();
  for (int i = threadIdx.x; i < kChaseSlots; i += blockDim.x) {
    const uint32_t next = ptx::shared_addr(&slots[perm[i]]);
    slots[i] = Cluster ? ptx::mapa_shared(next, rank) : next;
  }
  ptx::cluster_sync();
  if (rank == 0 && threadIdx.x == 0) {
    const uint32_t first = ptx::shared_addr(&slots[0]);
    uint32_t p = Cluster ? ptx::mapa_shared(first, target) : first;
    RegionClock clock;
    clock.begin();
#pragma unroll 1
    for (int i = 0; i < steps; i += kChaseUnroll) {
#pragma unroll
      for (int k = 0; k < kChaseUnroll; ++k) p = Cluster ? ptx::ld_cluster_u32(p) : ptx::ld_shared_u32(p);
    }
    timing[0] = clock.end();
    if (p == 1) sink[0] = p;  // keeps the chain; a slot address is never 1
  }
  __syncthreads();
  ptx::cluster_sync();
}

// A random single cycle over the slots (Sattolo), so no stride pattern helps.
std::vector<uint32_t> random_cycle(int n) {
  std::vector<uint32_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0u);
  std::mt19937 rng(std::random_device{}());
  for (int i = n - 1; i > 0; --i) std::swap(perm[i], perm[std::uniform_int_distribution<int>(0, i - 1)(rng)]);
  return perm;
}

// Skips when the driver will not schedule a cluster of `size` for this kernel and shape.
template <class... P>
void require_cluster(ProbeContext& ctx, void (*kernel)(P...), const LaunchShape& shape, unsigned size) {
  allow_cluster_launch(kernel, shape.shared_bytes);
  const int largest = max_cluster_size(kernel, shape);
  if (int(size) > largest)
    ctx.skip("cluster size " + std::to_string(size) + " exceeds the largest the driver schedules for this kernel (" +
             std::to_string(largest) + ")");
}

void run_latency(ProbeContext& ctx) {
  const unsigned size = unsigned(ctx.int_param("cluster_size"));
  const std::string target = ctx.str_param("target");
  const bool cluster = target != "local";
  const unsigned target_rank = target == "remote" ? size - 1 : 0;
  if (target == "remote" && size < 2) ctx.skip("a remote block needs a cluster of 2 or more");
  auto* kernel = cluster ? dsmem_chase_kernel<true> : dsmem_chase_kernel<false>;
  const LaunchShape shape{size, 128, 0};
  require_cluster(ctx, kernel, shape, size);
  DeviceBuffer<uint32_t> perm(kChaseSlots), sink(1);
  perm.from_host(random_cycle(kChaseSlots));
  const std::vector<std::int64_t> lengths{256, 512, 1024, 2048};
  const ChainLatency lat = measure_launched_chain(ctx, lengths, [&](std::int64_t steps, RegionTiming* timing) {
    launch_ex(ctx, kernel, shape, LaunchAttrs{size}, perm.get(), target_rank, int(steps), timing, sink.get());
  });
  emit_chain_latency(ctx, lat);
}

ProbeSpec latency_spec() {
  ProbeSpec s;
  s.id = "topology.dsmem.latency";
  s.description = "Shared-memory load-to-use latency: plain ld.shared, own block through the cluster window, "
                  "and a remote block's (DSMEM), by cluster size";
  s.needs.min_cc = 90;
  s.needs.features = {Feature::Clusters};
  s.axes = {Axis::list("target", std::vector<std::string>{"local", "own", "remote"}),
            std::move(Axis::list("cluster_size", {2, 4, 8, 16})).quick({2, 16})};
  s.sass = {expect_sass("*dsmem_chase_kernel<true>*", SassRegion::Clocked, {{"LD.E", kChaseUnroll, -1}}, {"LDL", "STL", "LDS"}),
            expect_sass("*dsmem_chase_kernel<false>*", SassRegion::Clocked, {{"LDS", kChaseUnroll, -1}})};
  s.metrics = chain_latency_metrics("cycles per dependent shared-memory load");
  s.covers = {{"cluster.dsmem.read_latency", "latency/cycles", {{"cluster_size", std::int64_t(2)}, {"target", std::string("remote")}}}};
  s.run = run_latency;
  s.time_cap_s = 10;
  s.quick_time_cap_s = 3;
  return s;
}

GD_REGISTER_PROBE(latency_spec());

// ---------------------------------------------------------------------------- bandwidth

constexpr int kBwThreads = 512;
constexpr int kBwBytes = 32 * 1024;  // the buffer each block exposes to its neighbour
constexpr int kBwUnroll = 4;

template <int W>
__device__ __forceinline__ uint32_t ld_fold(uint32_t addr) {
  if constexpr (W == 4) return ptx::ld_cluster_u32(addr);
  if constexpr (W == 8) { const uint2 v = ptx::ld_cluster_v2(addr); return v.x ^ v.y; }
  if constexpr (W == 16) { const uint4 v = ptx::ld_cluster_v4(addr); return v.x ^ v.y ^ v.z ^ v.w; }
}
template <int W>
__device__ __forceinline__ void st_w(uint32_t addr, uint32_t v) {
  if constexpr (W == 4) ptx::st_cluster_u32(addr, v);
  if constexpr (W == 8) ptx::st_cluster_v2(addr, make_uint2(v, v + 1));
  if constexpr (W == 16) ptx::st_cluster_v4(addr, make_uint4(v, v + 1, v + 2, v + 3));
}

// Each block reads (or writes) `passes` times the buffer of the next block in its cluster (its
// own with a cluster of one), W bytes per access, kBwUnroll accesses in flight per thread. The
// timed region runs from one cluster barrier to the next, so stores count once they are visible.
template <int W, bool Store>
__global__ void __launch_bounds__(kBwThreads) dsmem_bw_kernel(int passes, uint32_t seed, RegionTiming* timing,
                                                              uint32_t* sink) {
  extern __shared__ uint4 buf[];
  for (int i = threadIdx.x; i < kBwBytes / 16; i += blockDim.x) buf[i] = make_uint4(i ^ seed, i, seed, i + seed);
  const unsigned peer = (ptx::cluster_ctarank() + 1) % ptx::cluster_nctarank();
  const uint32_t base = ptx::mapa_shared(ptx::shared_addr(buf), peer);
  constexpr int kElems = kBwBytes / W;
  constexpr int kPerTrip = kBwThreads * kBwUnroll;
  uint32_t acc = seed;
  ptx::cluster_sync();
  RegionClock clock;
  if (threadIdx.x == 0) clock.begin();
#pragma unroll 1
  for (int p = 0; p < passes; ++p) {
#pragma unroll 1
    for (int e = threadIdx.x; e < kElems; e += kPerTrip) {
#pragma unroll
      for (int k = 0; k < kBwUnroll; ++k) {
        const uint32_t addr = base + uint32_t(e + k * kBwThreads) * W;
        if constexpr (Store) st_w<W>(addr, acc + k);
        else acc ^= ld_fold<W>(addr);
      }
    }
  }
  ptx::cluster_sync();
  if (threadIdx.x == 0) timing[blockIdx.x] = clock.end();
  if (acc == 0x7fffffffu) sink[0] = acc;
}

using BwKernel = void (*)(int, uint32_t, RegionTiming*, uint32_t*);

template <int W>
BwKernel bw_kernel(bool store) {
  return store ? dsmem_bw_kernel<W, true> : dsmem_bw_kernel<W, false>;
}

void run_bandwidth(ProbeContext& ctx) {
  const unsigned size = unsigned(ctx.int_param("cluster_size"));
  const int width = int(ctx.int_param("width"));
  const bool store = ctx.str_param("op") == "st";
  const DeviceInfo& d = ctx.device();
  BwKernel kernel = width == 4 ? bw_kernel<4>(store) : width == 8 ? bw_kernel<8>(store) : width == 16 ? bw_kernel<16>(store) : nullptr;
  if (!kernel) throw Error("dsmem bandwidth: width must be 4, 8 or 16 bytes");
  // The most shared memory a block may take: one block per SM, so bytes per SM are per block.
  const std::size_t smem = one_block_per_sm_shared_bytes(kernel, d.shared_per_block_optin);
  LaunchShape shape{size, kBwThreads, smem};
  require_cluster(ctx, kernel, shape, size);
  const int fitting = max_active_clusters(kernel, shape, size);
  if (fitting < 1) ctx.skip("no cluster of this size fits");
  // A --functional run: one cluster, one pass over its neighbour's buffer.
  const int clusters = ctx.sized(fitting, 1);
  shape.grid = dim3(unsigned(clusters) * size);
  const int passes = ctx.sized(64, 1);
  DeviceBuffer<RegionTiming> timing(shape.grid.x);
  DeviceBuffer<uint32_t> sink(1);
  std::mt19937 rng(std::random_device{}());
  const double bytes_per_block = double(kBwBytes) * passes;
  std::vector<RegionTiming> last;
  double gpu_bytes_per_clk = 0;
  RepeatPolicy policy;
  policy.warmup = 2;
  policy.max_samples = 50;
  const RepeatResult res = ctx.measure(
      [&] {
        launch_ex(ctx, kernel, shape, LaunchAttrs{size}, passes, uint32_t(rng()), timing.get(), sink.get());
        last = timing.to_host();
        std::vector<double> per_sm;
        long long longest = 0;
        for (const RegionTiming& t : last) {
          per_sm.push_back(bytes_per_block / double(t.cycles));
          longest = std::max(longest, t.cycles);
        }
        gpu_bytes_per_clk = bytes_per_block * double(last.size()) / double(longest);
        return summarize(per_sm).median;
      },
      policy);
  ctx.set_observed_sm_clock_mhz(clock_mhz(last), "clock64 over %globaltimer, thread 0 of every block of the last launch");
  ctx.metric("bandwidth/bytes_per_clk_per_sm", res.summary);
  ctx.metric("bandwidth/cluster_bytes_per_clk", res.summary.median * size);
  ctx.metric("bandwidth/gpu_bytes_per_clk", gpu_bytes_per_clk);
  ctx.metric("bandwidth/gpu_gbps", gpu_bytes_per_clk * ctx.observed_sm_clock_mhz() * 1e-3);
  ctx.extra()["clusters"] = clusters;
  ctx.extra()["target"] = size == 1 ? "own shared memory through the cluster window" : "the next block of the cluster";
}

std::vector<SassExpectation> bw_sass() {
  std::vector<SassExpectation> v;
  for (const char* w : {"4", "8", "16"}) {
    const std::string ld = std::string("LD.E") + (std::string(w) == "4" ? "" : std::string(w) == "8" ? ".64" : ".128");
    const std::string st = std::string("ST.E") + (std::string(w) == "4" ? "" : std::string(w) == "8" ? ".64" : ".128");
    v.push_back(expect_sass(std::string("*dsmem_bw_kernel<") + w + ", false>*", SassRegion::Clocked, {{ld, kBwUnroll, -1}}));
    v.push_back(expect_sass(std::string("*dsmem_bw_kernel<") + w + ", true>*", SassRegion::Clocked, {{st, kBwUnroll, -1}}));
  }
  return v;
}

// Per cluster size of two or more: the access pattern (load or store, width) that moves the most
// bytes per SM clock to a neighbour's shared memory, named in extra.best_pattern.
void summarize_bandwidth(SummaryContext& sc) {
  for (const std::int64_t size : {2, 4, 8, 16}) {
    const std::vector<const Record*> pts = sc.ok_records({{"cluster_size", size}});
    Record* b = sc.derive_best({{"cluster_size", size}, {"curve", std::string("best")}}, pts, "bandwidth/bytes_per_clk_per_sm");
    if (!b) continue;
    const std::string op = b->extra["best_point"].value("op", std::string());
    const std::int64_t width = b->extra["best_point"].value("width", std::int64_t(0));
    b->extra["best_pattern"] = (op == "st" ? "st.shared::cluster" : "ld.shared::cluster") +
                               std::string(width == 16 ? ".v4.u32" : width == 8 ? ".v2.u32" : ".u32") + " (" +
                               std::to_string(width) + " B per thread), consecutive threads on consecutive addresses";
  }
}

ProbeSpec bandwidth_spec() {
  ProbeSpec s;
  s.id = "topology.dsmem.bandwidth";
  s.description = "DSMEM bandwidth in bytes/clk per SM, per cluster and for the GPU: each block loads or stores "
                  "its neighbour's shared memory, by cluster size and access width";
  s.needs.min_cc = 90;
  s.needs.features = {Feature::Clusters};
  s.axes = {Axis::list("op", std::vector<std::string>{"ld", "st"}), Axis::list("width", {4, 8, 16}),
            std::move(Axis::list("cluster_size", {1, 2, 4, 8, 16})).quick({1, 2, 8})};
  s.sass = bw_sass();
  s.metrics = {{"bandwidth/bytes_per_clk_per_sm", "B/clk", "bytes moved per SM clock by one block (one block per SM), median over blocks"},
               {"bandwidth/cluster_bytes_per_clk", "B/clk", "per-SM figure times the cluster size"},
               {"bandwidth/gpu_bytes_per_clk", "B/clk", "all blocks' bytes over the slowest block's cycles"},
               {"bandwidth/gpu_gbps", "GB/s", "the same at the observed SM clock"}};
  const auto ld16 = [](std::int64_t cluster_size) {
    return Params{{"cluster_size", cluster_size}, {"op", std::string("ld")}, {"width", std::int64_t(16)}};
  };
  // A cluster of one reads the block's own shared memory through the cluster window (ld.shared::cluster).
  s.covers = {{"cluster.dsmem.bw_by_ptx_pattern", "bandwidth/bytes_per_clk_per_sm", ld16(2)},
              {"smem.bandwidth.via_cluster_address", "bandwidth/bytes_per_clk_per_sm", ld16(1)},
              {"cluster.dsmem.best_access_pattern", "extra.best_pattern",
               {{"cluster_size", std::int64_t(2)}, {"curve", std::string("best")}}}};
  s.run = run_bandwidth;
  s.summarize = summarize_bandwidth;
  s.time_cap_s = 15;
  s.quick_time_cap_s = 4;
  return s;
}

GD_REGISTER_PROBE(bandwidth_spec());

// ---------------------------------------------------------------------------- cluster barrier

// Every thread of every block runs `steps` cluster barriers; thread 0 of rank 0 times them. The
// release arrive is what cluster.sync() does (a memory fence first); the relaxed one is the
// barrier alone.
template <bool Relaxed>
__global__ void cluster_barrier_kernel(int steps, RegionTiming* timing) {
  ptx::cluster_sync();
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < steps; ++i) {
    if (Relaxed) ptx::cluster_arrive_relaxed();
    else ptx::cluster_arrive();
    ptx::cluster_wait();
  }
  if (threadIdx.x == 0 && ptx::cluster_ctarank() == 0) timing[0] = clock.end();
}

void run_barrier(ProbeContext& ctx) {
  const unsigned size = unsigned(ctx.int_param("cluster_size"));
  const std::string arrive = ctx.str_param("arrive");
  if (arrive != "release" && arrive != "relaxed") throw Error("unknown arrive '" + arrive + "' (release, relaxed)");
  auto* kernel = arrive == "relaxed" ? cluster_barrier_kernel<true> : cluster_barrier_kernel<false>;
  const LaunchShape shape{size, 128, 0};
  require_cluster(ctx, kernel, shape, size);
  const std::vector<std::int64_t> lengths{32, 64, 128, 256};
  const ChainLatency lat = measure_launched_chain(ctx, lengths, [&](std::int64_t steps, RegionTiming* timing) {
    launch_ex(ctx, kernel, shape, LaunchAttrs{size}, int(steps), timing);
  });
  emit_chain_latency(ctx, lat);
}

ProbeSpec barrier_spec() {
  ProbeSpec s;
  s.id = "topology.cluster.barrier";
  s.description = "Cluster barrier (barrier.cluster.arrive + wait) round latency by cluster size, release or relaxed arrive, 4 warps per block";
  s.needs.min_cc = 90;
  s.needs.features = {Feature::Clusters};
  s.axes = {Axis::list("arrive", std::vector<std::string>{"release", "relaxed"}),
            std::move(Axis::list("cluster_size", {1, 2, 4, 8, 16})).quick({2, 16})};
  s.sass = {expect_sass("*cluster_barrier_kernel<false>*", SassRegion::Clocked,
                        {{"UCGABAR_ARV", 1, -1}, {"UCGABAR_WAIT", 1, -1}, {"MEMBAR", 1, -1}}),
            expect_sass("*cluster_barrier_kernel<true>*", SassRegion::Clocked, {{"UCGABAR_ARV", 1, -1}, {"UCGABAR_WAIT", 1, -1}},
                        {"LDL", "STL", "MEMBAR"})};
  s.metrics = chain_latency_metrics("cycles per cluster barrier round (arrive then wait)");
  s.covers = {{"cluster.barrier.latency", "latency/cycles", {{"arrive", std::string("release")}, {"cluster_size", std::int64_t(2)}}}};
  s.run = run_barrier;
  s.time_cap_s = 6;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(barrier_spec());

}  // namespace probe_dsmem
}  // namespace gd
