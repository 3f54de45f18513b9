// Host side of in-kernel timing.
#pragma once
#include <span>

namespace gd {

// Written by a kernel's RegionClock (core/timing.cuh).
struct RegionTiming {
  long long start_cycle = 0;  // the SM's clock64 at begin(): comparable only within one SM
  long long cycles = 0;
  unsigned long long ns = 0;
  unsigned smid = 0;
  unsigned pad = 0;
};

// Seconds on the host's steady clock: the one clock every host-side interval uses.
double steady_now_s();

// SM clock in MHz over one or more timed regions: total cycles over total nanoseconds.
// Returns 0 when no time elapsed (globaltimer too coarse for the region).
double clock_mhz(std::span<const RegionTiming> timings);

}  // namespace gd
