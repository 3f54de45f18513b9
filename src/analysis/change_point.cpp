#include "analysis/change_point.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace gd {
namespace {

struct Split {
  std::size_t at = 0;  // first index of the right side; 0: no split
  double statistic = 0;
};

double median_of(std::span<const double> v) {
  std::vector<double> s(v.begin(), v.end());
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

// The split of v into two runs that leaves the least squared deviation from each run's mean, by
// prefix sums; statistic is the share of the total deviation it removes (0 for a constant v).
Split best_split(std::span<const double> v, std::size_t min_points) {
  const std::size_t n = v.size();
  if (n < 2 * min_points) return {};
  std::vector<double> sum(n + 1, 0), sq(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    sum[i + 1] = sum[i] + v[i];
    sq[i + 1] = sq[i] + v[i] * v[i];
  }
  const auto rss = [&](std::size_t a, std::size_t b) {  // [a, b)
    const double s = sum[b] - sum[a];
    return std::max(0.0, sq[b] - sq[a] - s * s / double(b - a));
  };
  const double total = rss(0, n);
  if (total <= 0) return {};
  Split best;
  double least = total;
  for (std::size_t k = min_points; k + min_points <= n; ++k) {
    const double r = rss(0, k) + rss(k, n);
    if (r < least) least = r, best.at = k;
  }
  best.statistic = 1 - least / total;
  return best;
}

// Share of shuffles of v whose best split removes at least `statistic`, counted as (hits + 1) /
// (shuffles + 1). A Fisher-Yates of our own over mt19937_64, so every platform shuffles alike.
double permutation_p(std::span<const double> v, double statistic, std::size_t min_points, int permutations,
                     std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> w(v.begin(), v.end());
  int hits = 0;
  for (int p = 0; p < permutations; ++p) {
    for (std::size_t i = w.size() - 1; i > 0; --i) std::swap(w[i], w[rng() % (i + 1)]);
    if (best_split(w, min_points).statistic >= statistic) ++hits;
  }
  return double(hits + 1) / double(permutations + 1);
}

void check_input(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) throw std::invalid_argument("change points: footprints and latencies differ in number");
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i]) || y[i] <= 0)
      throw std::invalid_argument("change points: point " + std::to_string(i) + " is not a finite positive latency");
    if (i > 0 && x[i] < x[i - 1]) throw std::invalid_argument("change points: footprints are not ascending");
  }
}

// A step split segment [lo, hi) of the curve at `at`; kept when significant and a rise.
struct Candidate {
  bool kept = false;
  ChangePoint step;
  std::string why;  // when not kept
};

Candidate test_segment(std::span<const double> x, std::span<const double> y, std::span<const double> logy,
                       std::size_t lo, std::size_t hi, const ChangePointOptions& o) {
  const std::span<const double> seg = logy.subspan(lo, hi - lo);
  const Split s = best_split(seg, o.min_points);
  if (s.at == 0) return {false, {}, "too few points or no variation"};
  ChangePoint c;
  c.index = lo + s.at;
  c.before = median_of(y.subspan(lo, s.at));
  c.after = median_of(y.subspan(c.index, hi - c.index));
  c.rise = c.after / c.before - 1;
  std::size_t last = c.index - 1, first = c.index;  // the lower level's last point, the upper's first
  while (last > lo && y[last] > c.before * (1 + o.level_tolerance)) --last;
  while (first + 1 < hi && y[first] < c.after * (1 - o.level_tolerance)) ++first;
  c.last_before = x[last];
  c.first_after = x[first];
  c.lower_end = last;
  c.upper_begin = first;
  c.statistic = s.statistic;
  c.p_value = permutation_p(seg, s.statistic, o.min_points, o.permutations, o.seed + lo * 7919 + hi);
  c.confidence = 1 - c.p_value;
  if (c.p_value > o.alpha) return {false, c, "the best split is not significant (p " + std::to_string(c.p_value) + ")"};
  if (c.rise < o.min_rise) return {false, c, "the best split rises " + std::to_string(c.rise * 100) + " %, under the minimum"};
  return {true, c, ""};
}

// Two steps with no level between them (the later one's lower level ends where the earlier one's
// upper level has not yet begun) are the two ends of one gradual transition.
std::vector<ChangePoint> merge_transitions(std::vector<ChangePoint> steps) {
  std::vector<ChangePoint> out;
  for (const ChangePoint& s : steps) {
    if (!out.empty() && s.lower_end <= out.back().upper_begin) {
      ChangePoint& m = out.back();
      m.first_after = s.first_after;
      m.upper_begin = s.upper_begin;
      m.after = s.after;
      m.rise = m.after / m.before - 1;
      m.statistic = std::min(m.statistic, s.statistic);
      m.p_value = std::max(m.p_value, s.p_value);
      m.confidence = 1 - m.p_value;
      continue;
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace

ChangePoints find_change_points(std::span<const double> x, std::span<const double> y, const ChangePointOptions& o) {
  check_input(x, y);
  if (o.min_points < 1 || o.permutations < 1) throw std::invalid_argument("change points: min_points and permutations must be positive");
  std::vector<double> logy(y.size());
  std::transform(y.begin(), y.end(), logy.begin(), [](double v) { return std::log(v); });

  ChangePoints r;
  std::vector<std::pair<std::size_t, std::size_t>> todo{{0, x.size()}};
  std::string first_why;
  while (!todo.empty() && r.steps.size() < o.max_steps) {
    const auto [lo, hi] = todo.back();
    todo.pop_back();
    const Candidate c = test_segment(x, y, logy, lo, hi, o);
    if (!c.kept) {
      if (lo == 0 && hi == x.size()) first_why = c.why;
      continue;
    }
    r.steps.push_back(c.step);
    todo.push_back({lo, c.step.index});
    todo.push_back({c.step.index, hi});
  }
  if (!todo.empty()) r.note = "stopped at " + std::to_string(o.max_steps) + " steps";
  std::sort(r.steps.begin(), r.steps.end(), [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  r.steps = merge_transitions(std::move(r.steps));
  if (r.steps.empty()) r.note = "no step: " + (first_why.empty() ? std::string("too few points") : first_why);
  return r;
}

ChangePoints find_bandwidth_drops(std::span<const double> x, std::span<const double> bandwidth, const ChangePointOptions& o) {
  std::vector<double> per_byte(bandwidth.size());
  for (std::size_t i = 0; i < bandwidth.size(); ++i) {
    if (!(bandwidth[i] > 0) || !std::isfinite(bandwidth[i])) throw std::invalid_argument("bandwidth drops: bandwidths must be positive and finite");
    per_byte[i] = 1 / bandwidth[i];
  }
  ChangePoints r = find_change_points(x, per_byte, o);
  for (ChangePoint& s : r.steps) s.before = 1 / s.before, s.after = 1 / s.after;  // back to bandwidths
  return r;
}

}  // namespace gd

