// Board power and SM clock as NVML reports them: at idle, against the number of SMs running a
// fixed FFMA load (P = P0 + k * SMs), and the clock's answer to a step of load. Tells a kernel
// author what an idle SM costs and what clock a sustained load really runs at. Observes only.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "analysis/power_model.hpp"
#include "core/launch.cuh"
#include "core/power_monitor.hpp"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "gemm_runner.hpp"

namespace gd {
namespace {

constexpr int kLoadThreads = 1024;
constexpr int kChains = 8, kUnroll = 4;  // FFMA per thread per trip: kChains * kUnroll
constexpr int kFfmaPerTrip = kChains * kUnroll;

// Every thread of a block runs independent FFMA chains: a full-rate FP32 load on the block's SM.
// The dynamic shared memory only reserves the SM (one block per SM), so `grid` SMs are busy.
__global__ void power_load_kernel(float* out, float a, float b, int trips, RegionTiming* timing) {
  float x[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k) x[k] = float(threadIdx.x + k) * 1e-3f;
  BlockClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < trips; ++i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int k = 0; k < kChains; ++k) x[k] = fmaf(x[k], a, b);
    }
  }
  clock.end(timing);
  float sum = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k) sum += x[k];
  if (sum == b) out[blockIdx.x] = sum;  // keeps the chains live; never true for these inputs
}

// Launches the load on `sms` SMs, each launch about `launch_s` long at the chip's top clock.
class FfmaLoad {
 public:
  FfmaLoad(ProbeContext& ctx, int sms, double launch_s) : ctx_(ctx), sms_(sms), out_(sms), timing_(sms) {
    const DeviceInfo& d = ctx.device();
    // More than half an SM's shared memory: no second block fits beside the first.
    const std::size_t half = std::size_t(d.shared_per_sm) / 2;
    shared_ = std::min<std::size_t>(std::size_t(d.shared_per_block_optin), half + 1024);
    if (shared_ <= half) throw Error("power load: cannot reserve more than half an SM's shared memory");
    GD_CUDA_CHECK(cudaFuncSetAttribute(power_load_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_)));
    // 32 warps issue kFfmaPerTrip FFMA each per trip at 4 warp instructions per clock per SM.
    const double cycles_per_trip = double(kLoadThreads / 32) * kFfmaPerTrip / 4.0;
    trips_ = std::max(1, int(launch_s * d.max_sm_clock_mhz * 1e6 / cycles_per_trip));
  }
  void launch_once() {
    launch(ctx_, power_load_kernel, LaunchShape{dim3(unsigned(sms_)), dim3(kLoadThreads), shared_}, out_.get(), 0.999f,
           1e-3f, trips_, timing_.get());
  }
  // Runs launches back to back for `seconds`, synchronising after each.
  void run_for(double seconds) {
    const double t0 = steady_now_s();
    do {
      launch_once();
      GD_CUDA_CHECK(cudaDeviceSynchronize());
    } while (steady_now_s() - t0 < seconds);
  }
  double clock_mhz_last() const {
    const std::vector<RegionTiming> t = timing_.to_host();
    return gd::clock_mhz(t);
  }

 private:
  ProbeContext& ctx_;
  int sms_;
  std::size_t shared_ = 0;
  int trips_ = 1;
  DeviceBuffer<float> out_;
  DeviceBuffer<RegionTiming> timing_;
};

constexpr double kInterval = 0.01;

void require_power(ProbeContext& ctx) {
  std::string why;
  if (!PowerMonitor::available(ctx.device().pci_bus_id, why)) ctx.skip(why);
}

void record_trace(ProbeContext& ctx, const PowerTrace& trace) {
  ctx.metric("power/w", trace.mean_power_w());
  ctx.metric("clock/nvml_sm_mhz", trace.mean_sm_clock_mhz());
  ctx.extra()["power"] = trace.summary();
}

void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

// --- power.idle -------------------------------------------------------------------------
void run_idle(ProbeContext& ctx) {
  require_power(ctx);
  GD_CUDA_CHECK(cudaDeviceSynchronize());
  sleep_s(ctx.quick() ? 0.2 : 0.5);  // let the last probe's load drain
  PowerMonitor monitor(ctx.device().pci_bus_id, kInterval);
  sleep_s(ctx.quick() ? 0.4 : 1.0);
  const PowerTrace trace = monitor.stop();
  record_trace(ctx, trace);
  ctx.metric("temperature/c", trace.temperature_c.empty() ? 0.0 : trace.temperature_c.back());
  ctx.no_sm_clock("idle: no kernel runs; NVML's SM clock is clock/nvml_sm_mhz");
}

// --- power.sm_scaling -------------------------------------------------------------------
void run_sm_scaling(ProbeContext& ctx) {
  require_power(ctx);
  const int eighths = int(ctx.int_param("sm_eighths"));
  const int sms = std::max(1, int(std::lround(ctx.device().sm_count * eighths / 8.0)));
  FfmaLoad load(ctx, sms, 0.005);
  load.run_for(0.2);  // the power settles before the window opens
  PowerMonitor monitor(ctx.device().pci_bus_id, kInterval);
  load.run_for(ctx.quick() ? 0.3 : 0.6);
  const PowerTrace trace = monitor.stop();
  record_trace(ctx, trace);
  ctx.metric("sms/active", double(sms));
  ctx.set_observed_sm_clock_mhz(load.clock_mhz_last());
  ctx.extra()["load"] = "FFMA chains, 1024 threads on each active SM (one block per SM)";
}

void summarize_sm_scaling(SummaryContext& sc) {
  std::vector<double> sms, watts;
  std::vector<const Record*> src;
  for (const Record* r : sc.ok_records())
    if (r->metric("sms/active") && r->metric("power/w")) {
      sms.push_back(r->metric("sms/active")->value());
      watts.push_back(r->metric("power/w")->value());
      src.push_back(r);
    }
  if (src.size() < 3) return;
  const PowerFit f = fit_power_vs_sms(sms, watts);
  Record& out = sc.derive({{"sm_eighths", std::string("fit")}}, src);
  sc.add_metric(out, "power/p0_w", single_value(f.p0_w));
  sc.add_metric(out, "power/w_per_sm", single_value(f.w_per_sm));
  sc.add_metric(out, "fit/r2", single_value(f.r2));
  sc.add_metric(out, "power/static_share_pct", single_value(100 * f.static_share));
  out.extra["model"] = "P = P0 + k * active SMs, least squares over the points";
}

// --- power.clock_response ---------------------------------------------------------------
void run_clock_response(ProbeContext& ctx) {
  require_power(ctx);
  const std::string load_name = ctx.str_param("load");
  const DeviceInfo& d = ctx.device();
  std::optional<FfmaLoad> ffma;
  std::optional<gemm::Operands> op;
  std::optional<gemm::GemmCall> gemm_call;
  if (load_name == "ffma") {
    ffma.emplace(ctx, d.sm_count, 0.002);
  } else {
    const gemm::GemmType& bf16 = gemm::gemm_type("bf16");
    const CublasApi& api = gemm::require_gemm(ctx, bf16);
    op.emplace(bf16, gemm::Shape{8192, 8192, 8192}, false);
    gemm_call.emplace(api, gemm::Library::Lt, *op, 0.1);
  }
  const auto step = [&] {
    if (ffma) ffma->launch_once();
    else (*gemm_call)();
    GD_CUDA_CHECK(cudaDeviceSynchronize());
  };
  GD_CUDA_CHECK(cudaDeviceSynchronize());
  const double before = ctx.quick() ? 0.2 : 0.4, loaded = ctx.quick() ? 0.6 : 1.5, after = ctx.quick() ? 0.2 : 0.4;
  sleep_s(0.3);
  PowerMonitor monitor(d.pci_bus_id, 0.005);
  const double t0 = monitor.start_s();  // the trace's time base
  sleep_s(before);
  const double load_start = steady_now_s() - t0;
  std::size_t calls = 0;
  do {
    step();
    ++calls;
  } while (steady_now_s() - t0 - load_start < loaded);
  const double load_end = steady_now_s() - t0;
  sleep_s(after);
  const PowerTrace trace = monitor.stop();
  constexpr double kBand = 0.05;  // a power-capped clock hunts by a few percent
  const ClockResponse cr = clock_response(trace.t_s, trace.sm_clock_mhz, load_start, load_end, kBand);
  ctx.metric("clock/idle_mhz", cr.idle_mhz);
  ctx.metric("clock/loaded_mhz", cr.loaded_mhz);
  ctx.metric("clock/loaded_min_mhz", cr.loaded_min_mhz);
  if (std::isfinite(cr.after_mhz)) ctx.metric("clock/after_mhz", cr.after_mhz);
  if (std::isfinite(cr.settle_s)) ctx.metric("clock/settle_ms", cr.settle_s * 1e3);
  else ctx.extra()["settle"] = "the clock had not stayed within 5% of its loaded median by the end of the load";
  std::vector<double> loaded_w;
  for (std::size_t i = 0; i < trace.t_s.size(); ++i)
    if (trace.t_s[i] >= load_start && trace.t_s[i] <= load_end) loaded_w.push_back(trace.power_w[i]);
  if (!loaded_w.empty()) ctx.metric("power/loaded_w", summarize(loaded_w));
  if (ffma) ctx.set_observed_sm_clock_mhz(ffma->clock_mhz_last());
  else ctx.no_sm_clock("the load is cuBLASLt's GEMM, which reads no clock of ours; NVML's is clock/loaded_mhz");
  nlohmann::json s = trace.summary();
  s["load_window_s"] = {load_start, load_end};
  s["calls"] = calls;
  // The trace itself, thinned to at most 200 points, for the report.
  nlohmann::json series = nlohmann::json::array();
  const std::size_t stride = std::max<std::size_t>(1, trace.t_s.size() / 200);
  for (std::size_t i = 0; i < trace.t_s.size(); i += stride)
    series.push_back({trace.t_s[i], trace.sm_clock_mhz[i], trace.power_w[i]});
  s["t_mhz_w"] = series;
  ctx.extra()["power"] = s;
  if (gemm_call) ctx.extra()["algorithm"] = gemm_call->choice();
}

std::vector<SassExpectation> load_sass() {
  return {expect_sass("*power_load_kernel*", SassRegion::Clocked, {{"FFMA", kFfmaPerTrip, -1}})};
}

std::vector<MetricSpec> trace_metrics() {
  return {{"power/w", "W", "mean of NVML power samples over the window (energy counter figure in extra.power)"},
          {"clock/nvml_sm_mhz", "MHz", "mean SM clock NVML reported over the window"}};
}

ProbeSpec idle_spec() {
  ProbeSpec s;
  s.id = "power.idle";
  s.description = "board power, SM clock and temperature with no work queued (NVML, observed only)";
  s.metrics = trace_metrics();
  s.metrics.push_back({"temperature/c", "C", "GPU temperature at the end of the window"});
  s.runs_no_sm_kernel = true;
  s.run = run_idle;
  s.time_cap_s = 5;
  s.quick_time_cap_s = 2;
  return s;
}

ProbeSpec sm_scaling_spec() {
  ProbeSpec s;
  s.id = "power.sm_scaling";
  s.description = "board power versus SMs running a fixed FFMA load; fit P = P0 + k * SMs";
  s.axes = {std::move(Axis::list("sm_eighths", {1, 2, 3, 4, 5, 6, 7, 8})).quick({2, 4, 6, 8})};
  s.sass = load_sass();
  s.metrics = trace_metrics();
  s.metrics.insert(s.metrics.end(), {{"sms/active", "SMs", "SMs running the load"},
                                     {"power/p0_w", "W", "fitted power at no active SM"},
                                     {"power/w_per_sm", "W/SM", "fitted power per active SM"},
                                     {"fit/r2", "", "R^2 of the line"},
                                     {"power/static_share_pct", "%", "P0 over the fitted power with every SM busy"}});
  s.views = {line_view("sm_eighths", "power/w")};
  s.covers = {{"power.model.static", "power/p0_w", {{"sm_eighths", "fit"}}},
              {"power.model.per_sm", "power/w_per_sm", {{"sm_eighths", "fit"}}},
              {"power.model.static_share", "power/static_share_pct", {{"sm_eighths", "fit"}}},
              // A curve with no derived record of its own (the fit gives P0 and W/SM): the full
              // chip's point selects one record, and coverage counts the item open.
              {"power.vs_active_sms", "power/w", {{"sm_eighths", std::int64_t(8)}}}};
  s.run = run_sm_scaling;
  s.summarize = summarize_sm_scaling;
  s.time_cap_s = 15;
  s.quick_time_cap_s = 5;
  return s;
}

ProbeSpec clock_response_spec() {
  ProbeSpec s;
  s.id = "power.clock_response";
  s.description = "SM clock and power before, during and after a step of load (FFMA on every SM, bf16 GEMM)";
  // Quick: the GEMM step only, the load its seed items read (each point idles, loads and idles again).
  s.axes = {std::move(Axis::list("load", std::vector<std::string>{"ffma", "bf16_gemm"})).quick_list({std::string("bf16_gemm")})};
  s.sass = load_sass();
  s.runs_no_sm_kernel = true;  // the bf16_gemm point runs cuBLASLt's kernels only
  s.metrics = {{"clock/idle_mhz", "MHz", "median NVML SM clock before the load"},
               {"clock/loaded_mhz", "MHz", "median NVML SM clock under the load"},
               {"clock/loaded_min_mhz", "MHz", "lowest NVML SM clock under the load"},
               {"clock/after_mhz", "MHz", "median NVML SM clock after the load"},
               {"clock/settle_ms", "ms", "from the load's start until the clock stays within 5% of its loaded median"},
               {"power/loaded_w", "W", "NVML power samples under the load"}};
  s.covers = {{"platform.clock.sm_sustained", "clock/loaded_mhz", {{"load", "bf16_gemm"}}},
              {"power.peak_measured", "power/loaded_w", {{"load", "bf16_gemm"}}}};
  s.run = run_clock_response;
  s.time_cap_s = 12;
  s.quick_time_cap_s = 5;
  return s;
}

GD_REGISTER_PROBE(idle_spec());
GD_REGISTER_PROBE(sm_scaling_spec());
GD_REGISTER_PROBE(clock_response_spec());

}  // namespace
}  // namespace gd
