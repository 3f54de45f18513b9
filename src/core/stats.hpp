// Sample statistics and adaptive repetition: every number gpudissect reports is a Summary.
#pragma once
#include <cstddef>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace gd {

struct Summary {
  double median = std::numeric_limits<double>::quiet_NaN();
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
  double mean = std::numeric_limits<double>::quiet_NaN();
  double stddev = std::numeric_limits<double>::quiet_NaN();  // sample (n-1) standard deviation
  std::size_t n = 0;
  // Quartiles (linear interpolation, as median): the spread of the median is estimated from
  // them (compare), not from the extremes, which grow with n.
  double q1 = std::numeric_limits<double>::quiet_NaN();
  double q3 = std::numeric_limits<double>::quiet_NaN();
  // The distribution, kept small: every sample, sorted, when n <= kSketchPoints; else the
  // kSketchPoints order statistics at quantiles (i + 0.5) / kSketchPoints. compare's
  // Mann-Whitney test reads it; empty when unknown (a derived value, an old run file).
  std::vector<double> sketch;
};
// Points a Summary's sketch keeps. 32 quantiles place a shift of a tenth of the spread (see
// report/compare's rank test) at the cost of about 300 bytes per metric in a run file.
inline constexpr std::size_t kSketchPoints = 32;
// The sketch of sorted samples (Summary::sketch), rounded to 7 significant digits.
std::vector<double> sketch_of_sorted(std::span<const double> sorted);

// Summary of the samples. Empty input gives n == 0 and NaN fields; a NaN sample is an error
// (a probe that produced NaN measured nothing), reported as std::invalid_argument.
Summary summarize(std::span<const double> samples);
Summary single_value(double value);

// Linear-interpolated quantile of sorted data, q in [0, 1].
double quantile_sorted(std::span<const double> sorted, double q);

// Half-width of the ~95% confidence interval of the median relative to the median
// (boxplot notch: 1.58 * IQR / sqrt(n)). Infinity when fewer than 3 samples or median is 0.
double median_relative_ci(std::span<const double> samples);

struct RepeatPolicy {
  int warmup = 1;                 // discarded calls before the first sample
  double warmup_s = 0;            // ...and keep warming up until this long has passed (clocks and
                                  // memory need time under load to reach their working state)
  int min_samples = 5;
  int max_samples = 200;
  double target_rel_ci = 0.005;   // stop once the median is known to +-0.5 %
  double time_cap_s = 2.0;        // stop here even if not converged
  double min_time_s = 0;          // and keep sampling at least this long before calling it converged
};

// What the user asked for on the command line (gpudissect run --min-samples ...), applied over
// every probe's own policy; unset fields leave the probe's choice.
struct SamplingOverride {
  int min_samples = 0;      // > 0: at least this many samples (the sample cap rises to match)
  double max_noise = 0;     // > 0: target relative CI half-width of the median
  double min_time_s = 0;    // > 0: sample at least this long per measurement
  double timeout_s = 0;     // > 0: each probe's time cap, all its points together
  // One call per measurement, no warm-up: the profiling pass of run --ncu, where only the
  // counters of each kernel's launches matter, not their timing.
  bool single_sample = false;
  // --functional (scripts/sanitize.sh): every point at the smallest size that still runs all of
  // its code (a few blocks, one short trip, buffers of a few MiB), measured once as above. For
  // correctness tools whose cost grows with blocks and shared-memory traffic (racecheck).
  bool functional = false;
  bool once() const { return single_sample || functional; }
  bool any() const { return min_samples > 0 || max_noise > 0 || min_time_s > 0 || timeout_s > 0 || once(); }
};
RepeatPolicy apply(const SamplingOverride& o, RepeatPolicy p);

struct RepeatResult {
  Summary summary;
  std::vector<double> samples;
  bool converged = false;
  std::string stop_reason;  // "converged", "time cap", "sample cap"
};

// Calls sample() until the median is stable, the sample cap or the time cap is reached.
// now_s is injectable so tests can drive the clock.
RepeatResult repeat_until_stable(const std::function<double()>& sample, const RepeatPolicy& policy,
                                 const std::function<double()>& now_s = {});

}  // namespace gd
