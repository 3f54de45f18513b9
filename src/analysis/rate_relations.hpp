// Quantities the seeds report as one number but that relate two measurements: a variant's extra
// latency over its base chain, a speedup or ratio of two rates, and a pipe's depth from Little's
// law (in flight = latency x issue rate). Each checks its inputs, so a failed measurement (NaN,
// zero rate) becomes an error instead of a plausible-looking number.
#pragma once
#include <string>

#include "core/probe.hpp"

namespace gd {

// variant - base, cycles. Throws std::invalid_argument when either is not finite or negative.
double extra_latency(double variant_cycles, double base_cycles);

// numerator / denominator of two rates in the same unit. Throws std::invalid_argument unless
// both are finite and positive.
double rate_ratio(double numerator, double denominator);

// Little's law: instructions one issue port keeps in flight = latency (cycles) x issue rate
// (instructions per cycle). The pipe depth in stages when it accepts one instruction per cycle.
// Throws std::invalid_argument unless latency and rate are finite and positive, or the rate is
// above one instruction per cycle (a sub-core issues at most one).
double littles_law_in_flight(double latency_cycles, double issue_per_cycle);

// In a probe's summary: of the ok points at {axis: variant} and {axis: base} (exactly one each),
// `metric` of the variant minus the base's (derive_difference) or over it (derive_ratio), as a
// derived record at {axis: at} carrying `out_metric` and both sources. nullptr, and no record,
// when a point or its metric is missing.
Record* derive_difference(SummaryContext& sc, const std::string& axis, const std::string& base,
                          const std::string& variant, const std::string& metric, const std::string& out_metric,
                          const std::string& at = "difference");
Record* derive_ratio(SummaryContext& sc, const std::string& axis, const std::string& base, const std::string& variant,
                     const std::string& metric, const std::string& out_metric, const std::string& at);

}  // namespace gd
