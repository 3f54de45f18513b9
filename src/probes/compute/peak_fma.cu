// FP32 FFMA throughput per SM per clock and in TFLOPS, over ILP x warps: the arithmetic
// ceiling of the chip and how much independent work it takes to reach it.
#include <algorithm>
#include <string>
#include <vector>

#include "alu_streams.cuh"
#include "core/registry.hpp"

namespace gd {
namespace {

// FP32 lanes per SM: the CUDA C++ Programming Guide's arithmetic-throughput table (results
// per clock per SM for 32-bit FMA). The reference the measured rate is compared with.
int fp32_lanes_per_sm(int cc) {
  switch (cc) {
    case 80: return 64;
    case 86: case 87: case 89: case 90: case 100: case 101: case 103: case 110: case 120: case 121: return 128;
    default: return 0;  // unknown: percent of peak is not reported
  }
}

// The catalog's FFMA row over its shared stream kernel (compute.alu.ffma runs the same kernel):
// this probe adds the chip-level view, TFLOPS at the observed clock.
using Ffma = alu_catalog::Ffma;

void run_fp32_peak(ProbeContext& ctx) {
  const int ilp = int(ctx.int_param("ilp"));
  const int warps = int(ctx.int_param("warps_per_sm"));
  const DeviceInfo& d = ctx.device();
  RepeatPolicy policy;
  policy.warmup = 2;
  policy.target_rel_ci = 0.002;
  // About 1 ms per launch at a full-rate clock: long against launch and ramp effects.
  const double target_cycles = d.max_sm_clock_mhz * 1e3;
  const alu_streams::StreamRate r = alu_streams::measure_stream_rate<Ffma>(ctx, ilp, warps, target_cycles, policy);
  ctx.set_observed_sm_clock_mhz(r.clock_mhz);
  ctx.metric("throughput/fma_per_clk_per_sm", r.rate);
  ctx.metric("throughput/tflops", 2.0 * r.rate.median * d.sm_count * r.clock_mhz * 1e6 / 1e12);
  if (const int lanes = fp32_lanes_per_sm(d.cc())) ctx.metric("throughput/percent_of_peak", r.rate.median / lanes * 100);
  ctx.extra()["trips"] = r.trips;
}

void summarize_fp32(SummaryContext& sc) {
  sc.derive_best({{"ilp", std::string("best")}, {"warps_per_sm", std::string("best")}}, sc.ok_records(),
                 "throughput/fma_per_clk_per_sm");
}

ProbeSpec fp32_peak_spec() {
  ProbeSpec s;
  s.id = "compute.peak.fp32";
  s.description = "FP32 FFMA throughput per SM per clock and TFLOPS over ILP x warps per SM";
  const auto& ilps = alu_streams::kIlps;
  s.axes = {std::move(Axis::list("ilp", {ilps[0], ilps[1], ilps[2], ilps[3]})).quick({4, 8}),
            std::move(Axis::list("warps_per_sm", {4, 8, 16, 32})).quick({16, 32})};
  for (int ilp : ilps) s.sass.push_back(alu_streams::stream_sass<Ffma>(ilp));
  s.metrics = {{"throughput/fma_per_clk_per_sm", "FMA/clk/SM", "FFMA results per clock per SM"},
               {"throughput/tflops", "TFLOPS", "2 x FMA rate x SMs x observed clock"},
               {"throughput/percent_of_peak", "%", "of the FP32 lanes per SM (CUDA guide)"}};
  s.views = {grid_view(ReportView::Kind::Heatmap, "ilp", "warps_per_sm", "throughput/fma_per_clk_per_sm")};
  s.run = run_fp32_peak;
  s.summarize = summarize_fp32;
  s.time_cap_s = 12;
  s.quick_time_cap_s = 3;
  return s;
}

GD_REGISTER_PROBE(fp32_peak_spec());

}  // namespace
}  // namespace gd
