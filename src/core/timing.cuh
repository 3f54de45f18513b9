// In-kernel timing: clock64 cycles and %globaltimer nanoseconds around a timed region, so each
// measurement carries the SM clock it actually ran at.
#pragma once
#include <cstdint>

#include "core/ptx.cuh"
#include "core/timing.hpp"

namespace gd {

// Call begin() immediately before and end() immediately after the timed loop. The clock reads
// are the SASS verifier's region markers (CS2R ... SR_CLOCKLO).
struct RegionClock {
  unsigned long long g0;
  long long c0;
  __device__ __forceinline__ void begin() {
    g0 = ptx::globaltimer_ns();
    c0 = clock64();
  }
  // begin() after a region marker: this region is the one SassRegion::Marked checks. The marker
  // is issued before the clock reads, outside the time.
  __device__ __forceinline__ void begin_marked() {
    ptx::region_marker();
    begin();
  }
  __device__ __forceinline__ RegionTiming end() {
    const long long c1 = clock64();
    const unsigned long long g1 = ptx::globaltimer_ns();
    return RegionTiming{c0, c1 - c0, g1 - g0, ptx::smid(), 0};
  }
};

}  // namespace gd

namespace gd {

// For kernels timed by events (bandwidth streams): thread 0 of each block times the block's own
// work, so the run still has an SM clock read inside the measured launch. timing[] holds one
// entry per block.
struct BlockClock {
  RegionClock clock;
  __device__ __forceinline__ void begin() {
    if (threadIdx.x == 0) clock.begin();
  }
  __device__ __forceinline__ void end(RegionTiming* timing) {
    if (threadIdx.x == 0) timing[blockIdx.x] = clock.end();
  }
};

}  // namespace gd
