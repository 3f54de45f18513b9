#include <algorithm>
#include <chrono>

#include "core/device_kernels.hpp"
#include "core/error.hpp"
#include "core/probe.hpp"

namespace gd {

namespace {
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

const ParamValue& require_param(const Params& params, const std::string& probe, const std::string& name) {
  const ParamValue* v = find_param(params, name);
  if (!v) throw Error("probe " + probe + ": no parameter '" + name + "' at this sweep point");
  return *v;
}
}  // namespace

ProbeContext::ProbeContext(const ProbeSpec& spec, Params params, const DeviceInfo& device, bool quick,
                           double time_budget_s)
    : spec_(spec), params_(std::move(params)), device_(device), quick_(quick),
      budget_s_(time_budget_s), start_s_(now_s()) {}

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
  const double left = budget_s_ - (now_s() - start_s_);
  policy.time_cap_s = std::max(0.0, std::min(policy.time_cap_s, left));
  if (quick_) policy.min_samples = std::min(policy.min_samples, 3);
  return repeat_until_stable(sample, policy);
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

double ProbeContext::observed_sm_clock_mhz() {
  if (observed_mhz_ <= 0) observed_mhz_ = measure_sm_clock_mhz();
  return observed_mhz_;
}

void ProbeContext::fill(Record& r) const {
  r.metrics = metrics_;
  r.extra = extra_;
  r.sm_clock_mhz = observed_mhz_;
}

Record& SummaryContext::derive(Params params) {
  Record r;
  r.id = spec_.id;
  r.category = spec_.category();
  r.params = std::move(params);
  r.derived = true;
  derived_.push_back(std::move(r));
  return derived_.back();
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
