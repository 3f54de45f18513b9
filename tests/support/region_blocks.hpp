// Timed blocks as the kernels' clock reads would report them, for the per-SM rate tests.
#pragma once
#include "core/timing.hpp"

namespace gd::test_support {

// A block on SM `sm` that started at cycle `start` and ran `cycles`.
inline RegionTiming block(unsigned sm, long long start, long long cycles) { return RegionTiming{start, cycles, 0, sm, 0}; }

}  // namespace gd::test_support
