#include "analysis/rank_test.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace gd {

std::optional<RankTest> mann_whitney(const Summary& a, const Summary& b) {
  if (a.sketch.empty() || b.sketch.empty() || a.n < 2 || b.n < 2) return std::nullopt;
  const double na = double(a.n), nb = double(b.n);
  const double wa = na / double(a.sketch.size()), wb = nb / double(b.sketch.size());
  // Pool the points with their weights and side; U is B's rank sum less its minimum, counted
  // directly over groups of equal values (a tie counts half for each pair across sides).
  std::vector<std::pair<double, int>> pooled;
  for (double v : a.sketch) pooled.push_back({v, 0});
  for (double v : b.sketch) pooled.push_back({v, 1});
  std::sort(pooled.begin(), pooled.end());
  double u = 0, a_below = 0, tie_term = 0;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    double ga = 0, gb = 0;
    for (; j < pooled.size() && pooled[j].first == pooled[i].first; ++j) (pooled[j].second ? gb : ga) += 1;
    ga *= wa;
    gb *= wb;
    u += gb * (a_below + ga / 2);
    a_below += ga;
    const double t = ga + gb;
    tie_term += t * t * t - t;
    i = j;
  }
  RankTest r;
  r.u = u;
  r.superiority = u / (na * nb);
  const double n = na + nb;
  const double var = na * nb / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  const double shift = u - na * nb / 2;
  if (!(var > 0)) {
    r.z = 0;
    r.p_value = std::fabs(shift) < 1e-9 * na * nb ? 1 : 0;
    return r;
  }
  r.z = shift / std::sqrt(var);
  r.p_value = std::erfc(std::fabs(r.z) / std::sqrt(2.0));
  return r;
}

}  // namespace gd
