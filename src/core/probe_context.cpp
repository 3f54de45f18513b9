#include <algorithm>

#include <cuda_runtime_api.h>

#include "core/error.hpp"
#include "core/ncu.hpp"
#include "core/probe.hpp"
#include "core/clock_check.hpp"
#include "core/timing.hpp"

namespace gd {

namespace {

const ParamValue& require_param(const Params& params, const std::string& probe, const std::string& name) {
  const ParamValue* v = find_param(params, name);
  if (!v) throw Error("probe " + probe + ": no parameter '" + name + "' at this sweep point");
  return *v;
}
}  // namespace

ProbeContext::ProbeContext(const ProbeSpec& spec, Params params, const DeviceInfo& device, bool quick,
                           double time_budget_s, SamplingOverride sampling)
    : spec_(spec), params_(std::move(params)), device_(device), quick_(quick),
      budget_s_(time_budget_s), sampling_(sampling), start_s_(steady_now_s()) {
  if (ncu::tagging() || ncu::have_counters()) ncu_tag_ = ncu::point_tag(spec_.id, params_);
}

std::int64_t ProbeContext::int_param(const std::string& name) const {
  const ParamValue& v = require_param(params_, spec_.id, name);
  if (auto i = std::get_if<std::int64_t>(&v)) return *i;
  throw Error("probe " + spec_.id + ": parameter '" + name + "' is not an integer");
}

double ProbeContext::real_param(const std::string& name) const {
  const ParamValue& v = require_param(params_, spec_.id, name);
  if (auto d = std::get_if<double>(&v)) return *d;
  if (auto i = std::get_if<std::int64_t>(&v)) return double(*i);
  throw Error("probe " + spec_.id + ": parameter '" + name + "' is not a number");
}

std::string ProbeContext::str_param(const std::string& name) const {
  const ParamValue& v = require_param(params_, spec_.id, name);
  if (auto s = std::get_if<std::string>(&v)) return *s;
  throw Error("probe " + spec_.id + ": parameter '" + name + "' is not a string");
}

RepeatResult ProbeContext::measure(const std::function<double()>& sample, RepeatPolicy policy) {
  if (quick_) policy.min_samples = std::min(policy.min_samples, 3);
  policy = apply(sampling_, policy);
  const double left = budget_s_ - (steady_now_s() - start_s_);
  policy.time_cap_s = std::max(0.0, std::min(policy.time_cap_s, left));
  RepeatResult r = repeat_until_stable(sample, policy);
  convergence_.push_back({true, r.converged, r.stop_reason, r.samples.size(), 1});
  return r;
}

void ProbeContext::launched(const void* kernel) {
  if (std::find(named_stubs_.begin(), named_stubs_.end(), kernel) != named_stubs_.end()) return;
  const char* name = nullptr;
  GD_CUDA_CHECK(cudaFuncGetName(&name, kernel));
  if (!name || !*name) throw Error("the CUDA runtime returned no name for a kernel this point launched");
  launched_by_name(name);
  named_stubs_.push_back(kernel);
}

void ProbeContext::launched_by_name(const std::string& mangled_name) {
  if (std::find(kernels_.begin(), kernels_.end(), mangled_name) == kernels_.end()) kernels_.push_back(mangled_name);
}

const MetricSpec& ProbeContext::declared(const std::string& name) const {
  for (const auto& m : spec_.metrics)
    if (m.name == name) return m;
  throw Error("probe " + spec_.id + " emitted undeclared metric '" + name + "'");
}

void ProbeContext::metric(const std::string& name, const Summary& stats) {
  const MetricSpec& spec = declared(name);
  metrics_.push_back(Metric{spec.name, spec.unit, stats});
}

void ProbeContext::metric(const std::string& name, double value) { metric(name, single_value(value)); }

void ProbeContext::skip(const std::string& reason) { throw SkipProbe(reason); }

void ProbeContext::set_observed_sm_clock_mhz(double mhz, std::string how) {
  if (!(mhz > 0)) throw Error("probe " + spec_.id + ": observed SM clock must be positive, got " + std::to_string(mhz));
  observed_mhz_ = mhz;
  clock_detail_ = std::move(how);
}

void ProbeContext::no_sm_clock(std::string why) {
  observed_mhz_ = 0;
  clock_detail_ = std::move(why);
}

double ProbeContext::observed_sm_clock_mhz() const {
  if (observed_mhz_ <= 0)
    throw Error("probe " + spec_.id + ": no SM clock was observed during this point's timed work" +
                (clock_detail_.empty() ? "" : " (" + clock_detail_ + ")"));
  return observed_mhz_;
}

void ProbeContext::attach_ncu_counters(Record& r) const {
  if (const ncu::PointCounters* c = ncu::counters_for(ncu_tag_)) {
    r.extra["ncu"] = ncu::to_json(*c);
    r.extra["ncu_launches"] = ncu::launches_json(*c);
  } else {
    r.extra["ncu"] = nullptr;
    r.extra["ncu_note"] = kernels_.empty() ? "the point launched no kernel of ours"
                                           : "ncu profiled no launch of this point (launched outside core/launch.cuh?)";
  }
}

void ProbeContext::fill(Record& r) const {
  r.metrics = metrics_;
  r.extra = extra_;
  if (ncu::have_counters()) attach_ncu_counters(r);
  r.kernels = kernels_;
  r.convergence = combine(convergence_);
  r.sm_clock_mhz = observed_mhz_;
  r.sm_clock_source = observed_mhz_ > 0 ? ClockSource::InKernel : ClockSource::None;
  r.sm_clock_detail = !clock_detail_.empty() ? clock_detail_
                      : observed_mhz_ > 0  ? "clock64 cycles over %globaltimer ns in the timed kernels"
                                           : "the probe took no in-run SM clock reading";
}

Record& SummaryContext::derive(Params params, const std::vector<const Record*>& sources) {
  Record r;
  r.id = spec_.id;
  r.category = spec_.category();
  r.params = std::move(params);
  r.derived = true;
  std::vector<SassCheck> checks;
  std::vector<Convergence> conv;
  std::vector<double> mhz;
  for (const Record* s : sources) {
    checks.push_back(s->sass);
    conv.push_back(s->convergence);
    if (s->sm_clock_mhz > 0) mhz.push_back(s->sm_clock_mhz);
    for (const auto& k : s->kernels)
      if (std::find(r.kernels.begin(), r.kernels.end(), k) == r.kernels.end()) r.kernels.push_back(k);
  }
  r.sass = combine(checks);
  r.convergence = combine(conv);
  if (!mhz.empty()) {
    r.sm_clock_mhz = summarize(mhz).median;
    r.sm_clock_source = ClockSource::FromPoints;
    r.sm_clock_detail = "median of the in-run clocks of " + std::to_string(mhz.size()) + " source point(s)";
  } else {
    r.sm_clock_detail = "its source points have no in-run SM clock";
  }
  r.extra["derived_from_points"] = sources.size();
  inherit_flags(r, sources);
  derived_.push_back(std::move(r));
  return derived_.back();
}

Record* SummaryContext::derive_best(Params params, const std::vector<const Record*>& candidates,
                                    const std::string& metric, bool highest) {
  const Record* best = nullptr;
  for (const Record* c : candidates) {
    const Metric* m = c->metric(metric);
    if (!m) continue;
    const double v = m->value(), b = best ? best->metric(metric)->value() : 0;
    if (!best || (highest ? v > b : v < b)) best = c;
  }
  if (!best) return nullptr;
  Record& r = derive(std::move(params), {best});
  for (const Metric& m : best->metrics) add_metric(r, m.name, m.stats);
  r.extra["best_point"] = to_json(best->params);
  return &r;
}

std::vector<const Record*> SummaryContext::ok_records(const Params& where) const {
  std::vector<const Record*> out;
  for (const Record& r : records_) {
    if (r.status != Status::Ok || r.derived) continue;
    const bool all = std::all_of(where.begin(), where.end(), [&](const auto& kv) {
      const ParamValue* v = find_param(r.params, kv.first);
      return v && *v == kv.second;
    });
    if (all) out.push_back(&r);
  }
  return out;
}

void SummaryContext::add_metric(Record& r, const std::string& name, const Summary& stats) const {
  for (const auto& m : spec_.metrics)
    if (m.name == name) {
      r.metrics.push_back(Metric{m.name, m.unit, stats});
      return;
    }
  throw Error("probe " + spec_.id + " derived undeclared metric '" + name + "'");
}

}  // namespace gd
