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
  double cycles = 0;              // median latency of the level's points (samples)
  double first_bytes = 0;         // smallest working set the level serves (see DRAM below); 0: unknown
  double last_bytes = 0;          // largest working set measured on the level
  double next_bytes = 0;          // first working set past the level (0 if none)
  double cycles_at_last_bytes = 0;  // latency at last_bytes: for a blend, its worst case inside L2
  // Levels measured on cold points (DRAM): the smallest cold working set of the sweep, i.e. where
  // the probe chose to start scrubbing L2. A setting of the probe, not a property of the chip.
  // 0 for warm levels.
  double l2_scrubbed_from_bytes = 0;
  std::vector<double> samples;    // the latencies of the points on the level
};

// Warm points (sorted by bytes) give L1 and L2; cold points give DRAM. A warm plateau that starts
// past the L2 capacity is a hit/miss blend, not a level, and is left out. If warm points up to
// the L2 capacity climb above the last L2 plateau (Hopper: data homed in the far L2 partition),
// they are reported as "L2.far_blend": its cycles are the median of those points like any
// level's, and cycles_at_last_bytes is the latency at the largest of them.
//
// Where DRAM begins is read from the warm curve, not from the cold points: the cold points start
// wherever the probe switched to scrubbing L2 (a multiple of the L2 size it chose), so their first
// size says nothing about the chip. The first DRAM level's first_bytes is therefore the first warm
// working set past the last L2 level (that level's next_bytes): the size at which the warm
// latency leaves every L2 level and loads begin to go to DRAM. It is 0 when the warm curve never
// leaves L2 (no warm point past it) or there are no warm L2 levels. Its cycles are still those of
// the cold plateau, and l2_scrubbed_from_bytes says from which size the points were scrubbed. A
// further cold plateau (DRAM.2, e.g. a TLB reach) starts where the cold data shows it does.
std::vector<CacheLevel> cache_levels(std::span<const ChasePoint> points, bool l1_cached, double l2_bytes,
                                     const PlateauOptions& opts = {});

}  // namespace gd
