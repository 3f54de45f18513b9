#include "core/stats.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "core/timing.hpp"

namespace gd {

Summary summarize(std::span<const double> samples) {
  Summary s;
  if (samples.empty()) return s;
  std::vector<double> sorted(samples.begin(), samples.end());
  for (double v : sorted)
    if (std::isnan(v)) throw std::invalid_argument("summarize: NaN sample");
  std::sort(sorted.begin(), sorted.end());
  s.n = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = quantile_sorted(sorted, 0.5);
  s.q1 = quantile_sorted(sorted, 0.25);
  s.q3 = quantile_sorted(sorted, 0.75);
  if (s.n > 1) s.sketch = sketch_of_sorted(sorted);
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / double(s.n);
  if (s.n > 1) {
    double ss = 0;
    for (double v : sorted) ss += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(ss / double(s.n - 1));
  } else {
    s.stddev = 0.0;
  }
  return s;
}

// 7 significant digits: the test ranks the points, and a rank moves only between values closer
// than a part in ten million, far inside any metric's noise.
static double round_significant(double v) {
  if (v == 0 || !std::isfinite(v)) return v;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7g", v);
  return std::strtod(buf, nullptr);
}

std::vector<double> sketch_of_sorted(std::span<const double> sorted) {
  std::vector<double> out;
  if (sorted.size() <= kSketchPoints) {
    for (double v : sorted) out.push_back(round_significant(v));
    return out;
  }
  out.reserve(kSketchPoints);
  for (std::size_t i = 0; i < kSketchPoints; ++i)
    out.push_back(round_significant(quantile_sorted(sorted, (double(i) + 0.5) / double(kSketchPoints))));
  return out;
}

Summary single_value(double value) {
  const double one[] = {value};
  return summarize(one);
}

double quantile_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  if (q <= 0) return sorted.front();
  if (q >= 1) return sorted.back();
  const double pos = q * double(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const double frac = pos - double(lo);
  if (lo + 1 >= sorted.size()) return sorted[lo];
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

double median_relative_ci(std::span<const double> samples) {
  if (samples.size() < 3) return std::numeric_limits<double>::infinity();
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const double med = quantile_sorted(sorted, 0.5);
  if (med == 0) return std::numeric_limits<double>::infinity();
  const double iqr = quantile_sorted(sorted, 0.75) - quantile_sorted(sorted, 0.25);
  return 1.58 * iqr / std::sqrt(double(sorted.size())) / std::fabs(med);
}

RepeatPolicy apply(const SamplingOverride& o, RepeatPolicy p) {
  if (o.min_samples > 0) {
    p.min_samples = o.min_samples;
    p.max_samples = std::max(p.max_samples, o.min_samples);
  }
  if (o.max_noise > 0) p.target_rel_ci = o.max_noise;
  if (o.min_time_s > 0) {
    p.min_time_s = o.min_time_s;
    p.time_cap_s = std::max(p.time_cap_s, o.min_time_s);
  }
  if (o.once()) {
    p.warmup = 0;
    p.warmup_s = 0;
    p.min_samples = p.max_samples = 1;
    p.min_time_s = 0;
  }
  return p;
}

RepeatResult repeat_until_stable(const std::function<double()>& sample, const RepeatPolicy& policy,
                                 const std::function<double()>& now_s) {
  if (policy.min_samples < 1 || policy.max_samples < policy.min_samples)
    throw std::invalid_argument("repeat_until_stable: need 1 <= min_samples <= max_samples");
  const auto now = now_s ? now_s : std::function<double()>(steady_now_s);
  const double warm_start = now();
  for (int i = 0; i < policy.warmup || now() - warm_start < policy.warmup_s; ++i) (void)sample();
  const double start = now();
  RepeatResult r;
  while (true) {
    r.samples.push_back(sample());
    const int n = int(r.samples.size());
    if (n >= policy.min_samples && now() - start >= policy.min_time_s &&
        median_relative_ci(r.samples) <= policy.target_rel_ci) {
      r.converged = true;
      r.stop_reason = "converged";
      break;
    }
    if (n >= policy.max_samples) {
      r.stop_reason = "sample cap";
      break;
    }
    // The time cap never cuts below the policy's minimum sample count.
    if (n >= policy.min_samples && now() - start >= policy.time_cap_s) {
      r.stop_reason = "time cap";
      break;
    }
  }
  r.summary = summarize(r.samples);
  return r;
}

}  // namespace gd
