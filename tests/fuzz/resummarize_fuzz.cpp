// libFuzzer target: the probes' analyses, as `gpudissect resummarize` runs them again over a run
// file's measured points. The input picks a registered probe that has an analysis, a device, and
// the points: each carries every axis of the probe with the declared type (what resummarize's
// require_analysable checks before an analysis sees a point) and at least one declared metric,
// but the values are the input's: extreme and non-finite numbers, axis values the probe never
// sweeps, missing and repeated points, skipped and failed points, extras of any type.
//
// The executor turns an exception out of an analysis into a failed derived record, so what is
// found here is a crash, a sanitizer report, or an exception escaping the executor itself.
// The probes' objects come from the gpudissect build (nvcc's, not instrumented): coverage
// guides through the executor and the analysis layer (compiled here), and a fault inside a
// probe's own summarize still stops the run.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>
#include <nlohmann/json.hpp>

#include "core/device.hpp"
#include "core/executor.hpp"
#include "core/probe.hpp"
#include "core/record.hpp"
#include "core/registry.hpp"
#include "fuzz_values.hpp"

namespace {

using nlohmann::json;
using namespace gd_fuzz;

const std::vector<const gd::ProbeSpec*>& analysed_probes() {
  static const std::vector<const gd::ProbeSpec*> all = [] {
    std::vector<const gd::ProbeSpec*> v;
    for (const auto& p : gd::Registry::global().probes())
      if (p.summarize) v.push_back(&p);
    return v;
  }();
  return all;
}

gd::DeviceInfo device(FuzzedDataProvider& in) {
  static const std::pair<int, int> kCc[] = {{8, 0}, {8, 6}, {8, 9}, {9, 0}, {10, 0}, {10, 3}, {12, 0}, {0, 0}};
  static const char* kCode[] = {"sm_80", "sm_90a", "sm_100a", "sm_120a", ""};
  gd::DeviceInfo d;
  d.name = in.ConsumeBool() ? "NVIDIA H200" : edge_string(in);
  const auto cc = in.PickValueInArray(kCc);
  d.cc_major = cc.first;
  d.cc_minor = cc.second;
  const bool real = in.ConsumeBool();  // an H200's figures, or the input's
  d.sm_count = real ? 132 : int(edge_int(in));
  d.max_warps_per_sm = real ? 64 : int(edge_int(in));
  d.max_threads_per_block = real ? 1024 : int(edge_int(in));
  d.regs_per_sm = d.regs_per_block = real ? 65536 : int(edge_int(in));
  d.shared_per_sm = real ? 233472 : edge_int(in);
  d.shared_per_block = 49152;
  d.shared_per_block_optin = real ? 232448 : edge_int(in);
  d.l2_bytes = real ? 62914560 : edge_int(in);
  d.global_mem_bytes = real ? 150754820096LL : edge_int(in);
  d.memory_bus_width_bits = real ? 6144 : int(edge_int(in));
  d.max_sm_clock_mhz = real ? 1980 : edge_double(in);
  d.max_mem_clock_mhz = real ? 3201 : edge_double(in);
  d.theoretical_dram_gbps = real ? 4917.5 : edge_double(in);
  d.gpu_count = in.ConsumeIntegralInRange<int>(0, 8);
  d.arch_code_loaded = in.PickValueInArray(kCode);
  d.features = gd::features_for(d.cc(), d.arch_code_loaded);
  if (in.ConsumeBool()) {
    gd::DeviceInfo::Nvml n;
    n.sm_clock_mhz = edge_double(in);
    n.max_sm_clock_mhz = edge_double(in);
    n.power_w = edge_double(in);
    n.power_limit_w = edge_double(in);
    d.nvml = n;
  }
  return d;
}

gd::ParamValue axis_value(FuzzedDataProvider& in, const gd::Axis& axis) {
  if (axis.values.empty()) return edge_int(in);
  const gd::ParamValue& swept = axis.values[in.ConsumeIntegralInRange<std::size_t>(0, axis.values.size() - 1)];
  if (in.ConsumeIntegralInRange<int>(0, 3)) return swept;
  // A value of the declared type the probe does not sweep (an older build's axis, a hand edit).
  if (std::holds_alternative<std::int64_t>(swept)) return edge_int(in);
  if (std::holds_alternative<double>(swept)) return edge_double(in);
  return edge_string(in);
}

gd::Summary stats(FuzzedDataProvider& in) {
  gd::Summary s;
  s.median = edge_double(in);
  if (in.ConsumeBool()) {
    s.min = s.max = s.mean = s.median;
    s.stddev = 0;
  } else {
    s.min = edge_double(in);
    s.max = edge_double(in);
    s.mean = edge_double(in);
    s.stddev = edge_double(in);
  }
  s.n = in.ConsumeIntegralInRange<std::size_t>(0, 1000);
  return s;
}

gd::Record point(FuzzedDataProvider& in, const gd::ProbeSpec& spec, int& budget, int depth) {
  static const gd::Status kStatus[] = {gd::Status::Ok, gd::Status::Ok, gd::Status::Ok, gd::Status::Ok,
                                       gd::Status::Skipped, gd::Status::Failed};
  static const gd::SassStatus kSass[] = {gd::SassStatus::Verified, gd::SassStatus::Mismatch,
                                         gd::SassStatus::Unverified, gd::SassStatus::NotApplicable};
  gd::Record r;
  r.id = spec.id;
  r.category = spec.category();
  for (const gd::Axis& a : spec.axes) r.params.emplace_back(a.name, axis_value(in, a));
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) r.params.emplace_back(edge_string(in), edge_int(in));
  r.status = in.PickValueInArray(kStatus);
  if (r.status != gd::Status::Ok) r.reason = edge_string(in);
  if (!spec.metrics.empty()) {
    // Every declared metric, or a few of them (at least one: a point without is refused).
    const bool all = in.ConsumeBool();
    for (const auto& m : spec.metrics)
      if (all || in.ConsumeBool()) r.metrics.push_back({m.name, m.unit, stats(in)});
    if (r.metrics.empty()) {
      const auto& m = spec.metrics[in.ConsumeIntegralInRange<std::size_t>(0, spec.metrics.size() - 1)];
      r.metrics.push_back({m.name, m.unit, stats(in)});
    }
  }
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) r.metrics.push_back({edge_string(in), edge_string(in), stats(in)});
  r.sass = {in.PickValueInArray(kSass), edge_string(in)};
  r.sm_clock_mhz = edge_double(in);
  r.sm_clock_source = in.ConsumeBool() ? gd::ClockSource::InKernel : gd::ClockSource::None;
  r.convergence.recorded = in.ConsumeBool();
  r.convergence.converged = in.ConsumeBool();
  r.convergence.n = in.ConsumeIntegralInRange<std::size_t>(0, 100);
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
    static const char* kKeys[] = {"pipe_by_interference", "best_point", "isolated", "contended", "relation",
                                  "variant", "flags", "fit", "reference", "ncu", "throttle"};
    for (int n = in.ConsumeIntegralInRange<int>(1, 3); n > 0; --n)
      r.extra[in.ConsumeBool() ? std::string(in.PickValueInArray(kKeys)) : edge_string(in)] = any_json(in, depth, budget);
  }
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& probes = analysed_probes();
  if (probes.empty()) __builtin_trap();  // the probes' objects were not linked: this target tests nothing
  FuzzedDataProvider in(data, size);
  const gd::ProbeSpec& spec = *probes[in.ConsumeIntegralInRange<std::size_t>(0, probes.size() - 1)];
  const gd::DeviceInfo dev = device(in);
  int budget = 500;
  const int depth = in.ConsumeIntegralInRange<int>(0, 8);
  std::vector<gd::Record> points;
  const int n = in.ConsumeIntegralInRange<int>(0, 96);
  for (int i = 0; i < n && in.remaining_bytes() > 0; ++i) {
    if (!points.empty() && in.ConsumeIntegralInRange<int>(0, 7) == 0)
      points.push_back(points[in.ConsumeIntegralInRange<std::size_t>(0, points.size() - 1)]);  // a point twice
    else
      points.push_back(point(in, spec, budget, depth));
  }
  // As resummarize writes its result: the derived records into the run file.
  for (const gd::Record& r : gd::resummarize(spec, points, dev))
    (void)gd::to_json(r).dump(-1, ' ', false, json::error_handler_t::replace);
  return 0;
}
