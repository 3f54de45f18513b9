// wgmma throughput against the number of wgmma groups in flight (1 to 8, one m64nNk wgmma per
// group): how deep a kernel's MMA pipeline must be before the tensor cores run at their peak.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "wgmma_common.cuh"

namespace gd {
namespace probe_wgmma_inflight {

using namespace wgmma_probe;

constexpr int kMaxGroups = 8;  // wgmma.wait_group takes 0..7 pending

void run_inflight(ProbeContext& ctx) {
  const OpRow& row = op_named(ctx.str_param("op"));
  const int n = int(ctx.int_param("n"));
  const int groups = int(ctx.int_param("groups_in_flight"));
  const int warpgroups = int(ctx.int_param("warpgroups"));
  if (groups < 1 || groups > kMaxGroups) throw UserError("groups_in_flight must be 1..8");
  const DeviceInfo& dev = ctx.device();
  const Kernel k = inflight_kernel(row.op_type, n, groups);
  if (!k) throw UserError("tensor.wgmma.inflight has op f16_f32 or e4m3_f32 and n 64 or 256");
  Launcher l(ctx, row, n, k, Swizzle::B128, unsigned(dev.sm_count), warpgroups, true);
  const std::uint64_t seed = std::random_device{}();
  l.check(ctx, make_operands(row, n, Swizzle::B128, Fill::Random, seed), 1);
  RepeatPolicy policy;
  policy.time_cap_s = ctx.quick() ? 0.1 : 0.3;
  const Rate r = measure_rate(ctx, l, 1, warpgroups, dev.max_sm_clock_mhz * (ctx.quick() ? 300 : 600), policy);
  emit_rate(ctx, row, r);
}

// Per (op, n, warpgroups): the best rate over the depths and the fewest groups in flight reaching
// 90 % of it; each depth's fraction of that best is on the derived record.
void summarize_inflight(SummaryContext& sc) {
  for (const std::string op : {"f16_f32", "e4m3_f32"})
    for (const std::int64_t n : {64, 256})
      for (const std::int64_t wg : {1, 2}) {
        const auto points = sc.ok_records({{"op", op}, {"n", n}, {"warpgroups", wg}});
        if (points.empty()) continue;
        Record* best = sc.derive_best({{"op", op}, {"n", n}, {"warpgroups", wg}, {"groups_in_flight", std::string("best")}},
                                      points, "throughput/flops_per_clk_per_sm");
        // A point without the rate (a damaged run file through resummarize) has no fraction.
        const Metric* best_rate = best ? best->metric("throughput/flops_per_clk_per_sm") : nullptr;
        if (!best_rate) continue;
        const double top = best_rate->value();
        std::int64_t knee = 0;
        nlohmann::json fractions = nlohmann::json::object();
        for (const Record* p : points) {
          const Metric* rate = p->metric("throughput/flops_per_clk_per_sm");
          if (!rate) continue;
          const std::int64_t g = std::get<std::int64_t>(*find_param(p->params, "groups_in_flight"));
          const double f = rate->value() / top;
          fractions[std::to_string(g)] = f;
          if (f >= 0.9 && (knee == 0 || g < knee)) knee = g;
        }
        best->extra["fraction_of_best_by_groups_in_flight"] = fractions;
        sc.add_metric(*best, "inflight/groups_for_90pct", summarize(std::vector<double>{double(knee)}));
      }
}

ProbeSpec inflight_spec() {
  ProbeSpec s;
  s.id = "tensor.wgmma.inflight";
  s.description = "wgmma throughput vs groups in flight (1-8, one m64nNk per group), f16 and e4m3, SS, one CTA per SM";
  s.needs = wgmma_requirements();
  s.axes = {Axis::list("op", std::vector<std::string>{"f16_f32", "e4m3_f32"}),
            std::move(Axis::list("n", {64, 256})).quick({256}), Axis::range("groups_in_flight", 1, kMaxGroups, 1),
            std::move(Axis::list("warpgroups", {1, 2})).quick({1})};
  for (const char* op : {"f16_f32", "e4m3_f32"}) {
    const OpRow& r = op_named(op);
    s.sass.push_back(op_sass(r, "1", "*", "false"));
  }
  s.metrics = rate_metrics();
  s.metrics.push_back({"inflight/groups_for_90pct", "groups", "fewest wgmma groups in flight reaching 90 % of the best"});
  s.views = {line_view("groups_in_flight", "throughput/percent_of_peak")};
  s.run = run_inflight;
  s.summarize = summarize_inflight;
  s.time_cap_s = 25;
  s.quick_time_cap_s = 5;
  return s;
}

GD_REGISTER_PROBE(inflight_spec());

}  // namespace probe_wgmma_inflight
}  // namespace gd
