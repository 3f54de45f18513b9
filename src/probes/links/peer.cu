// The link to a second GPU: peer-to-peer copy bandwidth each way and both at once (copy engines
// and SM loads/stores), load and small-copy latency, and peer atomics, with the link type the
// driver reports: what tensor- and pipeline-parallel kernels pay to exchange data.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "analysis/chain.hpp"
#include "core/device_buffer.hpp"
#include "core/host_memory.hpp"
#include "core/host_timing.hpp"
#include "core/launch.cuh"
#include "core/nvml.hpp"
#include "core/ptx.cuh"
#include "core/ptx_cluster.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"

namespace gd {
namespace probe_peer {

// Makes `device` current for a scope.
class OnDevice {
 public:
  explicit OnDevice(int device) {
    GD_CUDA_CHECK(cudaGetDevice(&prev_));
    GD_CUDA_CHECK(cudaSetDevice(device));
  }
  ~OnDevice() { GD_CUDA_CHECK_NOTHROW(cudaSetDevice(prev_)); }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;

 private:
  int prev_ = 0;
};

struct Peers {
  int self = 0, peer = 1;
  bool access = false;  // each can map the other's memory (SM loads and stores, native P2P copies)
};

// The device under test and the next one; records what the driver and NVML say of the link,
// and enables peer access both ways where supported.
Peers open_peers(ProbeContext& ctx) {
  Peers p;
  p.self = ctx.device().index;
  p.peer = (p.self + 1) % std::max(ctx.device().gpu_count, 1);
  if (p.peer == p.self) ctx.skip("needs a second GPU");
  int can_ab = 0, can_ba = 0, rank = 0, atomics = 0;
  GD_CUDA_CHECK(cudaDeviceCanAccessPeer(&can_ab, p.self, p.peer));
  GD_CUDA_CHECK(cudaDeviceCanAccessPeer(&can_ba, p.peer, p.self));
  GD_CUDA_CHECK(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, p.self, p.peer));
  GD_CUDA_CHECK(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, p.self, p.peer));
  p.access = can_ab && can_ba;
  nlohmann::json link{{"peer_device", p.peer},
                      {"p2p_access_supported", p.access},
                      {"p2p_performance_rank", rank},
                      {"p2p_native_atomics", atomics != 0}};
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, p.peer) == cudaSuccess) {
    if (const auto l = read_peer_link(ctx.device().pci_bus_id, bus)) {
      link["nvlink"] = l->nvlink;
      link["pcie_common_ancestor"] = l->common_ancestor;
      link["link_type"] = l->nvlink ? "NVLink" : "PCIe";
    } else {
      link["link_type"] = "unknown (NVML unavailable)";
    }
  }
  ctx.extra()["link"] = link;
  if (p.access) {
    for (auto [from, to] : {std::pair{p.self, p.peer}, std::pair{p.peer, p.self}}) {
      OnDevice on(from);
      const cudaError_t rc = cudaDeviceEnablePeerAccess(to, 0);
      if (rc == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
      else GD_CUDA_CHECK(rc);
    }
  }
  return p;
}

// ---------------------------------------------------------------------------- bandwidth

constexpr int kThreads = 256;
constexpr int kUnroll = 4;

// Streams trips x grid x kUnroll 16-byte vectors: loads from src (which may be the peer's memory)
// or stores to dst. The host computes the trip count: a 64-bit division here spills on sm_120a.
template <bool Store>
__global__ void __launch_bounds__(kThreads) peer_stream_kernel(int4* dst, const int4* src, int trips, int seed,
                                                               int4* sink, RegionTiming* timing) {
  BlockClock clock;
  clock.begin();
  const long long stride = (long long)gridDim.x * blockDim.x;
  int acc = seed;
  for (int t = 0; t < trips; ++t) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x + t * stride * kUnroll;
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      if constexpr (Store) ptx::st_cs_v4(dst + i + k * stride, make_int4(acc, k, t, seed));
      else { const int4 v = ptx::ld_nc_v4(src + i + k * stride); acc ^= v.x ^ v.y ^ v.z ^ v.w; }
    }
  }
  if (!Store && acc == 0x7fffffff) sink[0] = make_int4(acc, 0, 0, 0);
  clock.end(timing);
}

void run_bandwidth(ProbeContext& ctx) {
  const std::string engine = ctx.str_param("engine"), dir = ctx.str_param("direction");
  const bool sm = engine == "sm";
  if (!sm && engine != "copy_engine") throw Error("unknown engine '" + engine + "' (copy_engine, sm)");
  if (dir != "write" && dir != "read" && dir != "bidir") throw Error("unknown direction '" + dir + "' (write, read, bidir)");
  const Peers p = open_peers(ctx);
  if (sm && !p.access) ctx.skip("SM loads and stores to the peer need peer access, which the driver does not offer here");
  const int blocks = ctx.device().sm_count * 4;
  const long long per_trip = (long long)blocks * kThreads * kUnroll;
  const long long n = ((ctx.quick() ? 64LL : 256LL) << 20) / 16 / per_trip * per_trip;
  const std::size_t bytes = std::size_t(n) * 16;
  const int trips = int(n / per_trip);
  DeviceBuffer<int4> local_a(n), local_b(n), sink(1);
  DeviceBuffer<RegionTiming> timing(blocks), peer_timing;
  DeviceBuffer<int4> remote_a, remote_b, peer_sink;
  Stream s1, s2;
  std::unique_ptr<Stream> peer_stream;
  {
    OnDevice on(p.peer);
    remote_a = DeviceBuffer<int4>(n);
    remote_b = DeviceBuffer<int4>(n);
    peer_sink = DeviceBuffer<int4>(1);
    peer_timing = DeviceBuffer<RegionTiming>(blocks);
    peer_stream = std::make_unique<Stream>();
    remote_a.fill_zero();
    remote_b.fill_zero();
  }
  local_a.fill_zero();
  const LaunchShape shape{unsigned(blocks), kThreads, 0, s1.get()};
  std::mt19937 rng(std::random_device{}());
  const bool write = dir == "write" || dir == "bidir", read = dir == "read" || dir == "bidir";
  const double moved = double(bytes) * (dir == "bidir" ? 2 : 1);
  // bidir with SMs: this GPU writes to the peer while the peer writes back (each pushes).
  const auto enqueue = [&] {
    if (!sm) {
      if (write) GD_CUDA_CHECK(cudaMemcpyPeerAsync(remote_a.get(), p.peer, local_a.get(), p.self, bytes, s1.get()));
      if (read) GD_CUDA_CHECK(cudaMemcpyPeerAsync(local_b.get(), p.self, remote_b.get(), p.peer, bytes, s2.get()));
      return;
    }
    if (dir == "read") {
      launch(ctx, peer_stream_kernel<false>, shape, local_b.get(), remote_b.get(), trips, int(rng()), sink.get(), timing.get());
      return;
    }
    launch(ctx, peer_stream_kernel<true>, shape, remote_a.get(), local_a.get(), trips, int(rng()), sink.get(), timing.get());
    if (dir == "bidir") {
      OnDevice on(p.peer);
      launch(ctx, peer_stream_kernel<true>, LaunchShape{unsigned(blocks), kThreads, 0, peer_stream->get()}, local_b.get(),
             remote_b.get(), trips, int(rng()), peer_sink.get(), peer_timing.get());
    }
  };
  RepeatPolicy policy;
  policy.warmup = 2;
  policy.target_rel_ci = 0.01;
  policy.time_cap_s = ctx.quick() ? 0.5 : 1.5;
  const Summary gbps = measure_host_timed(
                           ctx,
                           [&] {
                             enqueue();
                             GD_CUDA_CHECK(cudaStreamSynchronize(s1.get()));
                             GD_CUDA_CHECK(cudaStreamSynchronize(s2.get()));
                             GD_CUDA_CHECK(cudaStreamSynchronize(peer_stream->get()));
                           },
                           [&](double s) { return moved / s * 1e-9; }, policy)
                           .summary;
  if (sm) ctx.set_observed_sm_clock_mhz(clock_mhz(timing.to_host()), "clock64 over %globaltimer, every block of this GPU's last launch");
  else ctx.no_sm_clock("no SM code runs: the copy engines move the data");
  ctx.metric("bandwidth/gbps", gbps);
  ctx.extra()["bytes_per_direction"] = bytes;
}

ProbeSpec bandwidth_spec() {
  ProbeSpec s;
  s.id = "links.peer.bandwidth";
  s.description = "GPU-to-GPU bandwidth (GB/s, 10^9 B/s): writes to and reads from the peer and both at once, "
                  "by copy engines (cudaMemcpyPeerAsync) and by SM kernels on peer-mapped memory";
  s.needs.min_gpus = 2;
  s.axes = {Axis::list("engine", std::vector<std::string>{"copy_engine", "sm"}),
            Axis::list("direction", std::vector<std::string>{"write", "read", "bidir"})};
  s.sass = {expect_sass("*peer_stream_kernel<true>*", SassRegion::Whole, {{"STG.E.EF.128", kUnroll, -1}}),
            expect_sass("*peer_stream_kernel<false>*", SassRegion::Whole, {{"LDG.E.128.CONSTANT", kUnroll, -1}})};
  s.metrics = {{"bandwidth/gbps", "GB/s", "bytes moved (both directions for bidir) per second of wall time"}};
  s.runs_no_sm_kernel = true;  // the copy-engine points launch nothing
  s.covers = {{"interconnect.nvlink", "bandwidth/gbps", {{"direction", std::string("bidir")}, {"engine", std::string("copy_engine")}}}};
  s.run = run_bandwidth;
  s.time_cap_s = 15;
  s.quick_time_cap_s = 6;
  return s;
}

GD_REGISTER_PROBE(bandwidth_spec());

// ---------------------------------------------------------------------------- latency

constexpr long long kChaseStride = 4096;  // one pointer per 4 KiB: a new line and page region each step

// Thread 0 chases `steps` pointers through the peer's memory with system-scope loads, so no
// cache on this GPU can answer for the peer.
__global__ void peer_chase_kernel(const void* const* start, int steps, RegionTiming* timing, const void** sink) {
  if (threadIdx.x != 0) return;
  const void* const* q = start;
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < steps; ++i) q = static_cast<const void* const*>(ptx::ld_relaxed_sys_ptr(q));
  timing[0] = clock.end();
  if (q == nullptr) sink[0] = q;
}

// A dependent chain of system-scope atomic adds on the peer's memory.
__global__ void peer_atomic_chain_kernel(uint32_t* words, int steps, RegionTiming* timing, uint32_t* sink) {
  if (threadIdx.x != 0) return;
  uint32_t v = 0;
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < steps; ++i) v = ptx::atom_add_sys_u32(words + (v & 1u) * 32, 2u);
  timing[0] = clock.end();
  if (v == 1) sink[0] = v;  // the words only ever hold even values
}

// Every thread fetch-adds its own word of the peer's memory `iters` times. The returned values
// are folded (a fetch-and-add, ATOMG, on every target; an unused result would be a reduction,
// RED on sm_80 and REDG later), but nothing waits on them within the loop.
__global__ void peer_atomic_flood_kernel(uint32_t* words, int iters, RegionTiming* timing, uint32_t* sink) {
  BlockClock clock;
  clock.begin();
  uint32_t* w = words + blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t acc = 0;
#pragma unroll 4
  for (int i = 0; i < iters; ++i) acc ^= ptx::atom_add_sys_u32(w, 1u);
  if (acc == 0xffffffffu) sink[0] = acc;
  clock.end(timing);
}

void run_latency(ProbeContext& ctx) {
  const std::string mode = ctx.str_param("mode");
  const Peers p = open_peers(ctx);
  if (mode == "copy_engine") {
    DeviceBuffer<uint32_t> local(1), remote;
    {
      OnDevice on(p.peer);
      remote = DeviceBuffer<uint32_t>(1);
    }
    Stream s;
    constexpr int kCopies = 100;
    RepeatPolicy policy;
    policy.warmup = 3;
    policy.time_cap_s = 0.3;
    const Summary us = host_us_per_call(
        ctx, kCopies,
        [&](int) {
          GD_CUDA_CHECK(cudaMemcpyPeerAsync(remote.get(), p.peer, local.get(), p.self, 4, s.get()));
          GD_CUDA_CHECK(cudaStreamSynchronize(s.get()));
        },
        [] {}, policy);
    ctx.no_sm_clock("no SM code runs: a copy engine moves the 4 bytes; the figure is host wall time");
    ctx.metric("latency/us", us);
    return;
  }
  if (!p.access) ctx.skip("SM accesses to the peer need peer access, which the driver does not offer here");
  DeviceBuffer<const void*> sink(1);
  DeviceBuffer<uint32_t> usink(1);
  const std::vector<std::int64_t> lengths{32, 64, 128, 256};
  if (mode == "load") {
    constexpr long long kSlots = 4096;  // 16 MiB of the peer's memory
    DeviceBuffer<char> remote;
    {
      OnDevice on(p.peer);
      remote = DeviceBuffer<char>(kSlots * kChaseStride);
    }
    std::vector<long long> order(kSlots);
    std::iota(order.begin(), order.end(), 0LL);
    std::shuffle(order.begin() + 1, order.end(), std::mt19937(std::random_device{}()));
    std::vector<const void*> next(kSlots * kChaseStride / sizeof(void*), nullptr);
    for (long long i = 0; i < kSlots; ++i)
      next[order[i] * kChaseStride / sizeof(void*)] = remote.get() + order[(i + 1) % kSlots] * kChaseStride;
    GD_CUDA_CHECK(cudaMemcpy(remote.get(), next.data(), next.size() * sizeof(void*), cudaMemcpyDefault));
    const auto* start = reinterpret_cast<const void* const*>(remote.get());
    const ChainLatency lat = measure_launched_chain(ctx, lengths, [&](std::int64_t steps, RegionTiming* timing) {
      launch(ctx, peer_chase_kernel, LaunchShape{1, 32}, start, int(steps), timing, sink.get());
    });
    emit_chain_latency(ctx, lat);
  } else if (mode == "atomic") {
    DeviceBuffer<uint32_t> remote;
    {
      OnDevice on(p.peer);
      remote = DeviceBuffer<uint32_t>(64);
      remote.fill_zero();
    }
    const ChainLatency lat = measure_launched_chain(ctx, lengths, [&](std::int64_t steps, RegionTiming* timing) {
      launch(ctx, peer_atomic_chain_kernel, LaunchShape{1, 32}, remote.get(), int(steps), timing, usink.get());
    });
    emit_chain_latency(ctx, lat);
  } else {
    throw Error("unknown peer latency mode '" + mode + "' (load, atomic, copy_engine)");
  }
}

ProbeSpec latency_spec() {
  ProbeSpec s;
  s.id = "links.peer.latency";
  s.description = "GPU-to-GPU latency: dependent loads and system-scope atomics on the peer's memory, and a 4-byte peer copy";
  s.needs.min_gpus = 2;
  s.axes = {Axis::list("mode", std::vector<std::string>{"load", "atomic", "copy_engine"})};
  s.sass = {expect_sass("*peer_chase_kernel*", SassRegion::Clocked, {{"LDG.E.64.STRONG.SYS", 1, -1}}),
            expect_sass("*peer_atomic_chain_kernel*", SassRegion::Clocked, {{"ATOMG.E.ADD.STRONG.SYS", 1, -1}})};
  std::vector<MetricSpec> m = chain_latency_metrics("cycles per dependent access to the peer's memory");
  m.push_back({"latency/us", "us", "one 4-byte peer copy, enqueue to synchronized completion"});
  s.metrics = m;
  s.runs_no_sm_kernel = true;  // the copy-engine point launches nothing
  s.run = run_latency;
  s.time_cap_s = 6;
  s.quick_time_cap_s = 3;
  return s;
}

GD_REGISTER_PROBE(latency_spec());

void run_atomic_throughput(ProbeContext& ctx) {
  const Peers p = open_peers(ctx);
  if (!p.access) ctx.skip("SM atomics on the peer need peer access, which the driver does not offer here");
  const int blocks = ctx.device().sm_count * 4, threads = 256, iters = ctx.quick() ? 64 : 256;
  DeviceBuffer<uint32_t> remote;
  {
    OnDevice on(p.peer);
    remote = DeviceBuffer<uint32_t>(std::size_t(blocks) * threads);
    remote.fill_zero();
  }
  DeviceBuffer<RegionTiming> timing(blocks);
  DeviceBuffer<uint32_t> sink(1);
  EventTimer timer;
  RepeatPolicy policy;
  policy.warmup = 2;
  policy.time_cap_s = 1;
  const Summary gops = ctx
                           .measure([&] {
                             timer.start();
                             launch(ctx, peer_atomic_flood_kernel, LaunchShape{unsigned(blocks), unsigned(threads)}, remote.get(),
                                    iters, timing.get(), sink.get());
                             return double(blocks) * threads * iters / (timer.stop_ms() * 1e-3) * 1e-9;
                           }, policy)
                           .summary;
  ctx.set_observed_sm_clock_mhz(clock_mhz(timing.to_host()), "clock64 over %globaltimer, every block of the last launch");
  ctx.metric("atomics/gops", gops);
}

ProbeSpec atomic_throughput_spec() {
  ProbeSpec s;
  s.id = "links.peer.atomic_throughput";
  s.description = "System-scope atomic fetch-adds on the peer's memory, one word per thread, the whole GPU issuing";
  s.needs.min_gpus = 2;
  s.sass = {expect_sass("*peer_atomic_flood_kernel*", SassRegion::Whole, {{"ATOMG.E.ADD.STRONG.SYS", 1, -1}})};
  s.metrics = {{"atomics/gops", "Gop/s", "atomic operations per second (10^9)"}};
  s.run = run_atomic_throughput;
  s.time_cap_s = 4;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(atomic_throughput_spec());

}  // namespace probe_peer
}  // namespace gd
