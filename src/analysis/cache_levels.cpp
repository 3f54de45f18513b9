#include "analysis/cache_levels.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "core/stats.hpp"

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

// A level over points [first, last] of a series; next_bytes is the point after it, if any.
CacheLevel level_over(const Series& s, std::size_t first, std::size_t last, std::string name) {
  CacheLevel l;
  l.name = std::move(name);
  l.first_bytes = s.x[first];
  l.last_bytes = s.x[last];
  l.next_bytes = last + 1 < s.x.size() ? s.x[last + 1] : 0;
  l.cycles_at_last_bytes = s.y[last];
  l.samples.assign(s.y.begin() + std::ptrdiff_t(first), s.y.begin() + std::ptrdiff_t(last) + 1);
  l.cycles = summarize(l.samples).median;
  return l;
}

// Numbers repeated names: L2, L2 -> L2, L2.2.
void number_repeats(std::vector<CacheLevel>& levels, const std::string& base) {
  int seen = 0;
  for (auto& l : levels)
    if (l.name == base && seen++ > 0) l.name = base + "." + std::to_string(seen);
}

struct WarmLevels {
  std::vector<CacheLevel> levels;
  std::optional<Plateau> last_l2;
};

// L1 and L2 plateaus of the warm curve that start inside L2.
WarmLevels warm_levels(const Series& warm, bool l1_cached, double l2_bytes, const PlateauOptions& opts) {
  WarmLevels out;
  const auto plateaus = find_plateaus(warm.x, warm.y, opts);
  for (std::size_t i = 0; i < plateaus.size(); ++i) {
    const Plateau& p = plateaus[i];
    if (p.start_x > l2_bytes) continue;  // past L2 while warm: a hit/miss blend
    const bool is_l1 = i == 0 && l1_cached && p.end_x < l2_bytes / 8;
    out.levels.push_back(level_over(warm, p.first, p.last, is_l1 ? "L1" : "L2"));
    if (!is_l1) out.last_l2 = p;
  }
  return out;
}

// The warm points after the last L2 plateau that still fit in L2 yet sit clearly above it:
// from the first such point to the last one inside L2.
std::optional<CacheLevel> far_blend(const Series& warm, const Plateau& last_l2, double l2_bytes,
                                    double tolerance) {
  std::optional<std::size_t> first, last;
  for (std::size_t i = last_l2.last + 1; i < warm.x.size() && warm.x[i] <= l2_bytes; ++i) {
    if (warm.y[i] <= last_l2.latency * (1 + tolerance)) continue;
    if (!first) first = i;
    last = i;
  }
  if (!first) return std::nullopt;
  CacheLevel blend = level_over(warm, *first, *last, "L2.far_blend");
  // Points in the span that dipped back to the plateau are not part of the blend.
  std::erase_if(blend.samples, [&](double y) { return y <= last_l2.latency * (1 + tolerance); });
  blend.cycles = summarize(blend.samples).median;
  return blend;
}

// Cold plateaus; the first starts where the warm curve left L2 (dram_from_bytes), see the header.
std::vector<CacheLevel> dram_levels(const Series& cold, double dram_from_bytes, const PlateauOptions& opts) {
  std::vector<CacheLevel> out;
  for (const Plateau& p : find_plateaus(cold.x, cold.y, opts)) {
    CacheLevel l = level_over(cold, p.first, p.last, "DRAM");
    if (out.empty()) l.first_bytes = dram_from_bytes;
    l.l2_scrubbed_from_bytes = cold.x.front();
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace

std::vector<CacheLevel> cache_levels(std::span<const ChasePoint> points, bool l1_cached, double l2_bytes,
                                     const PlateauOptions& opts) {
  if (l2_bytes <= 0) throw std::invalid_argument("cache_levels: L2 size must be known");
  const Series warm = select(points, false);
  WarmLevels warm_result = warm_levels(warm, l1_cached, l2_bytes, opts);
  std::vector<CacheLevel> levels = std::move(warm_result.levels);
  if (warm_result.last_l2)
    if (auto blend = far_blend(warm, *warm_result.last_l2, l2_bytes, opts.tolerance)) levels.push_back(*blend);
  const auto last_l2_level = std::find_if(levels.rbegin(), levels.rend(), [](const CacheLevel& l) { return l.name != "L1"; });
  const double dram_from = last_l2_level == levels.rend() ? 0 : last_l2_level->next_bytes;
  for (CacheLevel& l : dram_levels(select(points, true), dram_from, opts)) levels.push_back(std::move(l));
  number_repeats(levels, "L2");
  number_repeats(levels, "DRAM");
  return levels;
}

}  // namespace gd
