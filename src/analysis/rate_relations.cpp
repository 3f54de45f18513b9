#include "analysis/rate_relations.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace gd {
namespace {

// The one ok point at {axis: value} and its metric, or {nullptr, nullptr}.
std::pair<const Record*, const Metric*> one_point(SummaryContext& sc, const std::string& axis, const std::string& value,
                                                  const std::string& metric) {
  const auto r = sc.ok_records({{axis, value}});
  if (r.size() != 1) return {nullptr, nullptr};
  const Metric* m = r[0]->metric(metric);
  return {m ? r[0] : nullptr, m};
}

Record* derive_relation(SummaryContext& sc, const std::string& axis, const std::string& base, const std::string& variant,
                        const std::string& metric, const std::string& out_metric, const std::string& at, bool ratio) {
  const auto [b, bm] = one_point(sc, axis, base, metric);
  const auto [v, vm] = one_point(sc, axis, variant, metric);
  if (!b || !v) return nullptr;
  const double value = ratio ? rate_ratio(vm->value(), bm->value()) : extra_latency(vm->value(), bm->value());
  Record& d = sc.derive({{axis, at}}, {b, v});
  sc.add_metric(d, out_metric, single_value(value));
  d.extra["base"] = axis + "=" + base;
  d.extra["variant"] = axis + "=" + variant;
  d.extra["relation"] = std::string(ratio ? "ratio" : "difference") + " of " + metric;
  return &d;
}

void require_positive(double v, const char* what) {
  if (!std::isfinite(v) || v <= 0) throw std::invalid_argument(std::string(what) + " must be finite and positive");
}

}  // namespace

double extra_latency(double variant_cycles, double base_cycles) {
  if (!std::isfinite(variant_cycles) || !std::isfinite(base_cycles) || variant_cycles < 0 || base_cycles < 0)
    throw std::invalid_argument("extra_latency needs two finite, non-negative latencies");
  return variant_cycles - base_cycles;
}

double rate_ratio(double numerator, double denominator) {
  require_positive(numerator, "rate_ratio's numerator");
  require_positive(denominator, "rate_ratio's denominator");
  return numerator / denominator;
}

double littles_law_in_flight(double latency_cycles, double issue_per_cycle) {
  require_positive(latency_cycles, "the latency");
  require_positive(issue_per_cycle, "the issue rate");
  // A little above 1 is measurement noise at a full-rate pipe; well above it is a unit mistake.
  if (issue_per_cycle > 1.05)
    throw std::invalid_argument("an issue rate above one instruction per cycle per sub-core is not an issue rate");
  return latency_cycles * issue_per_cycle;
}

Record* derive_difference(SummaryContext& sc, const std::string& axis, const std::string& base,
                          const std::string& variant, const std::string& metric, const std::string& out_metric,
                          const std::string& at) {
  return derive_relation(sc, axis, base, variant, metric, out_metric, at, false);
}

Record* derive_ratio(SummaryContext& sc, const std::string& axis, const std::string& base, const std::string& variant,
                     const std::string& metric, const std::string& out_metric, const std::string& at) {
  return derive_relation(sc, axis, base, variant, metric, out_metric, at, true);
}

}  // namespace gd
