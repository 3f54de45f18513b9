#include "core/record.hpp"

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
  }
  throw std::invalid_argument("invalid SassStatus value");
}

Status status_from_string(const std::string& s) {
  for (Status v : {Status::Ok, Status::Skipped, Status::Failed})
    if (to_string(v) == s) return v;
  throw std::invalid_argument("unknown status '" + s + "' (expected ok, skipped or failed)");
}

SassStatus sass_status_from_string(const std::string& s) {
  for (SassStatus v : {SassStatus::Verified, SassStatus::Mismatch, SassStatus::Unverified})
    if (to_string(v) == s) return v;
  throw std::invalid_argument("unknown SASS status '" + s +
                              "' (expected verified, mismatch or unverified)");
}

const Metric* Record::metric(const std::string& name) const {
  for (const Metric& m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

json to_json(const Metric& m) {
  // "value" repeats the median so a consumer that wants one number per metric need not know
  // which statistic gpudissect reports.
  return {{"name", m.name},
          {"unit", m.unit},
          {"value", jf::number_or_null(m.value())},
          {"median", jf::number_or_null(m.stats.median)},
          {"min", jf::number_or_null(m.stats.min)},
          {"max", jf::number_or_null(m.stats.max)},
          {"mean", jf::number_or_null(m.stats.mean)},
          {"stddev", jf::number_or_null(m.stats.stddev)},
          {"n", m.stats.n}};
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
          {"derived", r.derived},
          {"sm_clock_mhz", jf::number_or_null(r.sm_clock_mhz)},
          {"nvml_sm_clock_mhz", jf::number_or_null(r.nvml_sm_clock_mhz)},
          {"elapsed_s", jf::number_or_null(r.elapsed_s)},
          {"extra", r.extra}};
}

static std::size_t sample_count(const json& j) {
  const std::int64_t n = jf::integer_at(j, "n");
  if (n < 0) throw std::invalid_argument("field 'n' must not be negative");
  return static_cast<std::size_t>(n);
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
    return m;
  });
}

static SassCheck sass_from_json(const json& j) {
  SassCheck s;
  s.status = sass_status_from_string(jf::string_at(j, "status"));
  s.detail = jf::string_or(j, "detail", "");
  return s;
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
  r.sm_clock_mhz = jf::number_or(j, "sm_clock_mhz", 0);
  r.nvml_sm_clock_mhz = jf::number_or(j, "nvml_sm_clock_mhz", 0);
  r.elapsed_s = jf::number_or(j, "elapsed_s", 0);
  if (jf::optional(j, "extra")) r.extra = jf::object_at(j, "extra");
  return r;
}

}  // namespace gd
