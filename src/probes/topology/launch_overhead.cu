// What launching costs, in microseconds: an empty kernel (enqueue rate and round trip), a kernel
// replayed from a CUDA graph, the gap between dependent kernels with and without programmatic
// dependent launch, a cooperative launch, and a grid-wide sync: the floor under small kernels.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/chain.hpp"
#include "core/device_buffer.hpp"
#include "core/host_timing.hpp"
#include "core/launch_ex.cuh"
#include "core/ptx_cluster.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"

namespace gd {
namespace probe_launch_overhead {

__global__ void empty_kernel() {}

// The PDL pair: the first kernel lets its dependent launch at once, holds its SM for hold_ns and
// stamps its end; the second waits for the first (griddepcontrol.wait, a no-op without PDL) and
// stamps its start. The gap between the stamps is the dependency's cost.
__global__ void pdl_first_kernel(unsigned long long* end_ns, unsigned hold_ns) {
  ptx::griddep_launch_dependents();
  const unsigned long long t0 = ptx::globaltimer_ns();
  unsigned long long t = t0;
  while (t - t0 < hold_ns) t = ptx::globaltimer_ns();
  *end_ns = t;
}
__global__ void pdl_second_kernel(unsigned long long* start_ns) {
  ptx::griddep_wait();
  *start_ns = ptx::globaltimer_ns();
}

constexpr int kBatch = 200;  // launches per sample: host timer resolution and jitter average out

// Microseconds per launch of `one(i)` over a batch, host-timed, then synchronized.
Summary per_launch_us(ProbeContext& ctx, const std::function<void(int)>& one, bool sync_each) {
  RepeatPolicy policy;
  policy.warmup = 3;
  policy.time_cap_s = 0.5;
  return host_us_per_call(
      ctx, kBatch,
      [&](int i) {
        one(i);
        if (sync_each) GD_CUDA_CHECK(cudaStreamSynchronize(nullptr));
      },
      [] { GD_CUDA_CHECK(cudaStreamSynchronize(nullptr)); }, policy);
}

Summary graph_replay_us(ProbeContext& ctx) {
  cudaStream_t s;
  GD_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t graph{};
  cudaGraphExec_t exec{};
  GD_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < kBatch; ++i) launch(ctx, empty_kernel, LaunchShape{1, 32, 0, s});
  GD_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  GD_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  RepeatPolicy policy;
  policy.warmup = 3;
  policy.time_cap_s = 0.5;
  // One replay runs the whole graph: kBatch kernels.
  const Summary us = measure_host_timed(
                         ctx,
                         [&] {
                           GD_CUDA_CHECK(cudaGraphLaunch(exec, s));
                           GD_CUDA_CHECK(cudaStreamSynchronize(s));
                         },
                         [](double sec) { return sec / kBatch * 1e6; }, policy)
                         .summary;
  GD_CUDA_CHECK(cudaGraphExecDestroy(exec));
  GD_CUDA_CHECK(cudaGraphDestroy(graph));
  GD_CUDA_CHECK(cudaStreamDestroy(s));
  return us;
}

// Median gap (us) between the first kernel's end and the second's start over a batch of pairs.
Summary dependent_gap_us(ProbeContext& ctx, bool pdl) {
  DeviceBuffer<unsigned long long> stamps(2 * kBatch);
  RepeatPolicy policy;
  policy.warmup = 2;
  policy.time_cap_s = 0.5;
  return ctx
      .measure([&] {
        for (int i = 0; i < kBatch; ++i) {
          // The hold keeps the GPU ahead of the host's enqueueing, so the gap is the device's.
          launch(ctx, pdl_first_kernel, LaunchShape{1, 32}, stamps.get() + 2 * i, 20000u);
          launch_ex(ctx, pdl_second_kernel, LaunchShape{1, 32}, LaunchAttrs{0, pdl}, stamps.get() + 2 * i + 1);
        }
        GD_CUDA_CHECK(cudaDeviceSynchronize());
        const auto h = stamps.to_host();
        std::vector<double> gaps;
        for (int i = 0; i < kBatch; ++i) gaps.push_back((double(h[2 * i + 1]) - double(h[2 * i])) * 1e-3);
        return summarize(gaps).median;
      }, policy)
      .summary;
}

void run_overhead(ProbeContext& ctx) {
  const std::string what = ctx.str_param("what");
  const DeviceInfo& d = ctx.device();
  Summary us;
  if (what == "launch_async") {
    us = per_launch_us(ctx, [&](int) { launch(ctx, empty_kernel, LaunchShape{1, 32}); }, false);
  } else if (what == "launch_sync") {
    us = per_launch_us(ctx, [&](int) { launch(ctx, empty_kernel, LaunchShape{1, 32}); }, true);
  } else if (what == "launch_sync_full_grid") {
    us = per_launch_us(ctx, [&](int) { launch(ctx, empty_kernel, LaunchShape{unsigned(d.sm_count), 32}); }, true);
  } else if (what == "cooperative_launch_sync") {
    us = per_launch_us(
        ctx, [&](int) { launch_ex(ctx, empty_kernel, LaunchShape{unsigned(d.sm_count), 32}, LaunchAttrs{0, false, true}); },
        true);
  } else if (what == "graph_replay_per_kernel") {
    us = graph_replay_us(ctx);
  } else if (what == "dependent_gap" || what == "pdl_gap") {
    if (what == "pdl_gap" && d.cc() < 90) ctx.skip("programmatic dependent launch needs sm_90 or later");
    us = dependent_gap_us(ctx, what == "pdl_gap");
  } else {
    throw Error("unknown launch overhead '" + what + "'");
  }
  ctx.no_sm_clock("the figure is wall time (host clock, or %globaltimer stamps) of launch machinery, not SM cycles");
  ctx.metric("overhead/us", us);
}

ProbeSpec overhead_spec() {
  ProbeSpec s;
  s.id = "topology.launch.overhead";
  s.description = "Launch costs in us: empty kernel enqueue and round trip, cooperative launch, CUDA graph replay "
                  "per kernel, and the gap between dependent kernels without and with PDL";
  s.axes = {Axis::list("what", std::vector<std::string>{"launch_async", "launch_sync", "launch_sync_full_grid",
                                                        "cooperative_launch_sync", "graph_replay_per_kernel",
                                                        "dependent_gap", "pdl_gap"})};
  s.sass = {expect_sass("*empty_kernel*", SassRegion::Whole, {{"EXIT", 1, 1}}),
            expect_sass("*pdl_first_kernel*", SassRegion::Whole, {{"STG.E.64", 1, 1}}),
            expect_sass("*pdl_second_kernel*", SassRegion::Whole, {{"STG.E.64", 1, 1}})};
  s.metrics = {{"overhead/us", "us", "microseconds per launch (or per dependent gap)"}};
  s.covers = {{"sync.pdl.kernel_gap", "overhead/us", {{"what", std::string("pdl_gap")}}},
              {"sync.pdl.serial_gap", "overhead/us", {{"what", std::string("dependent_gap")}}},
              // The feature, answered by the gap it measures (griddepcontrol launches on the chip).
              {"features.pdl", "overhead/us", {{"what", std::string("pdl_gap")}}}};
  s.run = run_overhead;
  s.time_cap_s = 8;
  s.quick_time_cap_s = 4;
  return s;
}

GD_REGISTER_PROBE(overhead_spec());

// ---------------------------------------------------------------------------- grid sync

// A cooperative grid runs `steps` grid-wide syncs; thread 0 of block 0 times them.
__global__ void grid_sync_kernel(int steps, RegionTiming* timing) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  grid.sync();
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < steps; ++i) grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) timing[0] = clock.end();
}

void run_grid_sync(ProbeContext& ctx) {
  const int per_sm = int(ctx.int_param("blocks_per_sm"));
  const DeviceInfo& d = ctx.device();
  int fit = 0;
  GD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, grid_sync_kernel, 128, 0));
  if (per_sm > fit) ctx.skip("only " + std::to_string(fit) + " blocks of this kernel fit per SM");
  const LaunchShape shape{unsigned(d.sm_count * per_sm), 128};
  const std::vector<std::int64_t> lengths{8, 16, 32, 64};
  const ChainLatency lat = measure_launched_chain(ctx, lengths, [&](std::int64_t steps, RegionTiming* timing) {
    launch_ex(ctx, grid_sync_kernel, shape, LaunchAttrs{0, false, true}, int(steps), timing);
  });
  emit_chain_latency(ctx, lat);
}

ProbeSpec grid_sync_spec() {
  ProbeSpec s;
  s.id = "topology.launch.grid_sync";
  s.description = "Cooperative groups grid.sync() latency across the whole GPU, 4 warps per block";
  s.axes = {std::move(Axis::list("blocks_per_sm", {1, 4})).quick({1})};
  s.sass = {expect_sass("*grid_sync_kernel*", SassRegion::Clocked, {{"BAR.SYNC", 1, -1}})};
  s.metrics = chain_latency_metrics("cycles per grid-wide sync");
  s.run = run_grid_sync;
  s.time_cap_s = 4;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(grid_sync_spec());

}  // namespace probe_launch_overhead
}  // namespace gd
