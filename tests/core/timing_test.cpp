// clock_mhz turns the timed regions every latency goes through into the SM clock it ran at.
#include "core/timing.hpp"

#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

RegionTiming region(long long cycles, unsigned long long ns) {
  RegionTiming t;
  t.cycles = cycles;
  t.ns = ns;
  return t;
}

TEST(ClockMhz, NoRegionsIsZero) { EXPECT_EQ(clock_mhz({}), 0.0); }

TEST(ClockMhz, NoElapsedTimeIsZeroNotInfinity) {
  // %globaltimer ticks coarser than a short region: cycles passed, nanoseconds did not.
  const std::vector<RegionTiming> t = {region(1000, 0), region(2000, 0)};
  EXPECT_EQ(clock_mhz(t), 0.0);
}

TEST(ClockMhz, OneRegionIsCyclesPerMicrosecond) {
  const std::vector<RegionTiming> t = {region(1980, 1000)};
  EXPECT_DOUBLE_EQ(clock_mhz(t), 1980.0);
}

TEST(ClockMhz, SeveralRegionsAreTotalledNotAveraged) {
  // 1000 MHz over 1 us and 3000 MHz over 2 us: 7000 cycles in 3 us is 2333.3 MHz; the mean of
  // the two rates (2000) would weigh a short region as much as a long one.
  const std::vector<RegionTiming> t = {region(1000, 1000), region(6000, 2000)};
  EXPECT_NEAR(clock_mhz(t), 7000.0 / 3.0, 1e-9);
}

TEST(ClockMhz, AZeroTimeRegionStillCountsItsCycles) {
  const std::vector<RegionTiming> t = {region(500, 0), region(1500, 1000)};
  EXPECT_DOUBLE_EQ(clock_mhz(t), 2000.0);
}

}  // namespace
}  // namespace gd
