#include "core/record.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/json_fields.hpp"

namespace gd {

using nlohmann::json;
namespace jf = json_fields;

std::string to_string(Status s) {
  switch (s) {
    case Status::Ok: return "ok";
    case Status::Skipped: return "skipped";
    case Status::Failed: return "failed";
  }
  throw std::invalid_argument("invalid Status value");
}

std::string to_string(SassStatus s) {
  switch (s) {
    case SassStatus::Verified: return "verified";
    case SassStatus::Mismatch: return "mismatch";
    case SassStatus::Unverified: return "unverified";
    case SassStatus::NotApplicable: return "not_applicable";
  }
  throw std::invalid_argument("invalid SassStatus value");
}

Status status_from_string(const std::string& s) {
  for (Status v : {Status::Ok, Status::Skipped, Status::Failed})
    if (to_string(v) == s) return v;
  throw std::invalid_argument("unknown status '" + s + "' (expected ok, skipped or failed)");
}

SassStatus sass_status_from_string(const std::string& s) {
  for (SassStatus v : {SassStatus::Verified, SassStatus::Mismatch, SassStatus::Unverified, SassStatus::NotApplicable})
    if (to_string(v) == s) return v;
  throw std::invalid_argument("unknown SASS status '" + s +
                              "' (expected verified, mismatch, unverified or not_applicable)");
}

namespace {
int severity(SassStatus s) {
  switch (s) {
    case SassStatus::NotApplicable: return 0;
    case SassStatus::Verified: return 1;
    case SassStatus::Unverified: return 2;
    case SassStatus::Mismatch: return 3;
  }
  return 3;
}
}  // namespace

SassCheck combine(const std::vector<SassCheck>& checks) {
  if (checks.empty()) return {SassStatus::Unverified, "derived from no recorded point"};
  const SassCheck* worst = &checks.front();
  for (const SassCheck& c : checks)
    if (severity(c.status) > severity(worst->status)) worst = &c;
  if (checks.size() == 1) return *worst;
  // A value derived from points that ran no kernel of ours (a library's GEMM, the copy engines)
  // and points whose kernels were checked may come from either: nothing vouches for all of it.
  const auto unchecked = std::count_if(checks.begin(), checks.end(),
                                       [](const SassCheck& c) { return c.status == SassStatus::NotApplicable; });
  if (worst->status == SassStatus::Verified && unchecked > 0)
    return {SassStatus::Unverified, std::to_string(unchecked) + " of " + std::to_string(checks.size()) +
                                        " points ran no kernel of ours (nothing checked there); the others: " + worst->detail};
  return {worst->status, "worst of " + std::to_string(checks.size()) + " points: " + worst->detail};
}

Convergence combine(const std::vector<Convergence>& parts) {
  Convergence out;
  for (const Convergence& c : parts) {
    if (!c.recorded) continue;
    if (!out.recorded) {
      out = c;
      continue;
    }
    if (out.converged && !c.converged) out.stop_reason = c.stop_reason;
    out.converged = out.converged && c.converged;
    out.n = std::min(out.n, c.n);
    out.measurements += c.measurements;
  }
  return out;
}

std::string to_string(ClockSource c) {
  switch (c) {
    case ClockSource::None: return "none";
    case ClockSource::InKernel: return "in_kernel";
    case ClockSource::FromPoints: return "from_points";
  }
  throw std::invalid_argument("invalid ClockSource value");
}

ClockSource clock_source_from_string(const std::string& s) {
  for (ClockSource v : {ClockSource::None, ClockSource::InKernel, ClockSource::FromPoints})
    if (to_string(v) == s) return v;
  throw std::invalid_argument("unknown SM clock source '" + s + "' (expected none, in_kernel or from_points)");
}

const Metric* Record::metric(const std::string& name) const {
  for (const Metric& m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

std::optional<std::vector<std::string>> throttled_by(const Record& r) {
  const json* t = jf::present(r.extra, "throttle");
  if (!t || !t->is_object()) return std::nullopt;
  const json* by = jf::present(*t, "by");
  if (!by || !by->is_array()) return std::nullopt;
  std::vector<std::string> out;
  for (const json& b : *by)
    if (b.is_string()) out.push_back(b.get<std::string>());
  return out;
}

json to_json(const Metric& m) {
  // "value" repeats the median so a consumer that wants one number per metric need not know
  // which statistic gpudissect reports.
  json j = {{"name", m.name},
          {"unit", m.unit},
          {"value", jf::number_or_null(m.value())},
          {"median", jf::number_or_null(m.stats.median)},
          {"min", jf::number_or_null(m.stats.min)},
          {"max", jf::number_or_null(m.stats.max)},
          {"mean", jf::number_or_null(m.stats.mean)},
          {"stddev", jf::number_or_null(m.stats.stddev)},
          {"n", m.stats.n}};
  // Quartiles and the sketch only where there was a spread to describe (n > 1): a single value's
  // are the value itself, and derived metrics stay as short as before.
  if (m.stats.n > 1 && std::isfinite(m.stats.q1) && std::isfinite(m.stats.q3)) {
    j["q1"] = m.stats.q1;
    j["q3"] = m.stats.q3;
  }
  if (!m.stats.sketch.empty()) j["sketch"] = m.stats.sketch;
  return j;
}

json to_json(const Convergence& c) {
  if (!c.recorded) return nullptr;
  return {{"converged", c.converged}, {"stop_reason", c.stop_reason}, {"n", c.n}, {"measurements", c.measurements}};
}

json to_json(const Record& r) {
  json metrics = json::array();
  for (const Metric& m : r.metrics) metrics.push_back(to_json(m));
  return {{"id", r.id},
          {"category", r.category},
          {"params", to_json(r.params)},
          {"status", to_string(r.status)},
          {"reason", r.reason},
          {"metrics", std::move(metrics)},
          {"sass", {{"status", to_string(r.sass.status)}, {"detail", r.sass.detail}}},
          {"kernels", r.kernels},
          {"derived", r.derived},
          {"convergence", to_json(r.convergence)},
          {"sm_clock_mhz", jf::number_or_null(r.sm_clock_mhz)},
          {"sm_clock_source", to_string(r.sm_clock_source)},
          {"sm_clock_detail", r.sm_clock_detail},
          {"nvml_sm_clock_mhz", jf::number_or_null(r.nvml_sm_clock_mhz)},
          {"elapsed_s", jf::number_or_null(r.elapsed_s)},
          {"extra", r.extra}};
}

static std::size_t sample_count(const json& j) {
  const std::int64_t n = jf::integer_at(j, "n");
  if (n < 0) throw std::invalid_argument("field 'n' must not be negative");
  return static_cast<std::size_t>(n);
}

// A sketch is sorted finite numbers, as many as the samples up to kSketchPoints: anything else
// would feed the rank test a distribution that was never measured.
static std::vector<double> sketch_from_json(const json& arr, std::size_t n) {
  std::vector<double> out;
  for (const json& v : arr) {
    if (!v.is_number()) throw std::invalid_argument(std::string("field 'sketch' holds a ") + v.type_name() + ", not a number");
    out.push_back(v.get<double>());
  }
  if (out.size() != std::min(n, kSketchPoints))
    throw std::invalid_argument("field 'sketch' holds " + std::to_string(out.size()) + " points for " + std::to_string(n) +
                                " samples (expected " + std::to_string(std::min(n, kSketchPoints)) + ")");
  if (!std::is_sorted(out.begin(), out.end())) throw std::invalid_argument("field 'sketch' is not sorted");
  return out;
}

Metric metric_from_json(const json& j) {
  if (!j.is_object()) throw std::invalid_argument(std::string("metric must be an object, not ") + j.type_name());
  Metric m;
  m.name = jf::with_context("metric", [&] { return jf::string_at(j, "name"); });
  if (m.name.empty()) throw std::invalid_argument("metric: field 'name' must not be empty");
  return jf::with_context("metric '" + m.name + "'", [&] {
    m.unit = jf::string_at(j, "unit");
    if (const json* v = jf::optional(j, "value"); v && !v->is_number() && !v->is_null())
      throw std::invalid_argument(std::string("field 'value' must be a number or null, not ") + v->type_name());
    m.stats.median = jf::number_at(j, "median");
    m.stats.min = jf::number_at(j, "min");
    m.stats.max = jf::number_at(j, "max");
    m.stats.mean = jf::number_at(j, "mean");
    m.stats.stddev = jf::number_at(j, "stddev");
    m.stats.n = sample_count(j);
    // Optional (schema 2 files written before they were kept have neither).
    if (jf::optional(j, "q1") || jf::optional(j, "q3")) {
      m.stats.q1 = jf::number_at(j, "q1");
      m.stats.q3 = jf::number_at(j, "q3");
    }
    if (jf::optional(j, "sketch")) m.stats.sketch = sketch_from_json(jf::array_at(j, "sketch"), m.stats.n);
    return m;
  });
}

static SassCheck sass_from_json(const json& j) {
  SassCheck s;
  s.status = sass_status_from_string(jf::string_at(j, "status"));
  s.detail = jf::string_or(j, "detail", "");
  return s;
}

static Convergence convergence_from_json(const json& j) {
  Convergence c;
  if (j.is_null()) return c;
  if (!j.is_object()) throw std::invalid_argument(std::string("must be an object or null, not ") + j.type_name());
  c.recorded = true;
  c.converged = jf::bool_or(j, "converged", false);
  c.stop_reason = jf::string_at(j, "stop_reason");
  c.n = sample_count(j);
  c.measurements = int(jf::number_or(j, "measurements", 1));
  return c;
}

static std::vector<std::string> strings_from_json(const json& arr) {
  std::vector<std::string> out;
  for (const json& s : arr) {
    if (!s.is_string()) throw std::invalid_argument(std::string("must hold strings, not ") + s.type_name());
    out.push_back(s.get<std::string>());
  }
  return out;
}

static std::vector<Metric> metrics_from_json(const json& arr) {
  std::vector<Metric> out;
  for (const json& m : arr) out.push_back(metric_from_json(m));
  return out;
}

// Fields a reader needs to place the record are required; the rest default as in Record,
// so hand-written reference datasets stay short.
Record record_from_json(const json& j) {
  if (!j.is_object()) throw std::invalid_argument(std::string("record must be an object, not ") + j.type_name());
  Record r;
  r.id = jf::string_at(j, "id");
  r.category = jf::string_at(j, "category");
  if (const json* p = jf::optional(j, "params"))
    r.params = jf::with_context("field 'params'", [&] { return params_from_json(*p); });
  r.status = jf::with_context("field 'status'", [&] { return status_from_string(jf::string_at(j, "status")); });
  r.reason = jf::string_or(j, "reason", "");
  r.metrics = metrics_from_json(jf::array_at(j, "metrics"));
  if (jf::optional(j, "sass")) {
    const json& sass = jf::object_at(j, "sass");
    r.sass = jf::with_context("field 'sass'", [&] { return sass_from_json(sass); });
  }
  r.derived = jf::bool_or(j, "derived", false);
  if (jf::optional(j, "kernels"))
    r.kernels = jf::with_context("field 'kernels'", [&] { return strings_from_json(jf::array_at(j, "kernels")); });
  if (const json* c = jf::optional(j, "convergence"))
    r.convergence = jf::with_context("field 'convergence'", [&] { return convergence_from_json(*c); });
  r.sm_clock_mhz = jf::number_or(j, "sm_clock_mhz", 0);
  r.sm_clock_source = jf::with_context("field 'sm_clock_source'", [&] {
    return clock_source_from_string(jf::string_or(j, "sm_clock_source", "none"));
  });
  r.sm_clock_detail = jf::string_or(j, "sm_clock_detail", "");
  r.nvml_sm_clock_mhz = jf::number_or(j, "nvml_sm_clock_mhz", 0);
  r.elapsed_s = jf::number_or(j, "elapsed_s", 0);
  if (jf::optional(j, "extra")) r.extra = jf::object_at(j, "extra");
  return r;
}

}  // namespace gd
