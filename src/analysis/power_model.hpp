// Power models over NVML traces: board power as a line over active SMs (static power plus a
// per-SM share), energy efficiency, how the SM clock answers a step of load, and when a rate
// measured under continuous load has settled.
#pragma once
#include <span>
#include <string>

#include "analysis/fit.hpp"

namespace gd {

// P = p0_w + w_per_sm * active SMs, least squares over points of one fixed per-SM workload.
struct PowerFit {
  double p0_w = 0;       // intercept: power with no SM busy (clocks, L2, memory, fabric)
  double w_per_sm = 0;   // slope
  double r2 = 0;
  double static_share = 0;  // p0 / P at the largest SM count measured
  std::size_t n = 0;
};
// Throws std::invalid_argument for fewer than 3 points, an SM count below 1, a non-positive or
// non-finite power, or fewer than two distinct SM counts.
PowerFit fit_power_vs_sms(std::span<const double> active_sms, std::span<const double> watts);

// The curve an item about power versus active SMs reads, with the line fitted to it:
// "17 SMs: 156 W; ...; 132 SMs: 299 W (P = 132 W + 1.24 W/SM, R² 0.997)". Throws
// std::invalid_argument when the two spans differ in length or are empty.
std::string power_curve_text(std::span<const double> active_sms, std::span<const double> watts, const PowerFit& fit);

// Work per joule: rate (TFLOPS or TOPS) over mean power (W). Throws on a non-positive or
// non-finite power or a negative rate.
double per_watt(double rate, double watts);

// The SM clock around a step of load: samples (t, MHz) from before load_start_s to after
// load_end_s. `settle_s` is the time from load_start_s until the clock first stays within
// `tolerance` (relative) of the loaded median for the rest of the load window; NaN when it never
// does. Idle and after are medians outside the window.
struct ClockResponse {
  double idle_mhz = 0, loaded_mhz = 0, loaded_min_mhz = 0, loaded_max_mhz = 0, after_mhz = 0;
  double settle_s = 0;
  std::size_t loaded_samples = 0;
};
// Throws std::invalid_argument on unequal lengths, unsorted times, an empty load window, or
// no sample before load_start_s.
ClockResponse clock_response(std::span<const double> t_s, std::span<const double> mhz, double load_start_s,
                             double load_end_s, double tolerance = 0.02);

// When a rate measured in consecutive chunks of back-to-back work has stopped changing. The
// clock of a power-capped chip falls for about a second after load starts and then hunts by a few
// percent, with an occasional dip of a chunk or two: the rule compares the medians of two adjacent
// windows, so a trend counts and a single dip does not. scripts/gemm_torch.py applies the same
// rule (tests/fixtures/gemm_protocol.json holds both sides' cases and constants).
struct SettleRule {
  double min_load_s = 1.0;  // never settled before this much load
  double window_s = 0.25;   // each of the two windows compared
  double tolerance = 0.02;  // relative difference of their medians
  int min_chunks = 3;       // chunks a window needs before its median counts
};
// `t_s`: each chunk's end, seconds since the load started; `rate`: its rate. Returns the end time
// t of the first chunk with t >= min_load_s at which the chunks ending in (t - window_s, t] and
// those ending in (t - 2 window_s, t - window_s] number at least min_chunks each and have medians
// within `tolerance` of the later one; NaN when no chunk qualifies. Throws std::invalid_argument
// on unequal lengths, times not ascending, a non-finite or negative rate, or a rule with a
// non-positive window, negative tolerance or min_chunks below 1.
double settled_at(std::span<const double> t_s, std::span<const double> rate, const SettleRule& rule = {});

}  // namespace gd
