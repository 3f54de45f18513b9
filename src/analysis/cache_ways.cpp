#include "analysis/cache_ways.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "analysis/change_point.hpp"

namespace gd {
namespace {

// A walk one line past the ways that misses at least this share of its accesses thrashes the set.
constexpr double kThrashShare = 0.9;
// The re-reference verdicts: the first line kept (LRU) or lost (FIFO) in at least this share.
constexpr double kVerdictShare = 0.9;

// P(X >= k) for X ~ Binomial(n, p).
double upper_tail(int k, int n, double p) {
  double sum = 0;
  for (int i = std::max(0, k); i <= n; ++i)
    sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + i * std::log(p) +
                    (n - i) * std::log1p(-p));
  return std::min(1.0, sum);
}

}  // namespace

Ways infer_ways(std::span<const ConflictPoint> points) {
  std::vector<double> x, y;
  for (const ConflictPoint& p : points) {
    x.push_back(p.lines);
    y.push_back(p.latency);
  }
  Ways w;
  const ChangePoints steps = find_change_points(x, y);  // throws on bad input
  if (!steps.found()) {
    w.note = "no step from hits to misses up to " + std::to_string(int(x.empty() ? 0 : x.back())) +
             " lines (" + steps.note + "): the lines may not share a set, or the ways exceed the sweep";
    return w;
  }
  const ChangePoint& s = steps.steps.front();
  w.found = true;
  w.ways = int(std::lround(s.last_before));
  w.hit_latency = s.before;
  w.miss_latency = *std::max_element(y.begin() + std::ptrdiff_t(s.lower_end) + 1, y.end());
  w.confidence = s.confidence;
  const auto next = std::find(x.begin(), x.end(), double(w.ways + 1));
  w.next_measured = next != x.end();
  if (!w.next_measured) {
    w.note = "the sweep has no walk of " + std::to_string(w.ways + 1) + " lines: the policy is not judged";
    return w;
  }
  const double span = w.miss_latency - w.hit_latency;
  w.miss_share_next = std::clamp((y[std::size_t(next - x.begin())] - w.hit_latency) / span, 0.0, 1.0);
  w.policy = w.miss_share_next >= kThrashShare ? "lru-like" : "not-lru";
  w.note = w.policy == "lru-like"
               ? "a cyclic walk of ways + 1 lines misses on every access: LRU or FIFO (the re-reference test tells them apart)"
               : "a cyclic walk of ways + 1 lines still hits on some accesses: random, pseudo-LRU or an adaptive policy";
  return w;
}

Rereference infer_rereference(int kept, int trials) {
  if (trials <= 0 || kept < 0 || kept > trials)
    throw std::invalid_argument("re-reference: kept must be within 0.." + std::to_string(trials) + " of a positive trial count");
  Rereference r;
  r.kept = kept;
  r.trials = trials;
  const double share = double(kept) / trials;
  if (share >= kVerdictShare) {
    r.policy = "lru";
    r.confidence = 1 - upper_tail(kept, trials, 0.5);
  } else if (share <= 1 - kVerdictShare) {
    r.policy = "fifo";
    r.confidence = 1 - upper_tail(trials - kept, trials, 0.5);
  } else {
    // How unlikely this count is from a cache that keeps (LRU) or loses (FIFO) the line 95 % of the time.
    r.policy = "neither";
    r.confidence = 1 - std::max(1 - upper_tail(kept + 1, trials, 0.95), upper_tail(kept, trials, 0.05));
  }
  return r;
}

SetGeometry infer_set_geometry(std::span<const DistanceWays> sweeps) {
  for (std::size_t i = 1; i < sweeps.size(); ++i)
    if (!(sweeps[i].distance > sweeps[i - 1].distance))
      throw std::invalid_argument("set geometry: distances must ascend");
  SetGeometry g;
  if (sweeps.empty() || !sweeps.back().ways.found) {
    g.note = "the largest distance made no lines conflict within the walk: a hashed set index, or more ways than the walk";
    return g;
  }
  const int plateau = sweeps.back().ways.ways;
  std::size_t first = sweeps.size() - 1;
  while (first > 0 && sweeps[first - 1].ways.found && sweeps[first - 1].ways.ways == plateau) --first;
  if (first + 1 == sweeps.size()) {
    g.note = "only the largest distance found " + std::to_string(plateau) +
             " ways: the set stride may be larger still, so this is an upper bound on the ways";
    return g;
  }
  g.found = true;
  g.ways = plateau;
  g.set_stride = sweeps[first].distance;
  g.at = &sweeps[first].ways;
  g.note = "lines " + std::to_string(int(g.set_stride)) + " B apart and farther share a set of " + std::to_string(plateau) + " ways";
  return g;
}

CacheSharing sharing_groups(int n, std::span<const double> cycles, double own, double cold) {
  if (n < 2) throw std::invalid_argument("cache sharing: needs at least 2 agents");
  if (cycles.size() != std::size_t(n) * std::size_t(n)) throw std::invalid_argument("cache sharing: needs n x n laps");
  if (!std::isfinite(own) || !std::isfinite(cold) || !(cold > own))
    throw std::invalid_argument("cache sharing: a miss (cold) must take longer than a hit (own)");
  const auto at = [&](int w, int t) { return cycles[std::size_t(w) * std::size_t(n) + std::size_t(t)]; };
  for (int w = 0; w < n; ++w)
    for (int t = 0; t < n; ++t)
      if (w != t && !std::isfinite(at(w, t))) throw std::invalid_argument("cache sharing: laps must be finite");
  const auto found = [&](int w, int t) { return at(w, t) < (own + cold) / 2; };
  std::vector<int> group(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) group[std::size_t(k)] = k;
  const auto root = [&](int k) {
    while (group[std::size_t(k)] != k) k = group[std::size_t(k)];
    return k;
  };
  CacheSharing out;
  for (int w = 0; w < n; ++w)
    for (int t = w + 1; t < n; ++t) {
      const bool there = found(w, t), back = found(t, w);
      if (there != back) ++out.asymmetric;
      if (there || back) group[std::size_t(root(w))] = root(t);
    }
  for (int k = 0; k < n; ++k) {
    if (root(k) != k) continue;
    std::vector<int> members;
    for (int m = 0; m < n; ++m)
      if (root(m) == k) members.push_back(m);
    out.groups.push_back(members);
  }
  std::sort(out.groups.begin(), out.groups.end());
  out.note = std::to_string(out.groups.size()) + (out.groups.size() == 1 ? " cache" : " caches") + " among " +
             std::to_string(n) + " agents";
  if (out.asymmetric)
    out.note += "; " + std::to_string(out.asymmetric) + " pair(s) found each other's lines one way only";
  return out;
}

std::vector<int> split_over_tables(long long bytes, long long stride, int group, long long table_bytes, int max_tables) {
  if (stride <= 0 || group <= 0 || max_tables <= 0)
    throw std::invalid_argument("split_over_tables: stride, group and max_tables must be positive");
  const long long unit = stride * group;
  const long long per_table = table_bytes / unit, groups = bytes / unit;  // whole groups
  if (per_table < 1) throw std::invalid_argument("split_over_tables: a table holds no whole group of lines");
  if (groups < 1)
    throw std::invalid_argument("split_over_tables: " + std::to_string(bytes) + " bytes hold no whole group of " +
                                std::to_string(group) + " lines of " + std::to_string(stride) + " B");
  const long long tables = (groups + per_table - 1) / per_table;
  if (tables > max_tables)
    throw std::invalid_argument("split_over_tables: " + std::to_string(bytes) + " bytes at a " + std::to_string(stride) +
                                " B stride need " + std::to_string(tables) + " tables of " + std::to_string(table_bytes) +
                                " B; at most " + std::to_string(max_tables));
  std::vector<int> lines;
  for (long long t = 0; t < tables; ++t) lines.push_back(int((groups / tables + (t < groups % tables)) * group));
  return lines;
}

}  // namespace gd
