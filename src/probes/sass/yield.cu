// The yield bit by cubin patching: a dependent FFMA chain with 1 to 32 warps on one SM, every
// chain instruction's yield flag set or cleared, and the time per step each warp sees: whether the
// scheduler needs the hint to interleave warps, which a kernel author cannot set from CUDA.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "analysis/control_fields.hpp"
#include "core/registry.hpp"
#include "../latency/alu_catalog.cuh"
#include "patch_chains.cuh"

namespace gd {
namespace probe_yield {

using namespace patch_chains;
using Ffma = alu_catalog::Ffma;

constexpr int kWarps[] = {1, 2, 4, 8, 16, 32};

sass::ControlPatch yield_patch(const sass::LocatedKernel& k, const ChainShape& shape, bool yield) {
  sass::ControlPatch p(k);
  for (const auto& r : shape.runs)
    for (std::size_t i = r.first; i < r.first + r.count; ++i) {
      sass::ControlWord w = p.control(i);
      w.yield = yield;
      p.set_control(i, w);
    }
  return p;
}

void run_yield(ProbeContext& ctx) {
  if (const auto off = sass::patching_disabled()) ctx.skip(*off);
  const sass::LocatedKernel k = sass::locate_own_kernel(ctx.device(), "stall_class_kernel<gd::alu_catalog::Ffma>");
  const ChainShape shape = find_chain(k);
  ctx.launched_by_name(k.name);
  const bool compiler_yield = k.control(shape.runs.front().first + 1).yield;

  std::mt19937 rng(std::random_device{}());
  std::vector<float> x0(32 * 32);
  for (auto& v : x0) v = float(rng() % 1000);
  const float a = 1.0f, b = float(1 + rng() % 7);

  const sass::Cubin set = yield_patch(k, shape, true).apply(), cleared = yield_patch(k, shape, false).apply();
  struct Point {
    int warps;
    bool yield;
  };
  std::vector<Point> points;
  std::vector<sass::PatchedLaunch> launches;
  for (int w : kWarps)
    for (bool y : {true, false}) {
      points.push_back({w, y});
      launches.push_back({y ? &set : &cleared, chain_job(k, ctx.device().index, unsigned(32 * w), x0.data(),
                                                         std::size_t(32 * w) * 4, {sass::LaunchArg::of(a), sass::LaunchArg::of(b)})});
    }
  const auto outcomes = sass::launch_batch_in_child(launches, 20);

  nlohmann::json table = nlohmann::json::array();
  std::vector<double> mhz;
  double one_set = 0, one_cleared = 0, full_set = 0, full_cleared = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const ChainResult r = read_chain_result(outcomes[i]);
    const Point& p = points[i];
    int wrong = 0;
    if (r.completed()) {
      const auto* got = reinterpret_cast<const float*>(r.outcome.buffers.at(0).data());
      for (int lane = 0; lane < 32 * p.warps; ++lane) wrong += got[lane] != x0[lane] + float(kSteps) * b;
      mhz.push_back(r.clock_mhz);
    }
    // Warp 0's cycles per step; with w warps sharing the SM's four schedulers, the SM's step
    // rate is w / that.
    const double per_step = r.completed() ? r.fit.slope : 0;
    table.push_back({{"warps", p.warps}, {"yield", p.yield}, {"outcome", r.kind()}, {"wrong_lanes", wrong},
                     {"warp0_cycles_per_step", per_step},
                     {"sm_steps_per_cycle", per_step > 0 ? p.warps / per_step : 0.0}});
    if (!r.completed() || wrong) continue;
    if (p.warps == 1) (p.yield ? one_set : one_cleared) = per_step;
    if (p.warps == 32) (p.yield ? full_set : full_cleared) = per_step;
  }
  ctx.extra()["arch"] = k.cubin.arch().name();
  ctx.extra()["compiler_yield"] = compiler_yield;
  ctx.extra()["patch_set"] = yield_patch(k, shape, true).describe().at(0);
  ctx.extra()["patch_cleared"] = yield_patch(k, shape, false).describe().at(0);
  ctx.extra()["sweep"] = table;
  if (mhz.empty()) throw Error("no yield launch completed");
  ctx.set_observed_sm_clock_mhz(summarize(mhz).median, "clock64 over %globaltimer across the launches (child process)");
  if (one_set > 0) ctx.metric("cycles_per_step/1_warp_yield_set", one_set);
  if (one_cleared > 0) ctx.metric("cycles_per_step/1_warp_yield_cleared", one_cleared);
  if (full_set > 0) ctx.metric("cycles_per_step/32_warps_yield_set", full_set);
  if (full_cleared > 0) ctx.metric("cycles_per_step/32_warps_yield_cleared", full_cleared);
}

// The yield field: the bit the two patches differ in, and whether flipping it moved the timing.
void summarize_yield(SummaryContext& sc) {
  for (const Record* r : sc.ok_records()) {
    if (r->derived || !r->extra.contains("patch_set") || !r->extra.contains("patch_cleared")) continue;
    std::vector<YieldTrial> trials;
    for (const auto& t : r->extra.value("sweep", nlohmann::json::array()))
      if (t.value("outcome", "") == "completed" && t.value("wrong_lanes", 1) == 0)
        trials.push_back({t.at("warps").get<int>(), t.at("yield").get<bool>(), t.value("warp0_cycles_per_step", 0.0)});
    const std::string field = yield_field_effect(parse_word(r->extra["patch_set"].at("new_hi").get<std::string>()),
                                                 parse_word(r->extra["patch_cleared"].at("new_hi").get<std::string>()), trials);
    sc.derive({{"field", std::string("yield")}}, {r}).extra["yield_field"] = field;
  }
}

ProbeSpec yield_spec() {
  ProbeSpec s;
  s.id = "sass.patch.yield";
  s.description = "yield bit set or cleared on a dependent FFMA chain with 1 to 32 warps on one SM (cubin patched, in a child)";
  s.needs.min_cc = 70;
  s.sass = {expect_sass("*stall_class_kernel<gd::alu_catalog::Ffma>*", SassRegion::Clocked, {{"FFMA", kSteps, kSteps}})};
  s.metrics = {{"cycles_per_step/1_warp_yield_set", "cycles", "warp 0's cycles per dependent FFMA, one warp, yield set"},
               {"cycles_per_step/1_warp_yield_cleared", "cycles", "the same with the yield flag cleared"},
               {"cycles_per_step/32_warps_yield_set", "cycles", "warp 0's cycles per step with 32 warps on the SM, yield set"},
               {"cycles_per_step/32_warps_yield_cleared", "cycles", "the same with the yield flag cleared"}};
  s.run = run_yield;
  s.summarize = summarize_yield;
  s.covers = {{"control.yield.effect", "cycles_per_step/32_warps_yield_set", {}},
              {"control.yield.field", "extra.yield_field", {{"field", std::string("yield")}}}};
  // Not risky: every patched launch runs in launch_batch_in_child (a child with a watchdog).
  s.time_cap_s = 40;
  s.quick_time_cap_s = 20;
  return s;
}

GD_REGISTER_PROBE(yield_spec());


}  // namespace probe_yield
}  // namespace gd
