#include "analysis/control_issue.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/stats.hpp"

namespace gd {
namespace {

void require_finite(std::span<const double> v, const char* what) {
  if (v.empty()) throw std::invalid_argument(std::string(what) + ": no values");
  for (double x : v)
    if (std::isnan(x)) throw std::invalid_argument(std::string(what) + ": NaN value");
}

}  // namespace

IssueStall find_issue_stall(std::span<const double> gaps, int baseline_n, double min_jump, double factor) {
  if (baseline_n < 1) throw std::invalid_argument("find_issue_stall: baseline_n must be at least 1");
  if (!(min_jump >= 0) || !(factor >= 1)) throw std::invalid_argument("find_issue_stall: min_jump >= 0 and factor >= 1");
  if (gaps.size() < std::size_t(baseline_n) + 1)
    throw std::invalid_argument("find_issue_stall: " + std::to_string(gaps.size()) + " gaps, need more than the " +
                                std::to_string(baseline_n) + " of the baseline");
  for (double g : gaps)
    if (!(g >= 0)) throw std::invalid_argument("find_issue_stall: gaps must be non-negative numbers");
  IssueStall s;
  s.baseline = summarize(gaps.first(std::size_t(baseline_n))).median;
  double t = 0;
  for (std::size_t i = 0; i < gaps.size(); ++i) {
    if (gaps[i] > s.baseline + min_jump && gaps[i] > factor * s.baseline) {
      s.found = true;
      s.index = int(i);
      s.stall_cycles = gaps[i];
      s.issued_by = t;
      s.resumed_after = t + gaps[i];
      return s;
    }
    t += gaps[i];
  }
  s.issued_by = t;
  return s;
}

ClockedCost clocked_cost(std::span<const double> timed, std::span<const double> empty) {
  require_finite(timed, "clocked_cost (timed)");
  require_finite(empty, "clocked_cost (empty)");
  ClockedCost c;
  c.overhead = summarize(empty).median;
  c.cycles = summarize(timed).median - c.overhead;
  const auto [lo, hi] = std::minmax_element(timed.begin(), timed.end());
  c.min = *lo - c.overhead;
  c.max = *hi - c.overhead;
  c.n = int(timed.size());
  return c;
}

}  // namespace gd
