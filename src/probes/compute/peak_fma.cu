// FP32 FFMA and FP64 DFMA throughput per SM per clock and in TFLOPS, over ILP x warps: the
// arithmetic ceilings of the chip, how much independent work it takes to reach them, and the
// FP64:FP32 ratio that decides whether a double-precision kernel is worth writing.
#include <algorithm>
#include <string>
#include <vector>

#include "alu_streams.cuh"
#include "analysis/rate_relations.hpp"
#include "core/registry.hpp"

namespace gd {
namespace probe_peak_fma {

using Ffma = alu_catalog::Ffma;
using Dfma = alu_catalog::Dfma;

// FMA lanes per SM: the CUDA C++ Programming Guide's arithmetic-throughput table (results per
// clock per SM for 32- and 64-bit FMA). The reference the measured rate is compared with.
int fp32_lanes_per_sm(int cc) {
  switch (cc) {
    case 80: return 64;
    case 86: case 87: case 89: case 90: case 100: case 101: case 103: case 110: case 120: case 121: return 128;
    default: return 0;  // unknown: percent of peak is not reported
  }
}
int fp64_lanes_per_sm(int cc) {
  switch (cc) {
    case 80: return 32;
    case 90: return 64;
    case 86: case 87: case 89: case 120: case 121: return 2;
    default: return 0;
  }
}

// One point: the row's shared stream kernel (compute.alu.<row> runs the same kernel) at one
// (ilp, warps), for about 1 ms per launch at a full-rate clock: long against launch and ramp
// effects. The chip-level view: TFLOPS at the observed clock.
template <class Op>
void run_fma_peak(ProbeContext& ctx, int lanes) {
  const int ilp = int(ctx.int_param("ilp"));
  const int warps = int(ctx.int_param("warps_per_sm"));
  const DeviceInfo& d = ctx.device();
  RepeatPolicy policy;
  policy.warmup = 2;
  policy.target_rel_ci = 0.002;
  const double target_cycles = d.max_sm_clock_mhz * 1e3;
  const alu_streams::StreamRate r = alu_streams::measure_stream_rate<Op>(ctx, ilp, warps, target_cycles, policy);
  ctx.set_observed_sm_clock_mhz(r.clock_mhz);
  ctx.metric("throughput/fma_per_clk_per_sm", r.rate);
  ctx.metric("throughput/tflops", 2.0 * r.rate.median * d.sm_count * r.clock_mhz * 1e6 / 1e12);
  if (lanes > 0) ctx.metric("throughput/percent_of_peak", r.rate.median / lanes * 100);
  ctx.extra()["trips"] = r.trips;
}

void run_fp32_peak(ProbeContext& ctx) { run_fma_peak<Ffma>(ctx, fp32_lanes_per_sm(ctx.device().cc())); }

void run_fp64_peak(ProbeContext& ctx) {
  const std::string op = ctx.str_param("op");
  if (op == "dfma") run_fma_peak<Dfma>(ctx, fp64_lanes_per_sm(ctx.device().cc()));
  else if (op == "ffma") run_fma_peak<Ffma>(ctx, fp32_lanes_per_sm(ctx.device().cc()));
  else throw Error("compute.peak.fp64: op must be dfma or ffma; got " + op);
}

void summarize_fp32(SummaryContext& sc) {
  sc.derive_best({{"ilp", std::string("best")}, {"warps_per_sm", std::string("best")}}, sc.ok_records(),
                 "throughput/fma_per_clk_per_sm");
}

// The best point of each op, and FP64:FP32 as the ratio of their best FMA rates per clock (the
// clock cancels, so a clock that moved between the points does not enter).
void summarize_fp64(SummaryContext& sc) {
  const Params best = {{"ilp", std::string("best")}, {"warps_per_sm", std::string("best")}};
  // Values, not pointers: each derive appends to the summary's records and may move them.
  double rate[2] = {0, 0};
  const char* ops[2] = {"dfma", "ffma"};
  for (int i = 0; i < 2; ++i) {
    Params where = {{"op", std::string(ops[i])}};
    Params at = where;
    at.insert(at.end(), best.begin(), best.end());
    if (const Record* r = sc.derive_best(at, sc.ok_records(where), "throughput/fma_per_clk_per_sm"))
      rate[i] = r->metric("throughput/fma_per_clk_per_sm")->value();
  }
  if (!(rate[0] > 0 && rate[1] > 0)) return;
  const double fp64 = rate[0], fp32 = rate[1];
  std::vector<const Record*> sources;
  for (const Record* r : sc.ok_records())
    if (r->metric("throughput/fma_per_clk_per_sm")) sources.push_back(r);
  Record& ratio = sc.derive({{"op", std::string("fp64_per_fp32")}}, sources);
  sc.add_metric(ratio, "ratio/fp64_per_fp32", single_value(rate_ratio(fp64, fp32)));
  ratio.extra["of"] = "best DFMA over best FFMA results per clock per SM over the ILP x warps grid";
}

std::vector<MetricSpec> fma_metrics() {
  return {{"throughput/fma_per_clk_per_sm", "FMA/clk/SM", "FMA results per clock per SM"},
          {"throughput/tflops", "TFLOPS", "2 x FMA rate x SMs x observed clock"},
          {"throughput/percent_of_peak", "%", "of the FMA lanes per SM (CUDA guide)"}};
}

ProbeSpec fp32_peak_spec() {
  ProbeSpec s;
  s.id = "compute.peak.fp32";
  s.description = "FP32 FFMA throughput per SM per clock and TFLOPS over ILP x warps per SM";
  const auto& ilps = alu_streams::kIlps;
  s.axes = {std::move(Axis::list("ilp", {ilps[0], ilps[1], ilps[2], ilps[3]})).quick({4, 8}),
            std::move(Axis::list("warps_per_sm", {4, 8, 16, 32})).quick({16, 32})};
  for (int ilp : ilps) s.sass.push_back(alu_streams::stream_sass<Ffma>(ilp));
  s.metrics = fma_metrics();
  s.views = {grid_view(ReportView::Kind::Heatmap, "ilp", "warps_per_sm", "throughput/fma_per_clk_per_sm")};
  s.run = run_fp32_peak;
  s.summarize = summarize_fp32;
  s.time_cap_s = 12;
  s.quick_time_cap_s = 3;
  return s;
}

// DFMA beside FFMA in one probe, so that one summary sees both: FP64 TFLOPS and the FP64:FP32
// ratio. The grid is where compute.peak.fp32 and compute.alu.dfma reach their plateaus.
ProbeSpec fp64_peak_spec() {
  ProbeSpec s;
  s.id = "compute.peak.fp64";
  s.description = "FP64 DFMA beside FP32 FFMA throughput per SM per clock, TFLOPS and the FP64:FP32 ratio";
  s.axes = {Axis::list("op", std::vector<std::string>{"dfma", "ffma"}),
            std::move(Axis::list("ilp", {2, 4, 8})).quick({4}),
            std::move(Axis::list("warps_per_sm", {8, 16, 32})).quick({32})};
  for (int ilp : alu_streams::kIlps) {
    s.sass.push_back(alu_streams::stream_sass<Dfma>(ilp));
    s.sass.push_back(alu_streams::stream_sass<Ffma>(ilp));
  }
  s.metrics = fma_metrics();
  s.metrics.push_back({"ratio/fp64_per_fp32", "ratio", "best DFMA over best FFMA results per clock per SM"});
  s.views = {grid_view(ReportView::Kind::Heatmap, "ilp", "warps_per_sm", "throughput/fma_per_clk_per_sm")};
  s.covers = {{"throughput.fp64.tflops", "throughput/tflops",
               {{"op", std::string("dfma")}, {"ilp", std::string("best")}, {"warps_per_sm", std::string("best")}}},
              {"throughput.fp64.fp32_ratio", "ratio/fp64_per_fp32", {{"op", std::string("fp64_per_fp32")}}}};
  s.run = run_fp64_peak;
  s.summarize = summarize_fp64;
  s.time_cap_s = 12;
  s.quick_time_cap_s = 3;
  return s;
}

GD_REGISTER_PROBE(fp32_peak_spec());
GD_REGISTER_PROBE(fp64_peak_spec());

}  // namespace probe_peak_fma
}  // namespace gd
