// Outstanding loads per warp: one warp issues k independent global (or shared) loads back to back
// with a clock read before each, and the gap that first jumps shows how many loads it can have in
// flight before issue stops: the memory-level parallelism one warp gets without help from others.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/control_issue.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/ptx_memory.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"

namespace gd {
namespace probe_outstanding_loads {

// Loads per launch: as many as the registers hold (a destination per load, a clock per load).
__host__ __device__ constexpr int loads_for(int width) { return width == 4 ? 64 : 32; }
// The region is padded to this many cycles so %globaltimer (coarse) can give the SM clock.
constexpr long long kPadCycles = 20000;

// One warp, lane l's load i at src[i * 32 + l] (a 128-byte line per load at 4 bytes) or the
// same place in shared memory. The loads are volatile asm and so is each clock read, so ptxas
// keeps their order; nothing consumes a load before the last clock read. The sequence runs twice
// (the second time on the next window of lines) and only the second is kept: the first brings the
// code into the instruction cache, whose misses would otherwise be gaps of their own; consuming
// its loads in between leaves none in flight.
template <int W, bool Shared>
__global__ void __launch_bounds__(32, 1)
    outstanding_loads_kernel(const void* src_bytes, long long* gaps, unsigned* sink, RegionTiming* timing) {
  constexpr int K = loads_for(W);
  const auto* src = static_cast<const ptx::Vec<W>*>(src_bytes);
  __shared__ ptx::Vec<W> tile[Shared ? 2 * K * 32 : 1];
  const unsigned lane = threadIdx.x;
  unsigned base = 0;
  if constexpr (Shared) {
    for (int i = 0; i < 2 * K; ++i) tile[i * 32 + lane] = src[i * 32 + lane];
    __syncwarp();
    base = ptx::shared_addr(&tile[lane]);
  }
  const ptx::Vec<W>* p = src + lane;
  long long c[K + 1];
  unsigned acc = 0;
  RegionClock region;
  region.begin();
#pragma unroll 1
  for (int pass = 0; pass < 2; ++pass) {
    ptx::Vec<W> v[K];
#pragma unroll
    for (int i = 0; i < K; ++i) {
      c[i] = clock64();
      if constexpr (Shared) v[i] = ptx::ldsw<W>(base + unsigned(i * 32 * W));
      else v[i] = ptx::ldw_cg<W>(p + i * 32);
    }
    c[K] = clock64();
#pragma unroll
    for (int i = 0; i < K; ++i) acc ^= ptx::fold<W>(v[i]);
    p += K * 32;
    base += unsigned(K * 32 * W);
  }
  while (clock64() - region.c0 < kPadCycles) {
  }
  const RegionTiming t = region.end();
  sink[lane] = acc;
  if (lane == 0) {
#pragma unroll
    for (int i = 0; i < K; ++i) gaps[i] = c[i + 1] - c[i];
    timing[0] = t;
  }
}

template <class F>
void with_kernel(int width, bool shared, F&& f) {
  if (width == 4) shared ? f(outstanding_loads_kernel<4, true>) : f(outstanding_loads_kernel<4, false>);
  else shared ? f(outstanding_loads_kernel<16, true>) : f(outstanding_loads_kernel<16, false>);
}

void run_outstanding_loads(ProbeContext& ctx) {
  const std::string space = ctx.str_param("space");
  const auto width = ctx.int_param("width");
  if (space != "global" && space != "shared") throw UserError("space must be global or shared, not '" + space + "'");
  if (width != 4 && width != 16) throw UserError("width must be 4 or 16 bytes per lane, not " + std::to_string(width));
  const bool shared = space == "shared";
  const int k = loads_for(int(width));
  const long long window = 2 * 32LL * k * width;  // two passes
  // Global: every launch reads a window no launch read before, out of a buffer four times L2
  // (filled first, from the start), so each load misses L2 and stays in flight for a DRAM
  // round trip; shared: one window.
  const long long bytes = shared ? window : std::max<long long>(4 * ctx.device().l2_bytes, 64LL << 20) / window * window;
  DeviceBuffer<uint4> buf(std::size_t(bytes / 16));
  GD_CUDA_CHECK(cudaMemset(buf.get(), 0, std::size_t(bytes)));
  DeviceBuffer<long long> gaps(static_cast<std::size_t>(k));
  DeviceBuffer<unsigned> sink(32);
  DeviceBuffer<RegionTiming> timing(1);

  std::vector<std::vector<double>> per_load(static_cast<std::size_t>(k));
  std::vector<RegionTiming> timings;
  long long offset = 0;
  const auto sample = [&]() -> double {
    const char* src = reinterpret_cast<const char*>(buf.get()) + offset;
    if (!shared) offset = (offset + window) % bytes;
    with_kernel(int(width), shared, [&](auto kernel) {
      launch(ctx, kernel, LaunchShape{1, 32}, reinterpret_cast<const void*>(src), gaps.get(), sink.get(), timing.get());
    });
    GD_CUDA_CHECK_LAUNCH();
    const std::vector<long long> g = gaps.to_host();
    std::vector<double> d(g.begin(), g.end());
    for (int i = 0; i < k; ++i) per_load[std::size_t(i)].push_back(d[std::size_t(i)]);
    timings.push_back(timing.to_host()[0]);
    const IssueStall s = find_issue_stall(d);
    return s.found ? s.index : k;  // k: no stop within the launch's loads
  };
  RepeatPolicy policy;
  policy.min_samples = 9;
  policy.max_samples = 40;
  policy.target_rel_ci = 0.02;
  policy.time_cap_s = ctx.quick() ? 0.2 : 0.5;
  const RepeatResult r = ctx.measure(sample, policy);

  // The profile: each load's median gap over the launches, read once more.
  std::vector<double> profile;
  for (auto& v : per_load) profile.push_back(summarize(v).median);
  const IssueStall s = find_issue_stall(profile);
  ctx.extra()["loads_per_launch"] = k;
  ctx.extra()["median_gap_per_load"] = profile;
  ctx.extra()["launches_with_a_stop"] =
      std::count_if(r.samples.begin(), r.samples.end(), [&](double x) { return x < k; });
  ctx.extra()["launches"] = r.samples.size();
  ctx.set_observed_sm_clock_mhz(clock_mhz(timings));
  ctx.metric("issue/cycles_per_load", s.baseline);
  if (!s.found) {
    ctx.extra()["verdict"] = "issue never stopped within " + std::to_string(k) + " loads";
    ctx.metric("outstanding/none_stopped_up_to", double(k));
    return;
  }
  ctx.extra()["verdict"] = "load " + std::to_string(s.index) + " waited " + std::to_string(s.stall_cycles) +
                           " cycles to issue with " + std::to_string(s.index) + " loads in flight; issue resumed " +
                           std::to_string(s.resumed_after) + " cycles after the first load";
  ctx.metric("outstanding/loads", r.summary);
  ctx.metric("stall/cycles", s.stall_cycles);
  ctx.metric("stall/resumed_after_cycles", s.resumed_after);
}

SassExpectation loads_sass(const std::string& kernel, const std::string& op, int k) {
  return expect_sass("*outstanding_loads_kernel<" + kernel + ">*", SassRegion::Clocked, {{op, k, k}});
}

ProbeSpec outstanding_loads_spec() {
  ProbeSpec s;
  s.id = "sass.scoreboard.depth";
  s.description = "independent loads one warp issues back to back before issue stops (outstanding loads per warp)";
  s.needs.min_cc = 70;
  s.axes = {Axis::list("space", std::vector<std::string>{"global", "shared"}), Axis::list("width", {4, 16})};
  s.sass = {loads_sass("4, false", "LDG.E.STRONG.GPU", loads_for(4)), loads_sass("16, false", "LDG.E.128.STRONG.GPU", loads_for(16)),
            loads_sass("4, true", "LDS", loads_for(4)), loads_sass("16, true", "LDS.128", loads_for(16))};
  s.metrics = {{"outstanding/loads", "loads", "loads in flight when the next one could not issue (per launch)"},
               {"outstanding/none_stopped_up_to", "loads", "issue never stopped: at least this many loads in flight"},
               {"issue/cycles_per_load", "cycles", "cycles per load (and one clock read) while issue flowed"},
               {"stall/cycles", "cycles", "how long the first stopped load waited to issue (median profile)"},
               {"stall/resumed_after_cycles", "cycles", "from the first load's issue until issue went on"}};
  s.covers = {{"memory.lsu.load_queue_depth", "outstanding/loads", {{"space", std::string("global")}, {"width", std::int64_t(4)}}}};
  s.run = run_outstanding_loads;
  s.time_cap_s = 6;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(outstanding_loads_spec());

}  // namespace probe_outstanding_loads
}  // namespace gd
