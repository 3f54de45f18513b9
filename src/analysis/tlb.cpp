#include "analysis/tlb.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "analysis/plateaus.hpp"

namespace gd {

TlbReach tlb_reach(std::span<const TlbPoint> points, double min_rise) {
  std::map<double, std::vector<TlbPoint>> by_stride;
  for (const TlbPoint& p : points) {
    if (!(p.stride_bytes > 0) || !(p.entries > 0) || !(p.cycles > 0) || !std::isfinite(p.cycles))
      throw std::invalid_argument("tlb_reach: stride, entries and cycles must be positive and finite");
    by_stride[p.stride_bytes].push_back(p);
  }
  TlbReach out;
  PlateauOptions opts;
  opts.tolerance = 0.05;
  opts.min_points = 2;
  opts.merge_tolerance = min_rise * 0.8;
  for (auto& [stride, pts] : by_stride) {
    std::sort(pts.begin(), pts.end(), [](const TlbPoint& a, const TlbPoint& b) { return a.entries < b.entries; });
    std::vector<double> x, y;
    for (const TlbPoint& p : pts) {
      x.push_back(p.entries);
      y.push_back(p.cycles);
    }
    std::vector<TlbStep> steps;
    const std::vector<Plateau> levels = x.size() >= 2 ? find_plateaus(x, y, opts) : std::vector<Plateau>{};
    for (std::size_t i = 0; i + 1 < levels.size(); ++i) {
      if (levels[i + 1].latency < levels[i].latency * (1 + min_rise)) continue;
      TlbStep s;
      s.stride_bytes = stride;
      s.last_fast_entries = levels[i].end_x;
      s.first_slow_entries = levels[i].next_x > 0 ? levels[i].next_x : levels[i + 1].start_x;
      s.reach_bytes = s.last_fast_entries * stride;
      s.cycles_before = levels[i].latency;
      s.cycles_after = levels[i + 1].latency;
      steps.push_back(s);
    }
    out.strides.push_back(stride);
    out.steps.push_back(steps);
  }
  if (out.strides.size() < 2 || out.steps.front().empty() || out.steps.back().empty()) return out;
  const TlbStep& small = out.steps.front().front();
  const TlbStep& large = out.steps.back().front();
  if (small.last_fast_entries <= large.last_fast_entries * 1.5) {
    out.page_at_most_smallest_stride = true;
    return out;
  }
  const double page = small.reach_bytes / large.last_fast_entries;
  out.implied_page_bytes = std::exp2(std::round(std::log2(page)));
  return out;
}

}  // namespace gd
