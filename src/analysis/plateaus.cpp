#include "analysis/plateaus.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/median.hpp"

namespace gd {

namespace {

// Longest run starting at `i` whose points all lie within tolerance of the run's median.
std::size_t extend_run(std::span<const double> y, std::size_t i, double tol) {
  std::size_t j = i;
  while (j + 1 < y.size()) {
    const auto run = y.subspan(i, j + 2 - i);
    const double med = median_of(run);
    const bool all_close = std::all_of(run.begin(), run.end(),
                                       [&](double v) { return std::fabs(v - med) <= tol * std::fabs(med); });
    if (!all_close) break;
    ++j;
  }
  return j;
}
}  // namespace

std::vector<Plateau> find_plateaus(std::span<const double> x, std::span<const double> y,
                                   const PlateauOptions& opts) {
  if (x.size() != y.size()) throw std::invalid_argument("find_plateaus: x and y differ in length");
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i]) || !std::isfinite(y[i]))
      throw std::invalid_argument("find_plateaus: non-finite value");
  if (!std::is_sorted(x.begin(), x.end())) throw std::invalid_argument("find_plateaus: x must be ascending");

  std::vector<Plateau> out;
  const auto close = [&](double a, double b) { return std::fabs(a - b) <= opts.merge_tolerance * std::fabs(b); };
  std::size_t i = 0;
  while (i < y.size()) {
    const std::size_t j = extend_run(y, i, opts.tolerance);
    if (j - i + 1 >= opts.min_points) {
      Plateau p;
      p.first = i;
      p.last = j;
      p.latency = median_of(y.subspan(i, j - i + 1));
      p.start_x = x[i];
      p.end_x = x[j];
      p.next_x = j + 1 < x.size() ? x[j + 1] : 0;
      if (!out.empty() && close(p.latency, out.back().latency)) {
        Plateau& prev = out.back();
        prev.last = p.last;
        prev.end_x = p.end_x;
        prev.next_x = p.next_x;
        prev.latency = median_of(y.subspan(prev.first, prev.last - prev.first + 1));
      } else {
        out.push_back(p);
      }
      i = j + 1;
    } else {
      ++i;  // a transition point
    }
  }
  return out;
}

}  // namespace gd
