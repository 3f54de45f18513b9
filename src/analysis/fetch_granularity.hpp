// The fetch granularity of a cache level, and its line size, from first-touch and capacity
// experiments (Mei and Chu 2016; MT4G 2025).
//
// Fetch: walk data the level does not hold, sequentially at a stride of s bytes, each address once.
// A miss brings in G bytes, so a share min(1, s / G) of the loads miss and the mean latency rises
// linearly with s until s = G, then stays flat. Two levels missed together (a constant L1 filled
// from a constant L1.5 that itself misses) add two such ramps; the G's whose model fits the
// curve best are the levels' fetch granularities.
//
// Line: a cache tags lines of L bytes. A capacity sweep whose pointers lie s bytes apart fills
// the cache at the same footprint for every s <= L (each line holds one or more pointers), and at
// footprint x s / L for s > L (each line holds one pointer and s - L bytes are never cached). The
// largest stride whose knee has not moved is the line size.
#pragma once
#include <span>
#include <string>
#include <vector>

namespace gd {

struct FetchPoint {
  double stride = 0;   // bytes between consecutive first-touch loads
  double latency = 0;  // mean time per load, any unit
};

struct FetchLevel {
  double granularity = 0;  // bytes a miss brings in
  double miss_cost = 0;    // latency added when every load misses this level
};

struct FetchGranularity {
  bool found = false;
  std::vector<FetchLevel> levels;  // ascending granularity: one, or two for a two-level miss
  double hit_latency = 0;          // the fitted latency of a load that misses nothing
  double rms_log_error = 0;        // of the chosen model
  // Share of leave-one-out refits that choose the same granularities: 1 when no single point
  // decides the answer.
  double confidence = 0;
  std::string note;
};

// points in any order (strides positive, latencies positive, at least 4 distinct strides);
// candidates: the granularities considered (bytes). Throws std::invalid_argument on bad input.
// A curve whose rise is under min_rise of its hit latency has no granularity (found = false).
// max_levels (1 or 2): how many levels the experiment can have missed at once.
FetchGranularity fetch_granularity(std::span<const FetchPoint> points, std::span<const double> candidates,
                                   double min_rise = 0.10, int max_levels = 2);

struct KneeAtStride {
  double stride = 0;  // bytes between the sweep's pointers
  double knee = 0;    // the footprint where the capacity sweep at that stride steps up (bytes)
};

struct LineSize {
  bool found = false;
  double line = 0;  // bytes
  std::vector<double> ratios;  // each stride's knee over the smallest stride's
  std::string note;
};

// knees ascending in stride, at least 2. The line is the largest stride whose knee is within
// sqrt(2) of the smallest stride's, provided a larger stride's knee moved by about stride / line
// (within sqrt(2)); otherwise not found, with the reason. Throws std::invalid_argument on bad input.
LineSize line_from_knees(std::span<const KneeAtStride> knees);

}  // namespace gd
