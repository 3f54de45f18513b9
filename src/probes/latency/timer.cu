// What one clock64() read costs: the cycles between back-to-back reads of the SM clock counter.
// Every latency in the suite is a difference of two such reads, so this is the method's own
// floor (the studies subtract it, or show it is one cycle and constant).
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/registry.hpp"

namespace gd {
namespace probe_timer {

constexpr int kReads = 33;  // 32 differences per launch

// One thread reads the clock kReads times in a row; the differences are the cost of one read
// (the reads are volatile, so the compiler keeps them in order and apart).
__global__ void clock_pairs_kernel(long long* deltas) {
  long long t[kReads];
#pragma unroll
  for (int i = 0; i < kReads; ++i) t[i] = clock64();
#pragma unroll
  for (int i = 0; i + 1 < kReads; ++i) deltas[i] = t[i + 1] - t[i];
}

void run_clock64(ProbeContext& ctx) {
  DeviceBuffer<long long> deltas(kReads - 1);
  std::vector<double> all;
  const RepeatResult r = ctx.measure([&] {
    launch(ctx, clock_pairs_kernel, LaunchShape{1, 1}, deltas.get());
    GD_CUDA_CHECK_LAUNCH();
    std::vector<double> d;
    for (long long x : deltas.to_host()) d.push_back(double(x));
    all.insert(all.end(), d.begin(), d.end());
    return summarize(d).median;
  });
  // Cycles between two reads of the same counter: no clock conversion enters the figure.
  ctx.no_sm_clock("the figure is a difference of two clock64 reads, in SM cycles; no time is converted");
  const Summary every = summarize(all);
  ctx.metric("timer/clock64_delta_cycles", r.summary);
  ctx.metric("timer/clock64_delta_min_cycles", every.min);
  ctx.metric("timer/clock64_delta_max_cycles", every.max);
  ctx.metric("timer/clock64_delta_stddev_cycles", std::isfinite(every.stddev) ? every.stddev : 0.0);
  ctx.extra()["reads_per_launch"] = kReads;
}

ProbeSpec clock64_spec() {
  ProbeSpec s;
  s.id = "latency.timer.clock64";
  s.description = "cycles between back-to-back clock64() reads by one thread: the timing method's own cost and jitter";
  // On sm_120 ptxas (CUDA 13.0) reads 20 of the 33 clocks into uniform registers (CS2UR): another
  // path than the CS2R every timed region of the suite uses, so the figure would not be its cost.
  s.needs.max_cc = 119;
  s.sass = {expect_sass("*clock_pairs_kernel*", SassRegion::Whole, {{"CS2R", kReads, kReads}}, {"LDL", "STL"})};
  s.metrics = {{"timer/clock64_delta_cycles", "cycles", "median difference of consecutive reads, per launch"},
               {"timer/clock64_delta_min_cycles", "cycles", "smallest difference over every launch"},
               {"timer/clock64_delta_max_cycles", "cycles", "largest difference over every launch"},
               {"timer/clock64_delta_stddev_cycles", "cycles", "standard deviation of every difference"}};
  s.covers = {{"platform.timer.clock64_overhead", "timer/clock64_delta_cycles", {}}};
  s.run = run_clock64;
  s.time_cap_s = 2;
  s.quick_time_cap_s = 1;
  return s;
}

GD_REGISTER_PROBE(clock64_spec());

}  // namespace probe_timer
}  // namespace gd
