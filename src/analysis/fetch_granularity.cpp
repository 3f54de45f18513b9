#include "analysis/fetch_granularity.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gd {
namespace {

// Knees within this factor of each other have not moved (halfway between 1 and 2 on a log scale).
const double kKneeTolerance = std::sqrt(2.0);

struct Fit {
  std::vector<double> gs;      // the granularities of the model
  std::vector<double> coef;    // hit latency, then each level's miss cost
  double rss = std::numeric_limits<double>::infinity();
};

double ramp(double stride, double g) { return std::min(1.0, stride / g); }

// Solves the k x k system a x = b in place (Gaussian elimination with partial pivoting); false
// when singular (two ramps identical over the strides measured).
bool solve(std::vector<std::vector<double>>& a, std::vector<double>& b) {
  const std::size_t k = b.size();
  for (std::size_t c = 0; c < k; ++c) {
    std::size_t p = c;
    for (std::size_t r = c + 1; r < k; ++r)
      if (std::abs(a[r][c]) > std::abs(a[p][c])) p = r;
    if (std::abs(a[p][c]) < 1e-12) return false;
    std::swap(a[p], a[c]);
    std::swap(b[p], b[c]);
    for (std::size_t r = 0; r < k; ++r) {
      if (r == c) continue;
      const double f = a[r][c] / a[c][c];
      for (std::size_t j = c; j < k; ++j) a[r][j] -= f * a[c][j];
      b[r] -= f * b[c];
    }
  }
  for (std::size_t c = 0; c < k; ++c) b[c] /= a[c][c];
  return true;
}

// Least squares of latency = h + sum_k d_k ramp(s, G_k); rejected (rss infinite) when a miss
// cost comes out negative: a level that makes loads faster is not a level.
Fit fit_model(std::span<const FetchPoint> pts, const std::vector<double>& gs) {
  const std::size_t k = gs.size() + 1;
  std::vector<std::vector<double>> ata(k, std::vector<double>(k, 0));
  std::vector<double> atb(k, 0);
  for (const FetchPoint& p : pts) {
    std::vector<double> row{1};
    for (double g : gs) row.push_back(ramp(p.stride, g));
    for (std::size_t i = 0; i < k; ++i) {
      atb[i] += row[i] * p.latency;
      for (std::size_t j = 0; j < k; ++j) ata[i][j] += row[i] * row[j];
    }
  }
  Fit f;
  f.gs = gs;
  if (!solve(ata, atb)) return f;
  for (std::size_t i = 1; i < k; ++i)
    if (atb[i] < 0) return f;
  f.coef = atb;
  f.rss = 0;
  for (const FetchPoint& p : pts) {
    double model = atb[0];
    for (std::size_t i = 0; i < gs.size(); ++i) model += atb[i + 1] * ramp(p.stride, gs[i]);
    f.rss += (p.latency - model) * (p.latency - model);
  }
  return f;
}

// Bayesian information criterion, with a floor on the residual so exact synthetic curves compare.
double bic(const Fit& f, std::size_t n, double scale) {
  const double params = 2.0 * double(f.gs.size()) + 1;  // each level: its G and its cost
  return double(n) * std::log(f.rss / double(n) + 1e-12 * scale) + params * std::log(double(n));
}

Fit best_model(std::span<const FetchPoint> pts, std::span<const double> candidates, int max_levels) {
  double scale = 0;
  for (const FetchPoint& p : pts) scale += p.latency * p.latency / double(pts.size());
  Fit one, two;
  for (double g : candidates) {
    Fit f = fit_model(pts, {g});
    if (f.rss < one.rss) one = f;
  }
  // Two levels need room: at least two strides below the first granularity's ramp end apart.
  if (max_levels >= 2 && pts.size() >= 6)
    for (double g1 : candidates)
      for (double g2 : candidates)
        if (g1 < g2) {
          Fit f = fit_model(pts, {g1, g2});
          if (f.rss < two.rss) two = f;
        }
  if (std::isinf(one.rss)) return one;
  if (!std::isinf(two.rss) && bic(two, pts.size(), scale) < bic(one, pts.size(), scale) - 2) return two;
  return one;
}

}  // namespace

FetchGranularity fetch_granularity(std::span<const FetchPoint> points, std::span<const double> candidates,
                                   double min_rise, int max_levels) {
  std::vector<double> strides;
  for (const FetchPoint& p : points) {
    if (!(p.stride > 0) || !(p.latency > 0) || !std::isfinite(p.stride) || !std::isfinite(p.latency))
      throw std::invalid_argument("fetch granularity: strides and latencies must be positive and finite");
    strides.push_back(p.stride);
  }
  std::sort(strides.begin(), strides.end());
  if (std::unique(strides.begin(), strides.end()) - strides.begin() < 4)
    throw std::invalid_argument("fetch granularity: needs at least 4 distinct strides");
  if (max_levels < 1 || max_levels > 2) throw std::invalid_argument("fetch granularity: max_levels is 1 or 2");
  if (candidates.empty()) throw std::invalid_argument("fetch granularity: no candidate granularities");
  for (double c : candidates)
    if (!(c > 0)) throw std::invalid_argument("fetch granularity: candidates must be positive");

  FetchGranularity out;
  const Fit best = best_model(points, candidates, max_levels);
  if (std::isinf(best.rss)) {
    out.note = "no candidate fits with a positive miss cost: the latency does not rise with the stride";
    return out;
  }
  out.hit_latency = best.coef[0];
  double rise = 0, sq = 0;
  for (std::size_t i = 0; i < best.gs.size(); ++i) {
    out.levels.push_back({best.gs[i], best.coef[i + 1]});
    rise += best.coef[i + 1];
  }
  for (const FetchPoint& p : points) {
    double model = best.coef[0];
    for (std::size_t i = 0; i < best.gs.size(); ++i) model += best.coef[i + 1] * ramp(p.stride, best.gs[i]);
    const double e = std::log(p.latency / std::max(model, 1e-12));
    sq += e * e;
  }
  out.rms_log_error = std::sqrt(sq / double(points.size()));
  if (rise < min_rise * out.hit_latency) {
    out.levels.clear();
    out.note = "the latency rises by under " + std::to_string(int(min_rise * 100)) +
               " % across the strides: every load hits, so nothing was fetched";
    return out;
  }
  out.found = true;
  int agree = 0;
  for (std::size_t skip = 0; skip < points.size(); ++skip) {
    std::vector<FetchPoint> rest;
    for (std::size_t i = 0; i < points.size(); ++i)
      if (i != skip) rest.push_back(points[i]);
    if (best_model(rest, candidates, max_levels).gs == best.gs) ++agree;
  }
  out.confidence = double(agree) / double(points.size());
  out.note = best.gs.size() == 2 ? "two levels missed together: the smaller granularity is the nearer level's"
                                 : "one level missed";
  return out;
}

LineSize line_from_knees(std::span<const KneeAtStride> knees) {
  if (knees.size() < 2) throw std::invalid_argument("line size: needs knees at 2 or more strides");
  for (std::size_t i = 0; i < knees.size(); ++i) {
    if (!(knees[i].stride > 0) || !(knees[i].knee > 0) || !std::isfinite(knees[i].knee))
      throw std::invalid_argument("line size: strides and knees must be positive and finite");
    if (i && !(knees[i].stride > knees[i - 1].stride))
      throw std::invalid_argument("line size: strides must ascend");
  }
  LineSize out;
  for (const KneeAtStride& k : knees) out.ratios.push_back(k.knee / knees.front().knee);
  std::size_t last_flat = 0;
  while (last_flat + 1 < knees.size() && out.ratios[last_flat + 1] < kKneeTolerance) ++last_flat;
  if (last_flat + 1 == knees.size()) {
    out.note = "the knee did not move up to a stride of " + std::to_string(int(knees.back().stride)) +
               " B: the line is at least that long, or the stride maps every pointer into fewer sets";
    return out;
  }
  const double line = knees[last_flat].stride;
  // Past the line the knee must grow with the stride (footprint x stride / line).
  for (std::size_t i = last_flat + 1; i < knees.size(); ++i) {
    const double expected = knees[i].stride / line;
    if (out.ratios[i] < expected / kKneeTolerance || out.ratios[i] > expected * kKneeTolerance) {
      out.note = "the knee moved at " + std::to_string(int(knees[i].stride)) + " B but not in proportion to the stride (" +
                 std::to_string(out.ratios[i]) + "x, expected " + std::to_string(expected) + "x)";
      return out;
    }
  }
  out.found = true;
  out.line = line;
  out.note = "the knee stays put up to the line and grows with the stride past it";
  return out;
}

}  // namespace gd
