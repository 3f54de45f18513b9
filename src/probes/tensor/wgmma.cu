// wgmma (sm_90a) latency and throughput for every operand type, dense and 2:4 sparse, over N from
// 8 to 256, with A from shared memory (SS) or registers (RS): what a warpgroup MMA costs a kernel.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "wgmma_common.cuh"

namespace gd {
namespace {

using namespace wgmma_probe;

bool from_registers(const std::string& operands) {
  if (operands == "rs") return true;
  if (operands == "ss") return false;
  throw UserError("operands must be ss (A and B in shared memory) or rs (A in registers); got '" + operands + "'");
}

std::uint64_t fresh_seed() { return std::random_device{}() * 0x9E3779B97F4A7C15ull + std::random_device{}(); }

// One m64nNk wgmma per group, waited for before the next (wait_group 0), on one warpgroup: the
// chain runs through the accumulator, so cycles per step is issue-to-completion latency.
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
  return {Axis::list("op", op_names()), std::move(Axis::list("n", all_ns())).quick({8, 64, 256}),
          Axis::list("operands", std::vector<std::string>{"ss", "rs"})};
}

ProbeSpec latency_spec() {
  ProbeSpec s;
  s.id = "tensor.wgmma.latency";
  s.description = "wgmma m64nNk latency (issue to wait_group 0, chained through the accumulator) per type, N, SS/RS";
  s.needs = wgmma_requirements();
  s.axes = op_axes();
  for (const OpRow& r : op_rows()) s.sass.push_back(op_sass(r, 1, 1));
  s.metrics = chain_latency_metrics("one wgmma.mma_async m64nNk, issue to wgmma.wait_group 0");
  s.views = {line_view("n", "latency/cycles")};
  s.run = run_latency;
  s.time_cap_s = 25;
  s.quick_time_cap_s = 8;
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

GD_REGISTER_PROBE(latency_spec());
GD_REGISTER_PROBE(throughput_spec());

}  // namespace
}  // namespace gd
