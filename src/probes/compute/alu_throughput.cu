// Throughput of every instruction in the catalog (latency/alu_catalog.cuh): results per clock per
// SM over ILP x warps per SM, and the knee where it saturates: how much independent work a
// kernel needs in flight to run an instruction at the chip's rate.
#include <string>
#include <type_traits>
#include <vector>

#include "../latency/alu_seed_items.hpp"
#include "alu_streams.cuh"
#include "core/registry.hpp"

namespace gd {
namespace {

// Launches of about 80k cycles (40 us at 2 GHz): clock reads and the block ramp are well under 1 %.
constexpr double kTargetCycles = 80000;

// The CUDA C++ Programming Guide's "Throughput of Native Arithmetic Instructions" (results per
// clock per SM) for the rows it covers at compute capability 9.0; 0: not listed or another cc.
// Packed half rows count one result per step (the guide counts 2 per HFMA2).
double guide_rate(const std::string& row, int cc) {
  if (cc != 90) return 0;
  if (row == "ffma" || row == "fadd" || row == "fmul") return 128;
  if (row == "iadd3" || row == "lop3") return 64;
  if (row == "dfma" || row == "dadd" || row == "dmul") return 64;
  return 0;
}

// The ILP x warps grid, swept inside one point: a record per grid cell would cost the run more
// in bookkeeping than the measurement itself (about 1300 records for the catalog).
constexpr int kGridIlps[] = {1, 2, 4, 8};
constexpr int kGridWarps[] = {4, 8, 16, 32};
constexpr int kQuickIlps[] = {2, 8};
constexpr int kQuickWarps[] = {8, 32};

template <class Op>
void run_alu_throughput(ProbeContext& ctx) {
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.target_rel_ci = 0.005;
  policy.time_cap_s = 0.2;
  const std::vector<int> ilps = ctx.quick() ? std::vector<int>(std::begin(kQuickIlps), std::end(kQuickIlps))
                                            : std::vector<int>(std::begin(kGridIlps), std::end(kGridIlps));
  const std::vector<int> warps = ctx.quick() ? std::vector<int>(std::begin(kQuickWarps), std::end(kQuickWarps))
                                             : std::vector<int>(std::begin(kGridWarps), std::end(kGridWarps));
  std::vector<RatePoint> sweep;
  std::vector<double> clocks;
  nlohmann::json grid = nlohmann::json::array();
  Summary best;
  for (int ilp : ilps)
    for (int w : warps) {
      const alu_streams::StreamRate r = alu_streams::measure_stream_rate<Op>(ctx, ilp, w, kTargetCycles, policy);
      sweep.push_back({double(ilp), double(w), r.rate.median});
      clocks.push_back(r.clock_mhz);
      grid.push_back({{"ilp", ilp}, {"warps_per_sm", w}, {"per_clk_per_sm", r.rate.median}, {"trips", r.trips}});
      if (!(best.median >= r.rate.median)) best = r.rate;
    }
  const ThroughputKnee k = throughput_knee(sweep);
  ctx.set_observed_sm_clock_mhz(summarize(clocks).median);
  ctx.metric("throughput/per_clk_per_sm", best);
  ctx.metric("throughput/per_clk_per_smsp", best.median / 4);
  // The seeds count warp instructions: one per 32 results of a one-instruction row.
  ctx.metric("throughput/warp_instr_per_clk_per_sm", best.median / 32);
  ctx.metric("throughput/warp_instr_per_clk_per_smsp", best.median / 32 / 4);
  ctx.metric("knee/ilp", k.ilp_knee);
  ctx.metric("knee/warps_per_sm", k.warps_knee);
  if (const double guide = guide_rate(Op::name, ctx.device().cc()); guide > 0)
    ctx.metric("throughput/percent_of_guide", k.plateau / guide * 100);
  ctx.extra()["sweep"] = grid;
  ctx.extra()["plateau_point"] = {{"ilp", k.plateau_ilp}, {"warps_per_sm", k.plateau_warps}};
}

// The reference-table line: the row's latency-independent facts and its knee, and the pipe
// Nsight Compute's counters name when the run was under ncu (else it says they are absent).
template <class Op>
void summarize_alu_throughput(SummaryContext& sc) {
  for (const Record* r : sc.ok_records()) {
    Record& d = sc.derive({{"view", std::string("knee")}}, {r});
    for (const Metric& m : r->metrics) sc.add_metric(d, m.name, m.stats);
    d.extra["instruction"] = Op::name;
    d.extra["description"] = Op::description;
    d.extra["source"] = Op::source;
    std::vector<std::string> sass;
    for (const auto& op : Op::sass()) sass.push_back(op.opcode);
    d.extra["sass"] = sass;
    d.extra["plateau_point"] = r->extra.value("plateau_point", nlohmann::json());
    d.extra["knee_fraction"] = 0.95;
    d.extra["pipe_by_ncu"] = describe_ncu_pipe(r->extra, "alu_stream_kernel");
  }
}

template <class Op>
ProbeSpec alu_throughput_spec() {
  ProbeSpec s;
  s.id = std::string("compute.alu.") + Op::name;
  s.description = std::string("throughput of ") + Op::description + " (results per clock per SM over ILP x warps)";
  s.needs = alu_catalog::requirements<Op>();
  for (int ilp : alu_streams::kIlps) s.sass.push_back(alu_streams::stream_sass<Op>(ilp));
  s.metrics = {{"throughput/per_clk_per_sm", "results/clk/SM", "best rate over ILP x warps: steps of the row per clock per SM"},
               {"throughput/per_clk_per_smsp", "results/clk/SMSP", "the same per scheduler (SM / 4)"},
               {"throughput/warp_instr_per_clk_per_sm", "inst/cyc/SM",
                "results per clock per SM / 32: warp-wide steps, the warp instructions of a one-instruction row"},
               {"throughput/warp_instr_per_clk_per_smsp", "inst/cyc", "the same per scheduler (sub-core)"},
               {"knee/ilp", "chains", "smallest ILP reaching 95 % of the plateau (at the plateau's warps)"},
               {"knee/warps_per_sm", "warps", "fewest warps per SM reaching 95 % of the plateau (at its ILP)"},
               {"throughput/percent_of_guide", "%", "plateau over the CUDA guide's rate for this cc"}};
  s.run = run_alu_throughput<Op>;
  s.summarize = summarize_alu_throughput<Op>;
  s.ncu_metrics = pipe_utilization_metrics();
  // The summary's {view: knee} record answers them: the point record carries the same numbers,
  // so an empty `where` would select both (coverage --check-covers).
  s.covers = alu_catalog::throughput_covers(Op::name);
  for (SeedCover& c : s.covers) c.where.emplace_back("view", std::string("knee"));
  s.time_cap_s = 4;
  s.quick_time_cap_s = 1.5;
  return s;
}

[[maybe_unused]] const bool registered = [] {
  alu_catalog::for_each_variant_of_this_slice(
      [](auto* row) {
        using Op = std::remove_pointer_t<decltype(row)>;
        ProbeRegistration{alu_throughput_spec<Op>()};
        alu_streams::register_pair_stream_kernel<Op>();  // the pipes' families launch it too
      });
  return true;
}();

}  // namespace
}  // namespace gd
