// Throughput per SM from per-block clock readings: each SM's blocks moved so many bytes over the
// span from the first block's start to the last block's end, counted on that SM's own clock.
#pragma once
#include <span>
#include <vector>

#include "core/timing.hpp"

namespace gd {

struct SmRate {
  unsigned smid = 0;
  int blocks = 0;
  double cycles = 0;           // span of the SM's blocks
  double bytes_per_clock = 0;  // blocks x bytes_per_block / cycles
};

// One entry per SM that ran at least one block, sorted by SM id. Blocks with no elapsed cycles
// (never timed) are ignored; an SM whose span is zero is left out. Throws std::invalid_argument
// when bytes_per_block is not positive.
std::vector<SmRate> per_sm_rates(std::span<const RegionTiming> blocks, double bytes_per_block);

}  // namespace gd
