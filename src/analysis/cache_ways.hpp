// A cache's ways and replacement policy from the classic conflict experiments (Mei and Chu 2016,
// Jia et al. 2018): walk N lines that map to one set, cyclically, and time an access. Up to the
// number of ways every access hits; one line more and, under LRU or FIFO, every access misses
// (each line is evicted just before it is needed again), while random or pseudo-LRU replacement
// keeps some hits. The re-reference experiment then tells LRU from FIFO: fill the set, touch the
// first line again, bring in one new line, and ask whether the first line survived.
#pragma once
#include <span>
#include <string>
#include <vector>

namespace gd {

struct ConflictPoint {
  double lines = 0;    // same-set lines in the cyclic walk
  double latency = 0;  // time per access, any unit
};

struct Ways {
  bool found = false;
  int ways = 0;              // the longest walk whose accesses still hit
  double hit_latency = 0, miss_latency = 0;
  double miss_share_next = 0;  // of a walk one line longer than the ways: (latency - hit) / (miss - hit)
  bool next_measured = false;  // the sweep had that walk (else the policy is not judged)
  std::string policy;        // "lru-like", "not-lru", or "" when not judged
  double confidence = 0;     // of the step from hits to misses (analysis/change_point's permutation test)
  std::string note;          // how it was read, or why nothing was found
};

// points ascending in lines. Throws std::invalid_argument on unsorted or non-finite input.
Ways infer_ways(std::span<const ConflictPoint> points);

// The same walk at several distances between its lines. Below the set stride the lines spread
// over several sets and more of them fit; from the set stride on they share one set and the
// ways found stop changing. The set stride is the smallest distance of that plateau; it takes two
// distances agreeing to call it one (a plateau of one distance is only a bound).
struct DistanceWays {
  double distance = 0;  // bytes between the walk's lines
  Ways ways;
};

struct SetGeometry {
  bool found = false;
  int ways = 0;
  double set_stride = 0;      // bytes: sets x line
  const Ways* at = nullptr;   // the plateau's first distance (its hit/miss latencies and policy)
  std::string note;
};

// distances ascending. Throws std::invalid_argument when unsorted.
SetGeometry infer_set_geometry(std::span<const DistanceWays> sweeps);

struct Rereference {
  int kept = 0, trials = 0;  // trials in which the re-touched first line was still cached
  std::string policy;        // "lru", "fifo" or "neither" (random or another policy)
  double confidence = 0;     // 1 - the chance of a verdict this lopsided from a coin (binomial, p = 1/2)
};

// kept of trials; throws std::invalid_argument unless 0 <= kept <= trials and trials > 0.
Rereference infer_rereference(int kept, int trials);

// Which of n agents (an SM's sub-partitions, say) load through one cache: agent w warmed lines and
// agent t timed a lap of them, cycles[w * n + t] per load (the diagonal unused). A lap nearer
// `own` (an agent's second lap of its own lines: a hit) than `cold` (nothing warmed: a miss) means
// t found w's lines, and joins the two. The caches are the groups so joined.
struct CacheSharing {
  std::vector<std::vector<int>> groups;  // each ascending, ordered by their first agent
  int asymmetric = 0;                    // pairs found one way only (noise, or a one-way path)
  std::string note;
};

// Throws std::invalid_argument unless n >= 2, cycles holds n * n finite values and cold > own.
CacheSharing sharing_groups(int n, std::span<const double> cycles, double own, double cold);

// A footprint too large for one table, walked as several tables at once (the constant L1.5: a
// module declares at most 64 KiB of constant data). `bytes` at `stride` is bytes / stride lines,
// rounded down to whole groups of `group` (the walk is unrolled by `group`), split over as few
// tables as hold them (a table holds the whole groups that fit in `table_bytes`), with line counts
// that differ by at most one group. Returns the lines per table. Throws std::invalid_argument
// unless stride, group and max_tables are positive, a table and the footprint each hold at least
// one group, and at most max_tables tables are needed.
std::vector<int> split_over_tables(long long bytes, long long stride, int group, long long table_bytes, int max_tables);

}  // namespace gd
