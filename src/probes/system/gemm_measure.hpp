// How a GEMM-ceiling point times its GEMM: a short burst after an idle pause, then the sustained
// rate through the point's adaptive repetition with NVML power and SM clock over the timed loop.
// Shared by the library-agnostic GEMM probes (gemm_cutlass.cu).
#pragma once
#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "analysis/power_model.hpp"
#include "analysis/tensor_rate.hpp"
#include "core/error.hpp"
#include "core/event_timing.hpp"
#include "core/power_monitor.hpp"
#include "core/probe.hpp"
#include "gemm_runner.hpp"

namespace gd::gemm {

// The tensor-core operand type (analysis/tensor_rate's names) a GEMM precision runs on, or
// nullopt for fp32, which has no tensor-core path (FFMA). Throws Error on an unknown precision.
inline std::optional<std::string> tensor_operand(const std::string& gemm_type) {
  static const std::pair<const char*, const char*> kMap[] = {{"fp64", "f64"}, {"tf32", "tf32"}, {"fp16", "f16"},
                                                             {"bf16", "bf16"}, {"int8", "s8"},  {"fp8_e4m3", "e4m3"}};
  for (const auto& [name, operand] : kMap)
    if (gemm_type == name) return std::string(operand);
  if (gemm_type == "fp32") return std::nullopt;
  throw Error("no tensor-core operand type for GEMM precision '" + gemm_type + "'");
}

// A GEMM rate (TFLOPS or TOPS) against the chip's dense per-clock tensor rate for its operand type
// at the clock it ran at; nullopt where the precision or chip has no published rate. Throws
// std::invalid_argument on a non-positive clock or SM count, or a negative or non-finite rate.
inline std::optional<TensorEfficiency> gemm_efficiency(const std::string& gemm_type, int cc, int sm_count,
                                                       double clock_mhz, double rate_tflops) {
  const auto operand = tensor_operand(gemm_type);
  if (!operand) return std::nullopt;
  const auto peak = tensor_rate(cc, *operand);
  if (!peak) return std::nullopt;
  if (!(clock_mhz > 0) || sm_count < 1)
    throw std::invalid_argument("gemm_efficiency: clock and SM count must be positive");
  return tensor_efficiency(rate_tflops * 1e12 / (double(sm_count) * clock_mhz * 1e6), peak->flops_per_clk_per_sm,
                           sm_count, clock_mhz);
}

struct GemmRate {
  double median = 0;              // TFLOPS (TOPS for integers) over the timed loop
  std::optional<double> nvml_mhz;  // NVML's mean SM clock over it, where NVML reads power
};

// What measure_gemm emits.
inline std::vector<MetricSpec> measure_gemm_metrics() {
  std::vector<MetricSpec> m = gemm_metrics("timed loop (median of the samples)");
  m.push_back({"throughput/burst_tflops", "TFLOPS", "floating-point rate of a few back-to-back calls after 0.2 s idle"});
  m.push_back({"throughput/burst_tops", "TOPS", "integer rate of a few back-to-back calls after 0.2 s idle"});
  return m;
}

// `call` enqueues one GEMM of shape `s` on the default stream. Emits throughput/(burst_)t(fl)ops,
// power/w, clock/nvml_sm_mhz and efficiency/t(fl)ops_per_w (gemm_metrics, burst metrics).
inline GemmRate measure_gemm(ProbeContext& ctx, const GemmType& t, Shape s, const std::function<void()>& call) {
  const double ops = 2.0 * double(s.m) * double(s.n) * double(s.k);
  const std::string unit = t.integer ? "tops" : "tflops";
  // Burst: a few calls after a short idle, before the board's power limit pulls the clock down;
  // the sustained rate (the adaptive samples below) is the headline.
  GD_CUDA_CHECK(cudaDeviceSynchronize());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  {
    EventTimer timer;
    timer.start();
    call();
    const double one = timer.stop_ms() * 1e-3;
    const int calls = std::clamp(int(0.02 / one), 3, 50);
    timer.start();
    for (int i = 0; i < calls; ++i) call();
    ctx.metric("throughput/burst_" + unit, ops * calls / (timer.stop_ms() * 1e-3) / 1e12);
    ctx.extra()["burst_calls"] = calls;
  }
  RepeatPolicy policy;
  policy.warmup_s = 0.2;  // clocks settle under tensor load
  policy.min_samples = 5;
  policy.max_samples = 30;
  policy.target_rel_ci = 0.01;
  policy.time_cap_s = ctx.quick() ? 0.5 : 1.0;
  std::string why;
  std::optional<PowerMonitor> monitor;
  if (PowerMonitor::available(ctx.device().pci_bus_id, why)) monitor.emplace(ctx.device().pci_bus_id, 0.01);
  const RepeatResult r = measure_event_timed(ctx, call, [&](double sec) { return ops / sec / 1e12; }, policy);
  ctx.metric("throughput/" + unit, r.summary);
  GemmRate rate{r.summary.median, std::nullopt};
  if (monitor) {
    const PowerTrace trace = monitor->stop();
    const double watts = trace.mean_power_w();
    rate.nvml_mhz = trace.mean_sm_clock_mhz();
    ctx.metric("power/w", watts);
    ctx.metric("clock/nvml_sm_mhz", *rate.nvml_mhz);
    ctx.metric("efficiency/" + unit + "_per_w", per_watt(r.summary.median, watts));
    ctx.extra()["power"] = trace.summary();
  } else {
    ctx.extra()["power"] = why;
  }
  return rate;
}

}  // namespace gd::gemm
