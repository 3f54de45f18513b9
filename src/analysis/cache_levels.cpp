#include "analysis/cache_levels.hpp"

#include <algorithm>
#include <stdexcept>

namespace gd {

namespace {

struct Series {
  std::vector<double> x, y;
};

Series select(std::span<const ChasePoint> points, bool cold) {
  Series s;
  for (const auto& p : points)
    if (p.cold == cold) {
      s.x.push_back(p.bytes);
      s.y.push_back(p.cycles);
    }
  return s;
}

CacheLevel level_from(const Plateau& p, const Series& s, std::string name) {
  CacheLevel l;
  l.name = std::move(name);
  l.cycles = p.latency;
  l.first_bytes = p.start_x;
  l.last_bytes = p.end_x;
  l.next_bytes = p.next_x;
  l.samples.assign(s.y.begin() + std::ptrdiff_t(p.first), s.y.begin() + std::ptrdiff_t(p.last) + 1);
  return l;
}

// Numbers repeated names: L2, L2 -> L2, L2.2.
void number_repeats(std::vector<CacheLevel>& levels, const std::string& base) {
  int seen = 0;
  for (auto& l : levels)
    if (l.name == base && seen++ > 0) l.name = base + "." + std::to_string(seen);
}

}  // namespace

std::vector<CacheLevel> cache_levels(std::span<const ChasePoint> points, bool l1_cached, double l2_bytes,
                                     const PlateauOptions& opts) {
  if (l2_bytes <= 0) throw std::invalid_argument("cache_levels: L2 size must be known");
  std::vector<CacheLevel> levels;
  const Series warm = select(points, false);
  const auto warm_plateaus = find_plateaus(warm.x, warm.y, opts);
  const Plateau* last_l2 = nullptr;
  for (std::size_t i = 0; i < warm_plateaus.size(); ++i) {
    const Plateau& p = warm_plateaus[i];
    if (p.start_x > l2_bytes) continue;  // past L2 while warm: a hit/miss blend
    const bool is_l1 = i == 0 && l1_cached && p.end_x < l2_bytes / 8;
    levels.push_back(level_from(p, warm, is_l1 ? "L1" : "L2"));
    if (!is_l1) last_l2 = &p;
  }
  if (last_l2) {
    // Points after the last L2 plateau that still fit in L2 yet sit clearly above it.
    CacheLevel blend;
    blend.name = "L2.far_blend";
    for (std::size_t i = last_l2->last + 1; i < warm.x.size() && warm.x[i] <= l2_bytes; ++i) {
      if (warm.y[i] <= last_l2->latency * (1 + opts.tolerance)) continue;
      if (blend.samples.empty()) blend.first_bytes = warm.x[i];
      blend.last_bytes = warm.x[i];
      blend.cycles = warm.y[i];
      blend.next_bytes = i + 1 < warm.x.size() ? warm.x[i + 1] : 0;
      blend.samples.push_back(warm.y[i]);
    }
    if (!blend.samples.empty()) levels.push_back(blend);
  }
  const Series cold = select(points, true);
  for (const Plateau& p : find_plateaus(cold.x, cold.y, opts)) levels.push_back(level_from(p, cold, "DRAM"));
  number_repeats(levels, "L2");
  number_repeats(levels, "DRAM");
  return levels;
}

}  // namespace gd
