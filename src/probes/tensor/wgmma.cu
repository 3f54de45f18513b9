// wgmma (sm_90a) latency and throughput for every operand type, dense and 2:4 sparse, over N from
// 8 to 256, with A from shared memory (SS) or registers (RS): what a warpgroup MMA costs a kernel.
#include <chrono>
#include <cstdint>
#include <random>
#include <thread>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "wgmma_common.cuh"

namespace gd {
namespace probe_wgmma {

using namespace wgmma_probe;

bool from_registers(const std::string& operands) {
  if (operands == "rs") return true;
  if (operands == "ss") return false;
  throw UserError("operands must be ss (A and B in shared memory) or rs (A in registers); got '" + operands + "'");
}

std::uint64_t fresh_seed() { return std::random_device{}() * 0x9E3779B97F4A7C15ull + std::random_device{}(); }

// Two numbers, one warpgroup, every wgmma accumulating into the same registers:
// - latency: one m64nNk wgmma per group, waited for before the next (wait_group 0), so cycles
//   per step is issue to completion;
// - interval: the throughput kernel's kSteps wgmma per group with the wait a group behind
//   (wait_group 1, never on the group just issued, and released while the next group's kSteps
//   intervals still queue), so cycles per wgmma is the pipelined issue interval of a dependent
//   accumulator chain: what published Hopper studies report as wgmma "latency" (128 cycles at
//   m64n256k16).
void run_latency(ProbeContext& ctx) {
  const OpRow& row = op_named(ctx.str_param("op"));
  const int n = int(ctx.int_param("n"));
  const bool rs = from_registers(ctx.str_param("operands"));
  Launcher l(ctx, row, n, row.latency(n, rs), Swizzle::B128, 1, 1, false);
  const Operands ops = make_operands(row, n, Swizzle::B128, Fill::Random, fresh_seed());
  l.check(ctx, ops, 1);
  const std::int64_t lengths[] = {16, 32, 64};
  RepeatPolicy policy;  // the slopes are steady to a fraction of a cycle: a few fits suffice
  policy.target_rel_ci = 0.01;
  policy.max_samples = 12;
  policy.time_cap_s = ctx.quick() ? 0.08 : 0.2;
  const ChainLatency lat = measure_launched_chain(
      ctx, lengths, [&](std::int64_t steps, RegionTiming* t) { l.enqueue(ctx, int(steps), t); }, policy);
  emit_chain_latency(ctx, lat);

  // Mirrored operands keep the accumulators bounded over the longer chain (64 x kSteps wgmma).
  Launcher chain(ctx, row, n, row.throughput(n, rs), Swizzle::B128, 1, 1, false);
  chain.check(ctx, make_operands(row, n, Swizzle::B128, Fill::Random, fresh_seed()), kSteps);
  chain.load(make_operands(row, n, Swizzle::B128, Fill::Mirrored, fresh_seed()));
  const ChainLatency per_group = measure_launched_chain(
      ctx, lengths, [&](std::int64_t groups, RegionTiming* t) { chain.enqueue(ctx, int(groups), t); }, policy);
  const ChainLatency interval = per_instruction(per_group, kSteps);
  ctx.metric("interval/cycles", interval.per_step);
  ctx.extra()["interval_fit_worst_r2"] = interval.worst_fit.r2;
  // The clock of the latency chain, which the record's ns metrics are at.
  ctx.set_observed_sm_clock_mhz(lat.clock_mhz);
}

// kSteps wgmma per group, two groups in flight, `warpgroups` warpgroups on one CTA per SM, every
// operand already in shared memory (or A in registers): no global traffic in the timed loop.
void run_throughput(ProbeContext& ctx) {
  const OpRow& row = op_named(ctx.str_param("op"));
  const int n = int(ctx.int_param("n"));
  const bool rs = from_registers(ctx.str_param("operands"));
  const int warpgroups = int(ctx.int_param("warpgroups"));
  const DeviceInfo& dev = ctx.device();
  Launcher l(ctx, row, n, row.throughput(n, rs), Swizzle::B128, unsigned(dev.sm_count), warpgroups, true);
  const std::uint64_t seed = fresh_seed();
  l.check(ctx, make_operands(row, n, Swizzle::B128, Fill::Random, seed), kSteps);
  l.load(make_operands(row, n, Swizzle::B128, Fill::Mirrored, seed + 1));
  RepeatPolicy policy;
  policy.warmup = 1;
  policy.time_cap_s = ctx.quick() ? 0.1 : 0.25;
  // About 1 ms per launch at the chip's peak clock (half in quick mode).
  const Rate r = measure_rate(ctx, l, kSteps, warpgroups, dev.max_sm_clock_mhz * (ctx.quick() ? 500 : 1000), policy);
  emit_rate(ctx, row, r);
}

// The same kernel as the throughput point, but only a few launches after the board has idled.
// What the clock does (an H200, 2026-12-02, ncu's sm__cycles_elapsed.avg.per_second beside
// clock64/globaltimer): a 40 us wgmma launch from idle runs at about 1950 MHz, a 0.8 ms burst
// already at about 1625 MHz, the sustained loop's speed, while NVML reports 1980 MHz and names no
// limiter and the board draws far less than its 700 W. So the drop is the chip's own fast clock
// reduction under tensor load, within a millisecond, not the power limit, and a burst of this
// length does not escape it: points here carry clock_below_application like the throughput ones.
void run_burst(ProbeContext& ctx) {
  const OpRow& row = op_named(ctx.str_param("op"));
  const int n = int(ctx.int_param("n"));
  const double idle_s = double(ctx.int_param("idle_ms")) * 1e-3;
  if (!(idle_s >= 0 && idle_s <= 5)) throw UserError("idle_ms must be between 0 and 5000");
  const int warpgroups = 2;
  const DeviceInfo& dev = ctx.device();
  Launcher l(ctx, row, n, row.throughput(n, false), Swizzle::B128, unsigned(dev.sm_count), warpgroups, true);
  const std::uint64_t seed = fresh_seed();
  l.check(ctx, make_operands(row, n, Swizzle::B128, Fill::Random, seed), kSteps);
  l.load(make_operands(row, n, Swizzle::B128, Fill::Mirrored, seed + 1));
  // Iterations for about 1 ms per launch at the peak clock, from a short calibration launch.
  std::vector<double> cyc;
  for (const auto& t : l.run(ctx, 4)) cyc.push_back(double(t.cycles));
  const int iters = std::clamp(int(dev.max_sm_clock_mhz * 1000 / std::max(1.0, summarize(cyc).median / 4)), 8, 1 << 22);
  const double work = double(warpgroups) * iters * kSteps * 2.0 * 64 * n * row.k;
  GD_CUDA_CHECK(cudaDeviceSynchronize());
  std::this_thread::sleep_for(std::chrono::duration<double>(idle_s));
  // The first launch after idling also carries the clock's ramp from its idle state: timed but
  // left out; the next kBurst launches are the burst.
  constexpr int kBurst = 4;
  std::vector<double> rates;
  std::vector<RegionTiming> all;
  l.run(ctx, iters);
  for (int i = 0; i < kBurst; ++i) {
    const auto t = l.run(ctx, iters);
    rates.push_back(per_sm_rate(t, work));
    all.insert(all.end(), t.begin(), t.end());
  }
  Rate r;
  r.per_clk = summarize(rates);
  r.clock_mhz = clock_mhz(all);
  r.iters = iters;
  emit_rate(ctx, row, r);
  ctx.extra()["idle_before_s"] = idle_s;
  ctx.extra()["burst_launches"] = kBurst;
}

// Per operation: the best point over N, operand source and warpgroups by rate per clock (the
// type's peak per SM per clock) and by TFLOPS (which also carries the clock the card held).
void summarize_throughput(SummaryContext& sc) {
  for (const OpRow& r : op_rows()) {
    const std::vector<const Record*> points = sc.ok_records({{"op", std::string(r.name)}});
    if (points.empty()) continue;
    for (const auto& [label, metric] : {std::pair<const char*, const char*>{"best", "throughput/flops_per_clk_per_sm"},
                                        {"best_tflops", "throughput/tflops"}})
      sc.derive_best({{"op", std::string(r.name)},
                      {"n", std::string(label)},
                      {"operands", std::string(label)},
                      {"warpgroups", std::string(label)}},
                     points, metric);
  }
}

std::vector<Axis> op_axes() {
  return {Axis::list("op", op_names()), std::move(Axis::list("n", all_ns())).quick({8, 256}),
          std::move(Axis::list("operands", std::vector<std::string>{"ss", "rs"})).quick_list({std::string("ss")})};
}

ProbeSpec latency_spec() {
  ProbeSpec s;
  s.id = "tensor.wgmma.latency";
  s.description =
      "wgmma m64nNk latency to completion (issue to wait_group 0) and pipelined interval (a dependent accumulator chain "
      "without that wait) per type, N, SS/RS";
  s.needs = wgmma_requirements();
  s.axes = op_axes();
  // The latency chain's kernels, and the throughput kernels the interval runs on one warpgroup.
  for (const OpRow& r : op_rows()) {
    s.sass.push_back(op_sass(r, 1, 1));
    s.sass.push_back(op_sass(r, kSteps, 2));
  }
  s.metrics = chain_latency_metrics(
      "latency to completion: one wgmma.mma_async m64nNk, issue to wgmma.wait_group 0, the next wgmma on its "
      "accumulator (not the published wgmma 'latency', which is interval/cycles)");
  s.metrics.push_back({"interval/cycles", "cycles",
                       "pipelined issue interval: cycles per wgmma of a dependent accumulator chain that never waits on "
                       "the wgmma just issued (4 per group, wait_group 1): what published Hopper studies call wgmma "
                       "latency (128 at m64n256k16)"});
  s.views = {line_view("n", "latency/cycles")};
  s.run = run_latency;
  s.time_cap_s = 45;  // two chains a point: the latency's and the interval's
  s.quick_time_cap_s = 14;
  return s;
}

ProbeSpec throughput_spec() {
  ProbeSpec s;
  s.id = "tensor.wgmma.throughput";
  s.description =
      "wgmma throughput per SM per clock, TFLOPS and % of the per-clock tensor peak per type, N, SS/RS, warpgroups per CTA";
  s.needs = wgmma_requirements();
  s.axes = op_axes();
  s.axes.push_back(std::move(Axis::list("warpgroups", {1, 2})).quick({2}));
  for (const OpRow& r : op_rows()) s.sass.push_back(op_sass(r, kSteps, 2));
  s.metrics = rate_metrics();
  s.views = {line_view("n", "throughput/tflops")};
  s.run = run_throughput;
  s.summarize = summarize_throughput;
  s.time_cap_s = 40;
  s.quick_time_cap_s = 10;
  return s;
}

ProbeSpec burst_spec() {
  ProbeSpec s;
  s.id = "tensor.wgmma.burst";
  s.description =
      "wgmma rate of four ~1 ms launches after the board idled (clock before the power limit acts), per type, N 256, SS";
  s.needs = wgmma_requirements();
  s.axes = {std::move(Axis::list("op", op_names())).quick_list({std::string("f16_f32"), std::string("e4m3_f32")}),
            Axis::list("n", std::vector<std::int64_t>{256}), Axis::list("idle_ms", std::vector<std::int64_t>{300})};
  for (const OpRow& r : op_rows()) s.sass.push_back(op_sass(r, kSteps, 2));
  s.metrics = rate_metrics();
  s.run = run_burst;
  s.time_cap_s = 10;
  s.quick_time_cap_s = 3;
  return s;
}

GD_REGISTER_PROBE(latency_spec());
GD_REGISTER_PROBE(throughput_spec());
GD_REGISTER_PROBE(burst_spec());

}  // namespace probe_wgmma
}  // namespace gd
