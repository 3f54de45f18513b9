#include "analysis/granularity.hpp"

#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

std::vector<StridePoint> curve(double unit, double rate, double noise, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> jitter(1 - noise, 1 + noise);
  std::vector<StridePoint> pts;
  for (double s = 4; s <= 256; s *= 2) pts.push_back({s, rate * 128 / bytes_moved_per_warp(s, unit) * jitter(rng)});
  return pts;
}

TEST(Granularity, BytesMovedRoundUpToUnitsAndSaturate) {
  EXPECT_EQ(bytes_moved_per_warp(4, 32), 128);
  EXPECT_EQ(bytes_moved_per_warp(8, 32), 256);
  EXPECT_EQ(bytes_moved_per_warp(32, 32), 1024);
  EXPECT_EQ(bytes_moved_per_warp(256, 32), 1024);
  EXPECT_EQ(bytes_moved_per_warp(4, 128), 128);
  EXPECT_EQ(bytes_moved_per_warp(64, 128), 2048);
  EXPECT_EQ(bytes_moved_per_warp(256, 128), 4096);
}

TEST(Granularity, RecoversTheUnitTheCurveWasMadeWith) {
  const std::vector<double> candidates{32, 64, 128};
  for (double unit : candidates) {
    const Granularity g = access_granularity(curve(unit, 64, 0.03, unsigned(unit)), candidates);
    EXPECT_EQ(g.unit_bytes, unit);
    EXPECT_NEAR(g.transfer_rate, 64, 4);
  }
}

TEST(Granularity, RejectsTooFewOrBadPoints) {
  const std::vector<double> candidates{32};
  const std::vector<StridePoint> two{{4, 1}, {8, 1}};
  EXPECT_THROW(access_granularity(two, candidates), std::invalid_argument);
  const std::vector<StridePoint> zero{{4, 1}, {8, 0}, {16, 1}};
  EXPECT_THROW(access_granularity(zero, candidates), std::invalid_argument);
}

}  // namespace
}  // namespace gd
