// Names the levels of a memory hierarchy from a pointer-chase sweep: L1, L2 (and, where the
// latency climbs before L2 is full, the far-partition blend), DRAM.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "analysis/plateaus.hpp"

namespace gd {

struct ChasePoint {
  double bytes = 0;    // working set
  double cycles = 0;   // latency per load
  bool cold = false;   // L2 scrubbed before the chase: every load an L2 miss
};

struct CacheLevel {
  std::string name;               // "L1", "L2", "L2.2", "L2.far_blend", "DRAM", "DRAM.2"
  double cycles = 0;              // median latency on the level (the last point for a blend)
  double first_bytes = 0, last_bytes = 0;
  double next_bytes = 0;          // first working set past the level (0 if none)
  std::vector<double> samples;    // the latencies of the points on the level
};

// Warm points (sorted by bytes) give L1 and L2; cold points give DRAM. A warm plateau that starts
// past the L2 capacity is a hit/miss blend, not a level, and is left out. If warm points up to
// the L2 capacity climb above the last L2 plateau (Hopper: data homed in the far L2 partition),
// they are reported as "L2.far_blend" with the latency at the largest such working set.
std::vector<CacheLevel> cache_levels(std::span<const ChasePoint> points, bool l1_cached, double l2_bytes,
                                     const PlateauOptions& opts = {});

}  // namespace gd
