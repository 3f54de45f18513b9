// Board power and SM clock as NVML reports them: at idle, against the number of SMs running a
// fixed FFMA load (P = P0 + k * SMs), and the clock's answer to a step of load. Tells a kernel
// author what an idle SM costs and what clock a sustained load really runs at. Observes only.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "analysis/power_model.hpp"
#include "core/device_kernels.hpp"
#include "core/launch.cuh"
#include "core/power_monitor.hpp"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "gemm_runner.hpp"

namespace gd {
namespace probe_power {

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
  load.run_for(ctx.quick() ? 0.1 : 0.2);  // the power settles before the window opens
  PowerMonitor monitor(ctx.device().pci_bus_id, kInterval);
  load.run_for(ctx.quick() ? 0.2 : 0.6);  // quick: a smoke test of the fit, 20 NVML samples a point
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
  out.extra["curve"] = power_curve_text(sms, watts, f);
}

// --- power.clock_response ---------------------------------------------------------------
// A device-to-device stream through the SMs (float4 grid-stride copy): the DRAM load.
__global__ void copy_load_kernel(const float4* in, float4* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}
constexpr std::size_t kCopyBytes = std::size_t(2) << 30;  // about 1 ms each way at 4 TB/s

// One step of a load, about a millisecond: an FFMA launch on every SM, one GEMM through cuBLASLt
// (bf16 or fp8, random or all-zero operands: the data moves the power, the power the clock), or
// a DRAM copy. The in-kernel clock sampler runs after each step.
struct StepLoad {
  std::optional<FfmaLoad> ffma;
  std::optional<gemm::Operands> op;
  std::optional<gemm::GemmCall> gemm_call;
  std::optional<DeviceBuffer<float4>> copy_in, copy_out;
  std::function<void()> step;
  std::string what;
};

void make_load(ProbeContext& ctx, const std::string& name, StepLoad& l) {
  const DeviceInfo& d = ctx.device();
  if (name == "ffma") {
    l.ffma.emplace(ctx, d.sm_count, 0.001);
    l.step = [&l] { l.ffma->launch_once(); };
    l.what = "FFMA chains, 1024 threads on every SM, about 1 ms a launch";
  } else if (name == "dram_copy") {
    const std::size_t n = kCopyBytes / sizeof(float4);
    l.copy_in.emplace(n);
    l.copy_out.emplace(n);
    l.copy_in->fill_zero();
    const unsigned blocks = unsigned(d.sm_count) * 8;
    l.step = [&ctx, &l, n, blocks] {
      launch(ctx, copy_load_kernel, {dim3(blocks), dim3(256)}, l.copy_in->get(), l.copy_out->get(), n);
    };
    l.what = "a 2 GiB device-to-device copy by the SMs (float4 grid-stride), about 1 ms";
  } else {
    const bool zero = name.size() > 5 && name.compare(name.size() - 5, 5, "_zero") == 0;
    const std::string type = name.substr(0, name.find("_gemm"));
    if (name.find("_gemm") == std::string::npos || (type != "bf16" && type != "fp8_e4m3"))
      throw UserError("power.clock_response: unknown load '" + name + "'");
    const gemm::GemmType& t = gemm::gemm_type(type);
    const CublasApi& api = gemm::require_gemm(ctx, t);
    l.op.emplace(t, gemm::Shape{8192, 8192, 8192}, zero);
    l.gemm_call.emplace(api, gemm::Library::Lt, *l.op, 0.1);
    l.step = [&l] { (*l.gemm_call)(); };
    l.what = std::string("cuBLASLt ") + type + " GEMM 8192^3 (wgmma), " + (zero ? "all-zero" : "random") + " operands";
  }
}

// What the clock did by two readers: a one-thread kernel right after each step (clock64 over
// %globaltimer, core/device_kernels SmClockSampler) beside NVML's samples. On the H200 the two
// agree within 1 % under every load here; neither sees the slowdown within the load itself,
// which the FFMA load's own clock shows (clock/load_own_kernel_mhz; tensor.wgmma.* more).
void record_sampled_clock(ProbeContext& ctx, const std::vector<double>& t_s, const std::vector<double>& mhz,
                         double load_start, double load_end, double nvml_loaded_mhz) {
  constexpr double kBand = 0.03;  // the clock_below_application margin
  const ClockResponse k = clock_response(t_s, mhz, load_start, load_end, kBand);
  ctx.metric("clock/sampled_idle_mhz", k.idle_mhz);
  ctx.metric("clock/sampled_loaded_mhz", k.loaded_mhz);
  ctx.metric("clock/sampled_loaded_min_mhz", k.loaded_min_mhz);
  for (std::size_t i = 0; i < t_s.size(); ++i)
    if (t_s[i] >= load_start) {
      ctx.metric("clock/sampled_first_step_mhz", mhz[i]);
      break;
    }
  if (std::isfinite(k.settle_s)) ctx.metric("clock/sampled_settle_ms", k.settle_s * 1e3);
  if (nvml_loaded_mhz > 0) ctx.metric("clock/nvml_over_sampled_pct", 100 * (nvml_loaded_mhz / k.loaded_mhz - 1));
  nlohmann::json series = nlohmann::json::array();
  const std::size_t stride = std::max<std::size_t>(1, t_s.size() / 200);
  for (std::size_t i = 0; i < t_s.size(); i += stride) series.push_back({t_s[i], mhz[i]});
  ctx.extra()["sampled_clock"] = {{"t_mhz", series}, {"band", kBand}, {"samples", t_s.size()}};
}

void run_clock_response(ProbeContext& ctx) {
  require_power(ctx);
  const DeviceInfo& d = ctx.device();
  StepLoad load;
  make_load(ctx, ctx.str_param("load"), load);
  load.step();  // the load's first call (cuBLASLt's heuristic, allocations) before the trace
  GD_CUDA_CHECK(cudaDeviceSynchronize());
  const double before = ctx.quick() ? 0.2 : 0.4, loaded = ctx.quick() ? 0.6 : 1.2, after = ctx.quick() ? 0.2 : 0.4;
  sleep_s(0.3);
  SmClockSampler sampler(1 << 14);
  std::vector<double> kernel_t;  // host time after each sample, seconds since t0
  PowerMonitor monitor(d.pci_bus_id, 0.005);
  const double t0 = monitor.start_s();  // the trace's time base
  const auto sample_now = [&] {
    sampler.sample();
    GD_CUDA_CHECK(cudaDeviceSynchronize());
    kernel_t.push_back(steady_now_s() - t0);
  };
  for (int i = 0; i < 4; ++i) {  // the idle clock, by the same kernel
    sleep_s(before / 4);
    sample_now();
  }
  const double load_start = steady_now_s() - t0;
  std::size_t calls = 0;
  double own_ffma_mhz = 0;
  do {
    load.step();
    ++calls;
    if (sampler.size() < (1 << 14) - 8) sample_now();
    else GD_CUDA_CHECK(cudaDeviceSynchronize());
  } while (steady_now_s() - t0 - load_start < loaded);
  const double load_end = steady_now_s() - t0;
  if (load.ffma) own_ffma_mhz = load.ffma->clock_mhz_last();
  for (int i = 0; i < 4; ++i) {
    sleep_s(after / 4);
    sample_now();
  }
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
  record_sampled_clock(ctx, kernel_t, sampler.read_mhz(), load_start, load_end, cr.loaded_mhz);
  // The FFMA load's own regions' clock over its last launch, the clock within the load: on the
  // H200 1948 MHz where the sampler right after each step read 1980.
  if (own_ffma_mhz > 0) {
    ctx.metric("clock/load_own_kernel_mhz", own_ffma_mhz);
    ctx.set_observed_sm_clock_mhz(own_ffma_mhz);
  } else {
    ctx.no_sm_clock("the load's kernels read no clock of ours (cuBLASLt's GEMM, the copy); clock/sampled_loaded_mhz "
                    "is the clock right after each step, an upper bound on theirs");
  }
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
  ctx.extra()["load"] = load.what;
  if (load.gemm_call) ctx.extra()["algorithm"] = load.gemm_call->choice();
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
  // Quick: three points still give the line and its r^2 (each point is 0.5 s of load).
  s.axes = {std::move(Axis::list("sm_eighths", {1, 2, 3, 4, 5, 6, 7, 8})).quick({2, 5, 8})};
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
              // The curve's points and the line through them, as the fit record's text.
              {"power.vs_active_sms", "extra.curve", {{"sm_eighths", "fit"}}}};
  s.run = run_sm_scaling;
  s.summarize = summarize_sm_scaling;
  s.time_cap_s = 15;
  s.quick_time_cap_s = 5;
  return s;
}

// The tensor cores' extra power: the bf16 GEMM load's power over the FFMA load's, both on every
// SM. The GEMM also streams its operands through L2 and DRAM, and it runs at the power cap
// (a lower clock): the difference is what saturating the tensor pipe costs on this board, not
// the tensor cores' power alone.
void summarize_clock_response(SummaryContext& sc) {
  const Record* tc = nullptr;
  const Record* ffma = nullptr;
  for (const Record* r : sc.ok_records()) {
    const ParamValue* load = find_param(r->params, "load");
    if (!load || !r->metric("power/loaded_w")) continue;
    if (to_string(*load) == "bf16_gemm") tc = r;
    if (to_string(*load) == "ffma") ffma = r;
  }
  if (!tc || !ffma) return;
  Record& out = sc.derive({{"load", std::string("tc_over_ffma")}}, {tc, ffma});
  const double extra = tc->metric("power/loaded_w")->value() - ffma->metric("power/loaded_w")->value();
  sc.add_metric(out, "power/tc_extra_w", single_value(extra));
  out.extra["method"] = "bf16 GEMM (cuBLASLt, random operands) minus FFMA chains, both loading every SM; the GEMM "
                        "also moves its operands through L2 and DRAM and runs at the power cap";
}

ProbeSpec clock_response_spec() {
  ProbeSpec s;
  s.id = "power.clock_response";
  s.description = "SM clock (in-kernel and NVML's) and power before, during and after a step of load: FFMA on every SM, "
                  "bf16 and fp8 GEMMs with random and zero operands, a DRAM copy";
  // Quick: the bf16 GEMM step only, the load its seed items read (each point idles, loads and idles again).
  s.axes = {std::move(Axis::list("load", std::vector<std::string>{"ffma", "bf16_gemm", "bf16_gemm_zero", "fp8_e4m3_gemm",
                                                                  "fp8_e4m3_gemm_zero", "dram_copy"}))
                .quick_list({std::string("bf16_gemm")})};
  s.sass = load_sass();
  s.sass.push_back(expect_sass("*copy_load_kernel*", SassRegion::Whole, {{"LDG.E.128", 1, -1}, {"STG.E.128", 1, -1}}));
  s.runs_no_sm_kernel = true;  // the GEMM points run cuBLASLt's kernels only
  s.metrics = {{"clock/idle_mhz", "MHz", "median NVML SM clock before the load"},
               {"clock/loaded_mhz", "MHz", "median NVML SM clock under the load"},
               {"clock/loaded_min_mhz", "MHz", "lowest NVML SM clock under the load"},
               {"clock/after_mhz", "MHz", "median NVML SM clock after the load"},
               {"clock/settle_ms", "ms", "from the load's start until NVML's clock stays within 5% of its loaded median"},
               {"clock/sampled_idle_mhz", "MHz", "SM clock by a one-thread kernel (clock64 over %globaltimer) before the load"},
               {"clock/sampled_loaded_mhz", "MHz", "the same right after each step of the load, median: the controller's clock under the load"},
               {"clock/sampled_loaded_min_mhz", "MHz", "lowest such sample under the load"},
               {"clock/sampled_first_step_mhz", "MHz", "the sample after the load's first step (about 1 ms in)"},
               {"clock/sampled_settle_ms", "ms", "from the load's start until the sampled clock stays within 3% of its loaded median"},
               {"clock/nvml_over_sampled_pct", "%", "NVML's loaded clock over the sampled one, minus 1"},
               {"clock/load_own_kernel_mhz", "MHz", "the FFMA load's own timed regions' clock over its last launch: the clock within the load"},
               {"power/loaded_w", "W", "NVML power samples under the load"}};
  s.metrics.push_back({"power/tc_extra_w", "W",
                       "power under the bf16 GEMM load (tensor cores saturated) minus power under the FFMA load on every SM"});
  s.covers = {{"platform.clock.sm_sustained", "clock/sampled_loaded_mhz", {{"load", "bf16_gemm"}}},
              {"power.peak_measured", "power/loaded_w", {{"load", "bf16_gemm"}}},
              {"power.tc_extra", "power/tc_extra_w", {{"load", "tc_over_ffma"}}}};
  s.run = run_clock_response;
  s.summarize = summarize_clock_response;
  s.time_cap_s = 24;
  s.quick_time_cap_s = 5;
  return s;
}

GD_REGISTER_PROBE(idle_spec());
GD_REGISTER_PROBE(sm_scaling_spec());
GD_REGISTER_PROBE(clock_response_spec());

}  // namespace probe_power
}  // namespace gd
