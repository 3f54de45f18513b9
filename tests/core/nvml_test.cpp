// NVML's throttle counters are cumulative: a point was throttled by the reasons whose counters
// advanced while it ran. (Reading them needs a driver; the difference is pure.)
#include "core/nvml.hpp"

#include <gtest/gtest.h>

namespace gd {
namespace {

TEST(Throttle, OnlyCountersThatAdvancedNameALimiter) {
  const ThrottleCounters before = {{"power_cap", 100}, {"sw_thermal", 7}, {"sync_boost", 0}};
  const ThrottleCounters after = {{"power_cap", 250}, {"sw_thermal", 7}, {"sync_boost", 0}, {"hw_thermal", 9}};
  const ThrottleCounters held = throttle_between(before, after);
  ASSERT_EQ(held.size(), 1u) << "a reason missing before is not known to have advanced";
  EXPECT_EQ(held.at("power_cap"), 150u);
  EXPECT_TRUE(throttle_between(after, after).empty());
  EXPECT_TRUE(throttle_between(after, before).empty()) << "a counter that went back (reset) is not throttling";
}

TEST(Throttle, WithoutADriverTheCountersAreUnknownNotZero) {
  if (read_throttle_counters("00000000:00:00.0")) GTEST_SKIP() << "this machine has NVML";
  EXPECT_FALSE(read_throttle_counters("00000000:00:00.0").has_value());
}

}  // namespace
}  // namespace gd
