// How a GEMM-ceiling point times its GEMM, as two figures with fixed definitions, each with the
// board power and SM clock NVML saw over its window:
//   first_calls: what a framework benchmark reports (PyTorch's mean of N back-to-back products
//     after K warm-ups): after a rest, 3 warm-up calls, then the mean rate of 10 calls timed by
//     one pair of CUDA events; groups repeated through the point's adaptive repetition, median.
//   steady: the rate under continuous load once the clock has settled (at least 1 s of load and
//     until the in-run rate stops changing, analysis/power_model's settled_at), sampled over 1 s.
// A power-capped chip sits between the two: an H200 runs bf16 8192^3 about 15 % faster in its
// first calls than after a second of load. scripts/gemm_torch.py times PyTorch the same way.
// The library's kernels read no clock of ours. Each figure records the SM clock right after each
// timed group or chunk (clock64 over %globaltimer in a one-thread kernel: core/device_kernels
// SmClockSampler): the controller's clock, which NVML reads too and which an H200's sustained
// GEMM settles to (1426 MHz by both on 2026-12-02). Within heavy tensor work the SMs tick slower
// still, as only a clock inside the work sees (tensor.wgmma.*: 1633 MHz where NVML read 1980;
// power.clock_response's FFMA load: its own 1948 against 1980 right after), so this clock is an
// upper bound on the one the kernels ran at and each figure's % of peak at it a lower bound.
// Shared by the GEMM-ceiling probes (gemm_cublas.cu, gemm_cutlass.cu).
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "analysis/power_model.hpp"
#include "analysis/tensor_rate.hpp"
#include "core/device_buffer.hpp"
#include "core/device_kernels.hpp"
#include "core/error.hpp"
#include "core/power_monitor.hpp"
#include "core/probe.hpp"
#include "core/timing.hpp"
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
// (FP32: the CUDA cores' FFMA rate) at the clock it ran at; nullopt where the precision or chip
// has no published rate. Throws
// std::invalid_argument on a non-positive clock or SM count, or a negative or non-finite rate.
// FP32 (no tensor-core path) is held against the CUDA cores' FFMA rate (core_fp32_rate).
inline std::optional<TensorRate> gemm_peak_rate(const std::string& gemm_type, int cc) {
  const auto operand = tensor_operand(gemm_type);
  return operand ? tensor_rate(cc, *operand) : core_fp32_rate(cc);
}
inline std::optional<TensorEfficiency> gemm_efficiency(const std::string& gemm_type, int cc, int sm_count,
                                                       double clock_mhz, double rate_tflops) {
  const auto peak = gemm_peak_rate(gemm_type, cc);
  if (!peak) return std::nullopt;
  if (!(clock_mhz > 0) || sm_count < 1)
    throw std::invalid_argument("gemm_efficiency: clock and SM count must be positive");
  return tensor_efficiency(rate_tflops * 1e12 / (double(sm_count) * clock_mhz * 1e6), peak->flops_per_clk_per_sm,
                           sm_count, clock_mhz);
}

// The timing protocol. scripts/gemm_torch.py holds the same numbers; tests/fixtures/
// gemm_protocol.json states them once and both sides' tests compare against it.
struct GemmProtocol {
  int warmup_calls = 3;   // untimed, before each first_calls group
  int timed_calls = 10;   // timed as one per group
  // Idle before each group, so that every group starts from a rested clock and the median does
  // not depend on how many groups the repetition takes (back to back, later groups would run on
  // the clock's way down).
  double rest_s = 0.1;
  int min_groups = 5, max_groups = 10;
  SettleRule settle;        // steady: when the rate has stopped changing (at least 1 s of load)
  double max_load_s = 4.0;  // steady: sample anyway after this much load, recording that it never settled
  double chunk_s = 0.02;    // steady: calls per timed chunk, about this long (at least one call)
  double steady_s = 1.0;    // steady: sampled for at least this long after settling
};
inline constexpr GemmProtocol kProtocol{};

// The settle rule for a GEMM of `call_s` seconds per call: each window holds at least
// min_chunks chunks of at least one call, so a slow GEMM widens the windows.
inline SettleRule settle_rule_for(double call_s, const GemmProtocol& p = kProtocol) {
  SettleRule r = p.settle;
  const double chunk = std::max(p.chunk_s, call_s);
  r.window_s = std::max(r.window_s, double(r.min_chunks) * chunk);
  return r;
}

// Calls per steady chunk: about chunk_s of work, at least one call.
inline int chunk_calls(double call_s, const GemmProtocol& p = kProtocol) {
  if (!(call_s > 0)) throw std::invalid_argument("chunk_calls: a call must take positive time");
  return std::max(1, int(std::lround(p.chunk_s / call_s)));
}

// One figure's rate with what NVML saw over its window.
struct GemmWindow {
  Summary rate;                    // TFLOPS (TOPS for integers)
  std::optional<PowerTrace> trace;  // NVML over the window, where NVML reads power
  std::vector<double> after_clock_mhz;  // SM clock right after each timed group or chunk
};

struct FirstCalls {
  GemmWindow window;  // the trace holds only the samples taken inside the groups
  // Each group's rate in order: a trend across them would say the rest is too short for the
  // groups to start from the same clock.
  std::vector<double> group_rates;
};

struct Steady {
  GemmWindow window;
  double settle_s = 0;  // load before the samples; NaN: the rate had not settled by max_load_s
  int chunk_calls = 1;
  SettleRule rule;
  std::vector<double> load_s, load_rate;  // the settling chunks: end time since load start, rate
};

// Starts NVML sampling into `m` where NVML reads this GPU's power (measure_gemm records why not).
inline void start_monitor(const ProbeContext& ctx, std::optional<PowerMonitor>& m) {
  std::string why;
  if (PowerMonitor::available(ctx.device().pci_bus_id, why)) m.emplace(ctx.device().pci_bus_id, 0.005);
}

// first_calls: `call` enqueues one GEMM of `ops` operations on the default stream.
inline FirstCalls measure_first_calls(ProbeContext& ctx, double ops, const std::function<void()>& call,
                                      const GemmProtocol& p = kProtocol) {
  // Each group's host time span, so that the power figure leaves out the rests.
  std::vector<std::pair<double, double>> groups;
  EventTimer timer;
  GD_CUDA_CHECK(cudaDeviceSynchronize());
  std::optional<PowerMonitor> mon;
  start_monitor(ctx, mon);
  const double t0 = mon ? mon->start_s() : steady_now_s();
  RepeatPolicy policy;
  policy.warmup = 0;  // each group warms itself up
  policy.min_samples = p.min_groups;
  policy.max_samples = p.max_groups;
  policy.target_rel_ci = 0.01;
  policy.time_cap_s = p.max_groups * (p.rest_s + 0.5);
  SmClockSampler clock(p.max_groups);
  const RepeatResult r = ctx.measure(
      [&] {
        std::this_thread::sleep_for(std::chrono::duration<double>(p.rest_s));
        const double begin = steady_now_s() - t0;
        for (int i = 0; i < p.warmup_calls; ++i) call();
        timer.start();
        for (int i = 0; i < p.timed_calls; ++i) call();
        const double sec = timer.stop_ms() * 1e-3;
        groups.emplace_back(begin, steady_now_s() - t0);
        clock.sample();  // after the group's span: its 50 us are in no figure
        return ops * p.timed_calls / sec / 1e12;
      },
      policy);
  FirstCalls f;
  f.window.rate = r.summary;
  f.group_rates = r.samples;
  f.window.after_clock_mhz = clock.read_mhz();
  if (mon) f.window.trace = mon->stop().within(groups);
  return f;
}

// steady: `call` (`call_s` seconds each, roughly) back to back in chunks until the rate settles,
// then the chunks' rates over at least steady_s. --single-sample runs skip the settling.
inline Steady measure_steady(ProbeContext& ctx, double ops, double call_s, const std::function<void()>& call,
                             const GemmProtocol& p = kProtocol) {
  Steady st;
  st.chunk_calls = chunk_calls(call_s, p);
  st.rule = settle_rule_for(call_s, p);
  EventTimer timer;
  constexpr int kClockSamples = 4096;  // far more than 1.25 s of chunks of at least 20 ms
  SmClockSampler clock(kClockSamples);
  bool sampling = false;  // the settling chunks are not the figure
  const auto chunk = [&] {
    timer.start();
    for (int i = 0; i < st.chunk_calls; ++i) call();
    const double rate = ops * st.chunk_calls / (timer.stop_ms() * 1e-3) / 1e12;
    if (sampling && clock.size() < kClockSamples) clock.sample();
    return rate;
  };
  const double load0 = steady_now_s();
  st.settle_s = std::nan("");
  while (std::isnan(st.settle_s) && (st.load_s.empty() || st.load_s.back() < p.max_load_s) && !ctx.single_sample()) {
    st.load_rate.push_back(chunk());
    st.load_s.push_back(steady_now_s() - load0);
    st.settle_s = settled_at(st.load_s, st.load_rate, st.rule);
  }
  std::optional<PowerMonitor> mon;
  start_monitor(ctx, mon);
  RepeatPolicy policy;
  policy.warmup = 0;  // the settling above was the warm-up
  policy.min_samples = 10;
  policy.max_samples = 1 << 20;  // the time decides
  policy.min_time_s = p.steady_s;
  policy.time_cap_s = 1.25 * p.steady_s;
  policy.target_rel_ci = 0.005;
  sampling = true;
  st.window.rate = ctx.measure(chunk, policy).summary;
  if (mon) st.window.trace = mon->stop();
  st.window.after_clock_mhz = clock.read_mhz();
  return st;
}

// How the steady figure was taken, for a record's extra: chunks, rule, the settling series
// (thinned to at most 100 points, to see the ramp) and a note where it never settled.
inline nlohmann::json steady_extra(const Steady& st, const GemmProtocol& p = kProtocol) {
  nlohmann::json j = {{"chunk_calls", st.chunk_calls}, {"window_s", st.rule.window_s},
                      {"tolerance", st.rule.tolerance}, {"min_load_s", st.rule.min_load_s},
                      {"sampled_s", p.steady_s}};
  if (!std::isfinite(st.settle_s) && !st.load_s.empty())
    j["settle"] = "the rate had not stopped changing after " + std::to_string(st.load_s.back()) +
                  " s of load; the steady samples follow anyway";
  nlohmann::json series = nlohmann::json::array();
  const std::size_t stride = std::max<std::size_t>(1, st.load_s.size() / 100);
  for (std::size_t i = 0; i < st.load_s.size(); i += stride) series.push_back({st.load_s[i], st.load_rate[i]});
  j["settling_t_rate"] = series;
  return j;
}

// What measure_gemm emits.
inline std::vector<MetricSpec> measure_gemm_metrics() {
  std::vector<MetricSpec> m;
  for (const auto& [unit, what] : {std::pair{"tflops", "floating-point"}, std::pair{"tops", "integer"}}) {
    const std::string u = unit, upper = u == "tflops" ? "TFLOPS" : "TOPS";
    m.push_back({"throughput/first_calls_" + u, upper,
                 std::string(what) + " rate, PyTorch-style: after a 0.1 s rest and 3 warm-up calls, 10 calls timed "
                 "by one event pair, 2MNK each; median over the groups"});
    m.push_back({"throughput/steady_" + u, upper,
                 std::string(what) + " rate under continuous load once it stopped changing (at least 1 s in), "
                 "chunks of back-to-back calls over at least 1 s; median over the chunks"});
    m.push_back({"efficiency/steady_" + u + "_per_w", upper + "/W", "steady rate over the steady window's mean power"});
  }
  for (const std::string fig : {"first_calls", "steady"}) {
    const std::string window = fig == "steady" ? "the steady window"
                                               : "the first_calls groups (NVML refreshes about every 100 ms: coarse "
                                                 "for groups of tens of ms)";
    m.push_back({"power/" + fig + "_w", "W", "mean of the NVML power samples taken during " + window});
    m.push_back({"clock/" + fig + "_nvml_sm_mhz", "MHz", "mean of the NVML SM clock samples taken during " + window});
    m.push_back({"clock/" + fig + "_after_sm_mhz", "MHz",
                 "SM clock right after each " + std::string(fig == "steady" ? "chunk" : "group") +
                     " (clock64 over %globaltimer, a one-thread kernel), median: an upper bound on the clock the "
                     "library's kernels ran at"});
    for (const char* u : {"tflops", "tops"}) {
      const std::string upper = std::string(u) == "tflops" ? "TFLOPS" : "TOPS";
      m.push_back({"throughput/" + fig + "_peak_" + u + "_at_clock", upper,
                   "the dense per-clock tensor rate (analysis/tensor_rate) at clock/" + fig + "_after_sm_mhz, whole chip"});
    }
    m.push_back({"throughput/" + fig + "_percent_of_peak", "%",
                 "the figure's rate over throughput/" + fig + "_peak_*_at_clock: a lower bound on its per-clock efficiency"});
  }
  m.push_back({"load/settle_ms", "ms", "back-to-back load before the steady samples: until the rate stopped changing"});
  return m;
}

// A figure's clock right after its calls, and its rate against the per-clock tensor peak of GEMM
// precision `gemm_type` at that clock ("" or a precision without a published rate: no peak).
inline void emit_figure_clock(ProbeContext& ctx, const std::string& fig, const std::string& unit,
                              const GemmWindow& w, const std::string& gemm_type) {
  if (w.after_clock_mhz.empty()) return;
  const Summary clock = summarize(w.after_clock_mhz);
  ctx.metric("clock/" + fig + "_after_sm_mhz", clock);
  if (gemm_type.empty() || w.rate.n == 0) return;
  const DeviceInfo& d = ctx.device();
  if (const auto e = gemm_efficiency(gemm_type, d.cc(), d.sm_count, clock.median, w.rate.median)) {
    ctx.metric("throughput/" + fig + "_peak_" + unit + "_at_clock", e->peak_tflops_at_clock);
    ctx.metric("throughput/" + fig + "_percent_of_peak", e->percent_of_peak);
    ctx.extra()["peak_source"] = gemm_peak_rate(gemm_type, d.cc())->source;
  }
}

// `call` enqueues one GEMM of `ops` operations on the default stream. Emits the metrics of
// measure_gemm_metrics (`unit`: "tflops" or "tops"; `gemm_type`: the precision whose per-clock
// tensor peak the figures are held against, "" for none) and records each window's NVML
// summary. The record has no SM clock of its kernels: the library's read none.
// --quick leaves the steady figure out (it needs at least 2 s of load a point), saying so; the
// returned Steady then has no samples (rate.n == 0).
inline Steady measure_gemm(ProbeContext& ctx, double ops, const std::string& unit, const std::function<void()>& call,
                           const std::string& gemm_type = "", const GemmProtocol& p = kProtocol) {
  const FirstCalls first = measure_first_calls(ctx, ops, call, p);
  ctx.metric("throughput/first_calls_" + unit, first.window.rate);
  emit_figure_clock(ctx, "first_calls", unit, first.window, gemm_type);
  ctx.no_sm_clock("the timed kernels are the library's, which read no clock of ours; clock/<figure>_after_sm_mhz is "
                  "the clock right after each group or chunk, an upper bound on theirs");
  nlohmann::json& x = ctx.extra();
  x["protocol"]["first_calls"] = {{"rest_s", p.rest_s}, {"warmup_calls", p.warmup_calls},
                                  {"timed_calls", p.timed_calls}, {"group_rates", first.group_rates}};
  Steady steady;
  if (ctx.quick()) {
    x["protocol"]["steady"] = "not measured under --quick (at least 2 s of load a point)";
  } else {
    steady = measure_steady(ctx, ops, ops / (first.window.rate.median * 1e12), call, p);
    ctx.metric("throughput/steady_" + unit, steady.window.rate);
    emit_figure_clock(ctx, "steady", unit, steady.window, gemm_type);
    if (std::isfinite(steady.settle_s)) ctx.metric("load/settle_ms", steady.settle_s * 1e3);
    x["protocol"]["steady"] = steady_extra(steady, p);
  }
  std::string why;
  if (!PowerMonitor::available(ctx.device().pci_bus_id, why)) {
    x["power"] = why;
    return steady;
  }
  using Named = std::pair<const char*, const GemmWindow*>;
  for (const auto& [fig, w] : {Named{"first_calls", &first.window}, Named{"steady", &steady.window}}) {
    if (!w->trace) continue;  // not measured
    x["power"][fig] = w->trace->summary();
    if (w->trace->power_w.empty()) continue;  // no NVML sample fell inside the groups
    ctx.metric("power/" + std::string(fig) + "_w", w->trace->mean_power_w());
    ctx.metric("clock/" + std::string(fig) + "_nvml_sm_mhz", w->trace->mean_sm_clock_mhz());
  }
  if (steady.window.trace && !steady.window.trace->power_w.empty())
    ctx.metric("efficiency/steady_" + unit + "_per_w",
               per_watt(steady.window.rate.median, steady.window.trace->mean_power_w()));
  return steady;
}

// The same for a GEMM of type `t` and shape `s`.
inline Steady measure_gemm(ProbeContext& ctx, const GemmType& t, Shape s, const std::function<void()>& call) {
  const double ops = 2.0 * double(s.m) * double(s.n) * double(s.k);
  return measure_gemm(ctx, ops, t.integer ? "tops" : "tflops", call, t.name);
}

}  // namespace gd::gemm
