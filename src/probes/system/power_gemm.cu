// Energy efficiency of the library GEMM per precision: TFLOPS per watt over a sustained window
// of back-to-back cuBLASLt calls, on random versus all-zero operands (how much of the power is
// data-dependent switching). Observes power and clocks only.
#include <optional>
#include <string>
#include <vector>

#include "analysis/power_model.hpp"
#include "core/power_monitor.hpp"
#include "core/registry.hpp"
#include "gemm_runner.hpp"

namespace gd {
namespace probe_power_gemm {

using namespace gemm;

void run_gemm_power(ProbeContext& ctx) {
  const GemmType& t = gemm_type(ctx.str_param("type"));
  const CublasApi* api = &require_gemm(ctx, t);
  const DeviceInfo& d = ctx.device();
  std::string why;
  if (!PowerMonitor::available(d.pci_bus_id, why)) ctx.skip(why);
  const bool zero = ctx.str_param("inputs") == "zero";
  const Shape s{8192, 8192, 8192};
  Operands op(t, s, zero);
  GemmCall gemm(*api, Library::Lt, op, 0.2);
  gemm();
  GD_CUDA_CHECK(cudaDeviceSynchronize());
  const double worst_error = check_outputs(op, gemm.a_transposed(), gemm.out_type(), gemm.out(), gemm.tolerance());

  // Warm until the power has risen, then a window of calls timed as one and powered as one.
  const auto run_for = [&](double seconds) {
    std::size_t calls = 0;
    const double t0 = steady_now_s();
    do {
      for (int i = 0; i < 4; ++i) gemm();
      GD_CUDA_CHECK(cudaDeviceSynchronize());
      calls += 4;
    } while (steady_now_s() - t0 < seconds);
    return calls;
  };
  run_for(0.2);
  PowerMonitor monitor(d.pci_bus_id, 0.01);
  EventTimer timer;
  timer.start();
  const std::size_t calls = run_for(ctx.quick() ? 0.3 : 0.7);
  const double sec = timer.stop_ms() * 1e-3;
  const PowerTrace trace = monitor.stop();
  const double rate = double(calls) * 2.0 * double(s.m) * double(s.n) * double(s.k) / sec / 1e12;
  const double watts = trace.mean_power_w();
  ctx.metric(t.integer ? "throughput/tops" : "throughput/tflops", rate);
  ctx.metric("power/w", watts);
  ctx.metric("clock/nvml_sm_mhz", trace.mean_sm_clock_mhz());
  ctx.metric(t.integer ? "efficiency/tops_per_w" : "efficiency/tflops_per_w", per_watt(rate, watts));
  ctx.no_sm_clock("the timed kernels are cuBLASLt's, which read no clock of ours; NVML's is clock/nvml_sm_mhz");
  ctx.extra()["power"] = trace.summary();
  ctx.extra()["calls"] = calls;
  ctx.extra()["algorithm"] = gemm.choice();
  ctx.extra()["call"] = "cublasLtMatmul, 8192^3 TN (library kernel, no SASS of ours)";
  ctx.extra()["max_sampled_error"] = worst_error;
}

ProbeSpec gemm_power_spec() {
  ProbeSpec s;
  s.id = "power.gemm_efficiency";
  s.description = "cuBLASLt 8192^3 GEMM TFLOPS per watt per precision, random versus zero operands";
  // Quick: the tensor type most GEMMs run, alone (each type is 0.7 s of sustained load).
  s.axes = {std::move(Axis::list("type", type_names())).quick_list({std::string("bf16")}),
            Axis::list("inputs", std::vector<std::string>{"random", "zero"})};
  s.metrics = gemm_metrics("window");
  s.runs_no_sm_kernel = true;  // cuBLASLt's kernels only: nothing of ours to check
  s.views = {grid_view(ReportView::Kind::Heatmap, "inputs", "type", "efficiency/tflops_per_w")};
  const auto cover = [](const char* item, const char* type, const char* metric) {
    return SeedCover{item, metric, {{"type", std::string(type)}, {"inputs", std::string("random")}}};
  };
  s.covers = {cover("power.tflops_per_watt.fp64", "fp64", "efficiency/tflops_per_w"),
              cover("power.tflops_per_watt.fp32", "fp32", "efficiency/tflops_per_w"),
              cover("power.tflops_per_watt.fp16", "fp16", "efficiency/tflops_per_w"),
              cover("power.tflops_per_watt.fp8", "fp8_e4m3", "efficiency/tflops_per_w"),
              cover("power.tflops_per_watt.int8", "int8", "efficiency/tops_per_w")};
  s.run = run_gemm_power;
  s.time_cap_s = 40;
  s.quick_time_cap_s = 8;
  return s;
}

GD_REGISTER_PROBE(gemm_power_spec());

}  // namespace probe_power_gemm
}  // namespace gd
