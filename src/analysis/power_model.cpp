#include "analysis/power_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/median.hpp"

namespace gd {


PowerFit fit_power_vs_sms(std::span<const double> active_sms, std::span<const double> watts) {
  if (active_sms.size() != watts.size()) throw std::invalid_argument("fit_power_vs_sms: unequal lengths");
  if (active_sms.size() < 3) throw std::invalid_argument("fit_power_vs_sms: need at least 3 points");
  for (std::size_t i = 0; i < watts.size(); ++i) {
    if (!(active_sms[i] >= 1)) throw std::invalid_argument("fit_power_vs_sms: SM counts must be >= 1");
    if (!(watts[i] > 0) || !std::isfinite(watts[i]))
      throw std::invalid_argument("fit_power_vs_sms: powers must be positive and finite");
  }
  const LineFit line = fit_line(active_sms, watts);
  PowerFit f;
  f.p0_w = line.intercept;
  f.w_per_sm = line.slope;
  f.r2 = line.r2;
  f.n = line.n;
  const std::size_t top = std::size_t(std::max_element(active_sms.begin(), active_sms.end()) - active_sms.begin());
  f.static_share = f.p0_w / (f.p0_w + f.w_per_sm * active_sms[top]);
  return f;
}

double per_watt(double rate, double watts) {
  if (!(watts > 0) || !std::isfinite(watts)) throw std::invalid_argument("per_watt: power must be positive and finite");
  if (!(rate >= 0) || !std::isfinite(rate)) throw std::invalid_argument("per_watt: rate must be non-negative and finite");
  return rate / watts;
}

ClockResponse clock_response(std::span<const double> t_s, std::span<const double> mhz, double load_start_s,
                             double load_end_s, double tolerance) {
  if (t_s.size() != mhz.size()) throw std::invalid_argument("clock_response: unequal lengths");
  if (!std::is_sorted(t_s.begin(), t_s.end())) throw std::invalid_argument("clock_response: times must ascend");
  std::vector<double> idle, loaded, after;
  std::vector<std::size_t> loaded_at;
  for (std::size_t i = 0; i < t_s.size(); ++i) {
    if (t_s[i] < load_start_s) idle.push_back(mhz[i]);
    else if (t_s[i] <= load_end_s) {
      loaded.push_back(mhz[i]);
      loaded_at.push_back(i);
    } else after.push_back(mhz[i]);
  }
  if (idle.empty()) throw std::invalid_argument("clock_response: no sample before the load");
  if (loaded.empty()) throw std::invalid_argument("clock_response: no sample inside the load window");
  ClockResponse r;
  r.idle_mhz = median_of(idle);
  r.loaded_mhz = median_of(loaded);
  r.loaded_min_mhz = *std::min_element(loaded.begin(), loaded.end());
  r.loaded_max_mhz = *std::max_element(loaded.begin(), loaded.end());
  r.after_mhz = after.empty() ? std::numeric_limits<double>::quiet_NaN() : median_of(after);
  r.loaded_samples = loaded.size();
  // The last sample outside the band; the clock has settled from the one after it on.
  r.settle_s = 0;
  for (std::size_t j = loaded.size(); j-- > 0;) {
    if (std::fabs(loaded[j] - r.loaded_mhz) > tolerance * r.loaded_mhz) {
      r.settle_s = j + 1 < loaded.size() ? t_s[loaded_at[j + 1]] - load_start_s
                                         : std::numeric_limits<double>::quiet_NaN();
      break;
    }
  }
  return r;
}

double settled_at(std::span<const double> t_s, std::span<const double> rate, const SettleRule& rule) {
  if (t_s.size() != rate.size()) throw std::invalid_argument("settled_at: unequal lengths");
  if (!std::is_sorted(t_s.begin(), t_s.end())) throw std::invalid_argument("settled_at: times must ascend");
  for (const double r : rate)
    if (!(r >= 0) || !std::isfinite(r)) throw std::invalid_argument("settled_at: rates must be finite and >= 0");
  if (!(rule.window_s > 0) || !(rule.tolerance >= 0) || rule.min_chunks < 1)
    throw std::invalid_argument("settled_at: window must be positive, tolerance >= 0, min_chunks >= 1");
  // The chunks ending in (lo, hi]: t_s is sorted, so each window is one run of indices.
  const auto run = [&](double lo, double hi) {
    const auto first = std::upper_bound(t_s.begin(), t_s.end(), lo) - t_s.begin();
    const auto last = std::upper_bound(t_s.begin(), t_s.end(), hi) - t_s.begin();
    return std::vector<double>(rate.begin() + first, rate.begin() + last);
  };
  for (std::size_t j = 0; j < t_s.size(); ++j) {
    const double t = t_s[j];
    if (t < rule.min_load_s) continue;
    const std::vector<double> late = run(t - rule.window_s, t), early = run(t - 2 * rule.window_s, t - rule.window_s);
    if (late.size() < std::size_t(rule.min_chunks) || early.size() < std::size_t(rule.min_chunks)) continue;
    const double m_late = median_of(late), m_early = median_of(early);
    if (std::fabs(m_late - m_early) <= rule.tolerance * m_late) return t;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

static std::string three_digits(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string power_curve_text(std::span<const double> active_sms, std::span<const double> watts, const PowerFit& fit) {
  if (active_sms.empty() || active_sms.size() != watts.size())
    throw std::invalid_argument("power_curve_text: the SM counts and the powers must be non-empty and pair up");
  std::string out;
  for (std::size_t i = 0; i < active_sms.size(); ++i)
    out += (i ? "; " : "") + three_digits(active_sms[i]) + " SMs: " + three_digits(watts[i]) + " W";
  return out + " (P = " + three_digits(fit.p0_w) + " W + " + three_digits(fit.w_per_sm) + " W/SM, R² " +
         three_digits(fit.r2) + ")";
}

}  // namespace gd
