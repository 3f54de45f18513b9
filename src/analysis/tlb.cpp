#include "analysis/tlb.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "analysis/plateaus.hpp"

namespace gd {

namespace {

double pow2_round(double v) { return std::exp2(std::round(std::log2(v))); }
bool within(double a, double b, double factor) { return a <= b * factor && b <= a * factor; }

// The steps of one stride's curve (points ascending in entries).
std::vector<TlbStep> steps_of(double stride, const std::vector<TlbPoint>& pts, double min_rise) {
  std::vector<double> x, y;
  for (const TlbPoint& p : pts) {
    x.push_back(p.entries);
    y.push_back(p.cycles);
  }
  PlateauOptions opts;
  opts.tolerance = 0.05;
  opts.min_points = 2;
  opts.merge_tolerance = min_rise * 0.8;
  std::vector<TlbStep> steps;
  const std::vector<Plateau> levels = x.size() >= 2 ? find_plateaus(x, y, opts) : std::vector<Plateau>{};
  const auto step = [&](const Plateau& fast, double first_slow, double after) {
    TlbStep s;
    s.stride_bytes = stride;
    s.last_fast_entries = fast.end_x;
    s.first_slow_entries = first_slow;
    s.reach_bytes = s.last_fast_entries * stride;
    s.cycles_before = fast.latency;
    s.cycles_after = after;
    return s;
  };
  for (std::size_t i = 0; i + 1 < levels.size(); ++i) {
    if (levels[i + 1].latency < levels[i].latency * (1 + min_rise)) continue;
    steps.push_back(step(levels[i], levels[i].next_x > 0 ? levels[i].next_x : levels[i + 1].start_x, levels[i + 1].latency));
  }
  // A rise after the last plateau, too short to be a plateau of its own.
  if (!levels.empty() && levels.back().last + 1 < y.size()) {
    const Plateau& last = levels.back();
    const double threshold = last.latency * (1 + min_rise);
    if (y.back() > threshold) {
      std::size_t k = last.last + 1;
      while (y[k] <= threshold) ++k;
      TlbStep s = step(last, x[k], *std::max_element(y.begin() + std::ptrdiff_t(k), y.end()));
      s.open_ended = true;
      steps.push_back(s);
    }
  }
  return steps;
}

}  // namespace

TlbReach tlb_reach(std::span<const TlbPoint> points, double min_rise) {
  std::map<double, std::vector<TlbPoint>> by_stride;
  for (const TlbPoint& p : points) {
    if (!(p.stride_bytes > 0) || !(p.entries > 0) || !(p.cycles > 0) || !std::isfinite(p.cycles) ||
        !std::isfinite(p.entries) || !std::isfinite(p.stride_bytes))
      throw std::invalid_argument("tlb_reach: stride, entries and cycles must be positive and finite");
    by_stride[p.stride_bytes].push_back(p);
  }
  TlbReach out;
  for (auto& [stride, pts] : by_stride) {
    std::sort(pts.begin(), pts.end(), [](const TlbPoint& a, const TlbPoint& b) { return a.entries < b.entries; });
    out.strides.push_back(stride);
    out.max_entries.push_back(pts.back().entries);
    out.max_span_bytes.push_back(pts.back().entries * stride);
    out.steps.push_back(steps_of(stride, pts, min_rise));
  }

  // Levels: the stride with the most steps (the largest among equals) names them; a step of
  // another stride is that level's when it starts from the same latency.
  std::size_t ref = 0;
  for (std::size_t i = 0; i < out.steps.size(); ++i)
    if (out.steps[i].size() >= out.steps[ref].size()) ref = i;
  if (out.steps.empty() || out.steps[ref].empty()) return out;
  const double same = 1 + min_rise * 0.8;
  for (const TlbStep& lead : out.steps[ref]) {
    // Per stride (ascending), the step of this level, if it shows there.
    std::vector<const TlbStep*> seen;
    for (const auto& steps : out.steps)
      for (const TlbStep& s : steps)
        if (within(s.cycles_before, lead.cycles_before, same)) {
          seen.push_back(&s);
          break;
        }
    TlbLevel level;
    level.cycles_before = seen.back()->cycles_before;
    level.cycles_after = seen.back()->cycles_after;
    level.largest_stride_bytes = seen.back()->stride_bytes;

    // The page size, from the first level: line counts equal from some stride upward (those
    // strides are at or above the page), spans in bytes equal below it.
    if (out.levels.empty() && seen.size() >= 2) {
      const double top = seen.back()->last_fast_entries;
      std::size_t j = seen.size() - 1;
      while (j > 0 && within(seen[j - 1]->last_fast_entries, top, 1.5)) --j;
      const bool bytes_agree = std::all_of(seen.begin(), seen.end(), [&](const TlbStep* s) {
        return within(s->reach_bytes, seen.back()->reach_bytes, 1.5);
      });
      if (j == 0) {
        out.page_at_most_smallest_stride = true;
        out.page_upper_bytes = seen.front()->stride_bytes;
      } else if (j == seen.size() - 1 && bytes_agree) {
        out.page_above_largest_stride = true;
        out.page_lower_bytes = seen.back()->stride_bytes;
        // A larger stride that spanned past where the level runs out without stepping held its
        // lines in fewer entries than the level has: it is at or above the page, so the page is
        // below the level's reach over that stride's line count.
        const double slow_span = seen.back()->first_slow_entries * seen.back()->stride_bytes;
        for (std::size_t i = 0; i < out.strides.size(); ++i) {
          const bool steps_here = std::any_of(out.steps[i].begin(), out.steps[i].end(), [&](const TlbStep& s) {
            return within(s.cycles_before, lead.cycles_before, same);
          });
          if (out.strides[i] <= seen.back()->stride_bytes || steps_here || out.max_span_bytes[i] < slow_span) continue;
          const double upper = slow_span / out.max_entries[i];
          if (upper > out.page_lower_bytes && (out.page_upper_bytes == 0 || upper < out.page_upper_bytes))
            out.page_upper_bytes = upper;
        }
      } else {
        out.implied_page_bytes = pow2_round(seen[j - 1]->reach_bytes / top);
        out.page_lower_bytes = seen[j - 1]->stride_bytes;
        out.page_upper_bytes = seen[j]->stride_bytes;
      }
    }
    if (out.implied_page_bytes > 0 && level.largest_stride_bytes >= out.implied_page_bytes) {
      level.entries = seen.back()->last_fast_entries;
      level.coverage_bytes = level.entries * out.implied_page_bytes;
    } else if (out.page_above_largest_stride) {
      level.coverage_bytes = seen.back()->reach_bytes;
    } else if (out.page_at_most_smallest_stride) {
      level.entries = seen.back()->last_fast_entries;
    }
    out.levels.push_back(level);
  }
  return out;
}

}  // namespace gd
