// The host link: PCIe copy bandwidth (pinned and pageable, each way and both at once), the latency
// of small copies, and system-scope atomics between a host thread and an SM: the cost of every
// byte and every flag that crosses between CPU and GPU.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "analysis/chain.hpp"
#include "core/device_buffer.hpp"
#include "core/host_memory.hpp"
#include "core/host_timing.hpp"
#include "core/launch.cuh"
#include "core/ptx_cluster.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"

namespace gd {
namespace probe_pcie {

// ---------------------------------------------------------------------------- bandwidth

void run_bandwidth(ProbeContext& ctx) {
  const std::string dir = ctx.str_param("direction");
  const bool pinned = ctx.str_param("memory") == "pinned";
  if (dir == "bidir" && !pinned)
    ctx.skip("pageable copies stage through the driver's pinned buffer and return only when done: "
             "two directions at once need pinned memory");
  const std::size_t bytes = std::size_t(ctx.quick() ? 64 : 256) << 20;
  HostBuffer up(bytes, pinned), down(bytes, pinned);
  DeviceBuffer<char> dev_in(bytes), dev_out(bytes);
  dev_out.fill_zero();
  Stream s1, s2;
  double moved = 0;
  std::function<void()> copy;
  if (dir == "h2d") {
    moved = double(bytes);
    copy = [&] { GD_CUDA_CHECK(cudaMemcpyAsync(dev_in.get(), up.get(), bytes, cudaMemcpyHostToDevice, s1.get())); };
  } else if (dir == "d2h") {
    moved = double(bytes);
    copy = [&] { GD_CUDA_CHECK(cudaMemcpyAsync(down.get(), dev_out.get(), bytes, cudaMemcpyDeviceToHost, s1.get())); };
  } else if (dir == "bidir") {
    moved = 2.0 * double(bytes);
    copy = [&] {
      GD_CUDA_CHECK(cudaMemcpyAsync(dev_in.get(), up.get(), bytes, cudaMemcpyHostToDevice, s1.get()));
      GD_CUDA_CHECK(cudaMemcpyAsync(down.get(), dev_out.get(), bytes, cudaMemcpyDeviceToHost, s2.get()));
    };
  } else {
    throw Error("unknown direction '" + dir + "' (h2d, d2h, bidir)");
  }
  RepeatPolicy policy;
  policy.warmup = 2;
  policy.min_samples = 5;
  policy.target_rel_ci = 0.01;
  policy.time_cap_s = ctx.quick() ? 0.6 : 1.5;
  const Summary gbps = measure_host_timed(
                           ctx,
                           [&] {
                             copy();
                             GD_CUDA_CHECK(cudaStreamSynchronize(s1.get()));
                             GD_CUDA_CHECK(cudaStreamSynchronize(s2.get()));
                           },
                           [&](double s) { return moved / s * 1e-9; }, policy)
                           .summary;
  ctx.no_sm_clock("no SM code runs: the copy engines move the data over PCIe");
  ctx.metric("bandwidth/gbps", gbps);
  ctx.extra()["bytes_per_direction"] = bytes;
  if (const auto& n = ctx.device().nvml) {
    ctx.extra()["pcie_gen"] = n->pcie_gen;
    ctx.extra()["pcie_width"] = n->pcie_width;
  }
}

ProbeSpec bandwidth_spec() {
  ProbeSpec s;
  s.id = "links.pcie.bandwidth";
  s.description = "PCIe copy bandwidth (GB/s, 10^9 B/s), host to device, device to host and both at once, pinned and pageable";
  s.axes = {Axis::list("direction", std::vector<std::string>{"h2d", "d2h", "bidir"}),
            Axis::list("memory", std::vector<std::string>{"pinned", "pageable"})};
  s.metrics = {{"bandwidth/gbps", "GB/s", "bytes copied (both directions for bidir) per second of wall time"}};
  s.runs_no_sm_kernel = true;
  s.covers = {{"interconnect.pcie.h2d", "bandwidth/gbps", {{"direction", std::string("h2d")}, {"memory", std::string("pinned")}}},
              {"interconnect.pcie.bidirectional", "bandwidth/gbps", {{"direction", std::string("bidir")}, {"memory", std::string("pinned")}}}};
  s.run = run_bandwidth;
  s.time_cap_s = 12;
  s.quick_time_cap_s = 6;
  return s;
}

GD_REGISTER_PROBE(bandwidth_spec());

// ---------------------------------------------------------------------------- small copies

void run_latency(ProbeContext& ctx) {
  const std::string dir = ctx.str_param("direction");
  const std::size_t bytes = std::size_t(ctx.int_param("bytes"));
  HostBuffer host(bytes, true);
  DeviceBuffer<char> dev(bytes);
  Stream s;
  const bool h2d = dir == "h2d";
  if (!h2d && dir != "d2h") throw Error("unknown direction '" + dir + "' (h2d, d2h)");
  constexpr int kCopies = 100;
  RepeatPolicy policy;
  policy.warmup = 3;
  policy.time_cap_s = 0.3;
  const Summary us = host_us_per_call(
      ctx, kCopies,
      [&](int) {
        GD_CUDA_CHECK(h2d ? cudaMemcpyAsync(dev.get(), host.get(), bytes, cudaMemcpyHostToDevice, s.get())
                          : cudaMemcpyAsync(host.get(), dev.get(), bytes, cudaMemcpyDeviceToHost, s.get()));
        GD_CUDA_CHECK(cudaStreamSynchronize(s.get()));
      },
      [] {}, policy);
  ctx.no_sm_clock("no SM code runs: a copy engine moves the data; the figure is host wall time");
  ctx.metric("latency/us", us);
}

ProbeSpec latency_spec() {
  ProbeSpec s;
  s.id = "links.pcie.latency";
  s.description = "Small pinned copies: host wall time from cudaMemcpyAsync to the stream's completion, by size";
  s.axes = {Axis::list("direction", std::vector<std::string>{"h2d", "d2h"}),
            std::move(Axis::list("bytes", {4, 256, 4096, 65536})).quick({4, 65536})};
  s.metrics = {{"latency/us", "us", "one copy, enqueue to synchronized completion"}};
  s.runs_no_sm_kernel = true;
  s.run = run_latency;
  s.time_cap_s = 4;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(latency_spec());

// ---------------------------------------------------------------------------- system atomics

// Ping-pong through one word of mapped host memory: the SM waits for 2i and release-stores 2i+1;
// the host waits for 2i+1 and stores 2i+2. Each side only ever writes after reading the other's
// value, so plain system-scope loads and stores suffice: no atomic crosses the link, which a host
// without native PCIe atomics (cudaDevAttrHostNativeAtomicSupported = 0) does not support. Thread
// 0 times `rounds` round trips; it gives up after timeout_ns so a lost host never hangs the GPU.
__global__ void host_pingpong_kernel(uint32_t* flag, int rounds, unsigned long long timeout_ns, RegionTiming* timing,
                                     uint32_t* failed) {
  if (threadIdx.x != 0) return;
  const unsigned long long start = ptx::globaltimer_ns();
  RegionClock clock;
  clock.begin();
  for (int i = 0; i < rounds; ++i) {
    while (ptx::ld_acquire_sys_u32(flag) != uint32_t(2 * i)) {
      if (ptx::globaltimer_ns() - start > timeout_ns) {
        *failed = 1;
        return;
      }
    }
    ptx::st_release_sys_u32(flag, uint32_t(2 * i + 1));
  }
  timing[0] = clock.end();
}

// A dependent chain of system-scope atomics on mapped host memory (no host thread involved): each
// atomic's address depends on the previous result.
__global__ void host_atomic_chain_kernel(uint32_t* words, int steps, RegionTiming* timing, uint32_t* sink) {
  if (threadIdx.x != 0) return;
  uint32_t v = 0;
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < steps; ++i) v = ptx::atom_add_sys_u32(words + (v & 1u), 2u);
  timing[0] = clock.end();
  if (v == 1) sink[0] = v;  // the words only ever hold even values
}

bool host_native_atomics(int device) {
  int v = 0;
  GD_CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrHostNativeAtomicSupported, device));
  return v != 0;
}

void run_system_atomic(ProbeContext& ctx) {
  const std::string mode = ctx.str_param("mode");
  HostBuffer host(64, true, cudaHostAllocMapped);
  uint32_t* dev_view = nullptr;
  GD_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev_view), host.get(), 0));
  auto* flag = static_cast<uint32_t*>(host.get());
  DeviceBuffer<RegionTiming> timing(1);
  DeviceBuffer<uint32_t> failed(1), sink(1);
  if (mode == "device_chain") {
    // Without native host atomics the driver does not make a device atomic on host memory atomic
    // (compute-sanitizer's memcheck rejects it as an invalid system-scoped atomic): nothing to time.
    if (!host_native_atomics(ctx.device().index))
      ctx.skip("this system has no native device-to-host atomics (cudaDevAttrHostNativeAtomicSupported = 0): "
               "a system-scope atomic on host memory is not supported here");
    const std::vector<std::int64_t> lengths{16, 32, 64, 128};
    const ChainLatency lat = measure_launched_chain(ctx, lengths, [&](std::int64_t steps, RegionTiming* timing) {
      std::memset(flag, 0, 8);
      launch(ctx, host_atomic_chain_kernel, LaunchShape{1, 32}, dev_view, int(steps), timing, sink.get());
    });
    emit_chain_latency(ctx, lat);
    return;
  }
  if (mode != "pingpong") throw Error("unknown system atomic mode '" + mode + "' (pingpong, device_chain)");
  constexpr int kRounds = 2000;
  std::vector<RegionTiming> timings;
  RepeatPolicy policy;
  policy.warmup = 1;
  policy.max_samples = 20;
  policy.time_cap_s = 1;
  const RepeatResult res = ctx.measure(
      [&] {
        std::atomic_ref<uint32_t> word(*flag);
        word.store(0);
        failed.fill_zero();
        GD_CUDA_CHECK(cudaDeviceSynchronize());  // the kernel's stream does not wait for the memset
        Stream s;
        launch(ctx, host_pingpong_kernel, LaunchShape{1, 32, 0, s.get()}, dev_view, kRounds, 2000000000ull, timing.get(),
               failed.get());
        const double deadline = steady_now_s() + 2.5;
        for (int i = 0; i < kRounds; ++i) {
          while (word.load(std::memory_order_acquire) != uint32_t(2 * i + 1))
            if (steady_now_s() > deadline) break;
          word.store(uint32_t(2 * i + 2), std::memory_order_release);
        }
        GD_CUDA_CHECK(cudaStreamSynchronize(s.get()));
        if (failed.to_host()[0]) throw Error("host/device ping-pong timed out: the kernel never saw the host's writes");
        const RegionTiming t = timing.to_host()[0];
        timings.push_back(t);
        return double(t.ns) / kRounds * 1e-3;
      },
      policy);
  ctx.set_observed_sm_clock_mhz(clock_mhz(timings), "clock64 over %globaltimer of the device side of the ping-pong");
  ctx.metric("roundtrip/us", res.summary);
  ctx.extra()["host_native_atomics"] = host_native_atomics(ctx.device().index);
}

ProbeSpec system_atomic_spec() {
  ProbeSpec s;
  s.id = "links.pcie.system_atomic";
  s.description = "Mapped host memory: host<->SM flag ping-pong round trip (system-scope loads and stores), and the SM's dependent system-scope atomic latency where the host supports native atomics";
  s.axes = {Axis::list("mode", std::vector<std::string>{"pingpong", "device_chain"})};
  s.sass = {expect_sass("*host_pingpong_kernel*", SassRegion::Clocked, {{"LDG.E.STRONG.SYS", 1, -1}, {"STG.E.STRONG.SYS", 1, -1}, {"ATOMG", 0, 0}}),
            expect_sass("*host_atomic_chain_kernel*", SassRegion::Clocked, {{"ATOMG.E.ADD.STRONG.SYS", 1, -1}})};
  std::vector<MetricSpec> m = chain_latency_metrics("cycles per dependent system-scope atomic add on host memory");
  m.push_back({"roundtrip/us", "us", "one host->device->host round trip of the flag"});
  s.metrics = m;
  s.run = run_system_atomic;
  s.time_cap_s = 6;
  s.quick_time_cap_s = 4;
  return s;
}

GD_REGISTER_PROBE(system_atomic_spec());

}  // namespace probe_pcie
}  // namespace gd
