// How many instructions one sub-core keeps in flight in a pipe (FMA, INT, SFU, tensor): Little's
// law over the row's dependent-chain latency and its peak issue rate per sub-core, both measured
// here. The independent work per scheduler a kernel needs to keep that pipe busy.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "../latency/alu_chain.cuh"
#include "../latency/alu_extra_rows.cuh"
#include "alu_streams.cuh"
#include "analysis/rate_relations.hpp"
#include "core/registry.hpp"

namespace gd {
namespace probe_pipe_depth {

// The seeds' pipe-depth table rows and the catalog row that stands for each pipe: FFMA (FMA),
// IADD3 (INT), MUFU.EX2 (SFU), HMMA.1688.F16 with its accumulator as the chain (tensor); and two
// rows whose rate the seeds compare: VIADD.16x2 (their V-pipe) against IADD3, and I2IP.
struct PipeRow {
  const char* row;
  const char* depth_item;  // nullptr: the seeds give this row no depth
};
constexpr PipeRow kPipes[] = {{"ffma", "throughput.ffma.pipe_depth"},     {"iadd3", "throughput.iadd3.pipe_depth"},
                              {"mufu_ex2", "throughput.sfu.pipe_depth"},  {"mma_f16_f16", "throughput.tc.pipe_depth"},
                              {"simd_vadd2", nullptr},                    {"cvt_pack_i2ip", nullptr}};
using PipeOps = std::tuple<alu_catalog::Ffma, alu_catalog::Iadd3, alu_catalog::MufuEx2, alu_catalog::HmmaF16,
                           alu_catalog::Vadd2, alu_extra_rows::CvtPackI2ip>;

constexpr double kTargetCycles = 80000;
constexpr int kRateIlps[] = {2, 4, 8};
constexpr int kRateWarps[] = {16, 32};

// The peak issue rate of the row: the best stream rate over ILP x warps per SM, in warp
// instructions (32 results of a one-instruction row) per clock per sub-core (SM / 4).
template <class Op>
void run_rate(ProbeContext& ctx) {
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.target_rel_ci = 0.005;
  policy.time_cap_s = 0.2;
  Summary best;
  std::vector<double> clocks;
  nlohmann::json grid = nlohmann::json::array();
  for (int ilp : kRateIlps)
    for (int w : kRateWarps) {
      const alu_streams::StreamRate r = alu_streams::measure_stream_rate<Op>(ctx, ilp, w, kTargetCycles, policy);
      clocks.push_back(r.clock_mhz);
      grid.push_back({{"ilp", ilp}, {"warps_per_sm", w}, {"per_clk_per_sm", r.rate.median}});
      if (!(best.median >= r.rate.median)) best = r.rate;
    }
  ctx.set_observed_sm_clock_mhz(summarize(clocks).median);
  Summary per_smsp = best;
  for (double* v : {&per_smsp.median, &per_smsp.min, &per_smsp.max, &per_smsp.mean, &per_smsp.stddev}) *v /= 32 * 4;
  ctx.metric("throughput/warp_instr_per_clk_per_sm", best.median / 32);
  ctx.metric("throughput/warp_instr_per_clk_per_smsp", per_smsp);
  ctx.metric("interval/cycles", 1 / per_smsp.median);
  ctx.extra()["sweep"] = grid;
}

template <class Op>
void run_part(ProbeContext& ctx) {
  const int cc = ctx.device().cc();
  if (cc < Op::min_cc || (Op::max_cc && cc > Op::max_cc))
    ctx.skip(std::string(Op::name) + " compiles to its instruction only on cc " + std::to_string(Op::min_cc) + " to " +
             (Op::max_cc ? std::to_string(Op::max_cc) : std::string("any")) + "; this device is cc " + std::to_string(cc));
  const std::string part = ctx.str_param("part");
  if (part == "latency") alu_chain::run_alu_latency<Op>(ctx);
  else if (part == "rate") run_rate<Op>(ctx);
  else throw Error("compute.pipe_depth: part must be latency or rate; got " + part);
}

void run_pipe_depth(ProbeContext& ctx) {
  const std::string row = ctx.str_param("row");
  bool ran = false;
  [&]<class... Op>(std::tuple<Op...>*) {
    ((row == Op::name && !ran ? (run_part<Op>(ctx), ran = true) : false), ...);
  }(static_cast<PipeOps*>(nullptr));
  if (!ran) throw Error("compute.pipe_depth: no pipe row named " + row);
}

// The row's rate point's metric, or nullptr.
const Metric* rate_of(SummaryContext& sc, const char* row, const Record** rec) {
  const auto r = sc.ok_records({{"row", std::string(row)}, {"part", std::string("rate")}});
  if (r.size() != 1) return nullptr;
  *rec = r[0];
  return r[0]->metric("throughput/warp_instr_per_clk_per_smsp");
}

// Per row: {row, part: depth} from its latency point and its rate point; and VIADD.16x2's peak
// over IADD3's as {row: simd_vadd2, part: vs_iadd3}.
void summarize_pipe_depth(SummaryContext& sc) {
  const Record *vadd = nullptr, *iadd = nullptr;
  const Metric* v = rate_of(sc, "simd_vadd2", &vadd);
  const Metric* i = rate_of(sc, "iadd3", &iadd);
  if (v && i) {
    Record& d = sc.derive({{"row", std::string("simd_vadd2")}, {"part", std::string("vs_iadd3")}}, {vadd, iadd});
    sc.add_metric(d, "ratio/percent_over_iadd3", single_value((rate_ratio(v->value(), i->value()) - 1) * 100));
  }
  for (const PipeRow& p : kPipes) {
    const auto lat = sc.ok_records({{"row", std::string(p.row)}, {"part", std::string("latency")}});
    const auto rate = sc.ok_records({{"row", std::string(p.row)}, {"part", std::string("rate")}});
    if (lat.size() != 1 || rate.size() != 1) continue;
    const Metric* l = lat[0]->metric("latency/cycles");
    const Metric* r = rate[0]->metric("throughput/warp_instr_per_clk_per_smsp");
    if (!l || !r) continue;
    Record& d = sc.derive({{"row", std::string(p.row)}, {"part", std::string("depth")}}, {lat[0], rate[0]});
    sc.add_metric(d, "latency/cycles", l->stats);
    sc.add_metric(d, "throughput/warp_instr_per_clk_per_smsp", r->stats);
    sc.add_metric(d, "depth/in_flight", single_value(littles_law_in_flight(l->value(), r->value())));
    d.extra["law"] = "Little's law: in flight = dependent-chain latency x peak issue rate per sub-core";
  }
}

ProbeSpec pipe_depth_spec() {
  ProbeSpec s;
  s.id = "compute.pipe_depth";
  s.description = "warp instructions in flight per sub-core and pipe (Little's law: chain latency x peak issue rate)";
  std::vector<std::string> rows;
  for (const PipeRow& p : kPipes) rows.push_back(p.row);
  s.axes = {Axis::list("row", rows), Axis::list("part", std::vector<std::string>{"latency", "rate"})};
  // Every row's SASS is declared for every target, so the probe needs the newest row's chip.
  s.needs.min_cc = [&]<class... Op>(std::tuple<Op...>*) { return std::max({Op::min_cc...}); }(static_cast<PipeOps*>(nullptr));
  [&]<class... Op>(std::tuple<Op...>*) {
    ([&] {
      for (SassExpectation& e : alu_chain::chain_latency_sass<Op>()) s.sass.push_back(std::move(e));
      for (int ilp : alu_streams::kIlps) s.sass.push_back(alu_streams::stream_sass<Op>(ilp));
    }(), ...);
  }(static_cast<PipeOps*>(nullptr));
  s.metrics = chain_latency_metrics("cycles from a result to its dependent use");
  s.metrics.push_back({"throughput/warp_instr_per_clk_per_smsp", "inst/cyc", "peak over ILP x warps, per sub-core"});
  s.metrics.push_back({"interval/cycles", "cycles", "cycles between the row's instructions on one sub-core at its peak"});
  s.metrics.push_back({"depth/in_flight", "warp instr", "latency x issue rate: instructions one sub-core keeps in the pipe"});
  s.views = {bars_view("depth/in_flight")};
  s.metrics.push_back({"throughput/warp_instr_per_clk_per_sm", "inst/cyc/SM", "peak over ILP x warps, per SM"});
  s.metrics.push_back({"ratio/percent_over_iadd3", "%", "VIADD.16x2's peak issue rate over IADD3's, minus 100 %"});
  for (const PipeRow& p : kPipes)
    if (p.depth_item)
      s.covers.push_back({p.depth_item, "depth/in_flight", {{"row", std::string(p.row)}, {"part", std::string("depth")}}});
  s.covers.push_back({"throughput.simd.vpipe_vs_iadd3", "ratio/percent_over_iadd3",
                      {{"row", std::string("simd_vadd2")}, {"part", std::string("vs_iadd3")}}});
  // The seeds time I2IP at ILP 8; the rate point is the best over ILP 2, 4, 8 (extra.sweep has each).
  s.covers.push_back({"throughput.cvt.pack_i2ip", "throughput/warp_instr_per_clk_per_sm",
                      {{"row", std::string("cvt_pack_i2ip")}, {"part", std::string("rate")}}});
  s.run = run_pipe_depth;
  s.summarize = summarize_pipe_depth;
  s.time_cap_s = 16;
  s.quick_time_cap_s = 4;
  return s;
}

GD_REGISTER_PROBE(pipe_depth_spec());

}  // namespace probe_pipe_depth
}  // namespace gd
