#include "analysis/partition.hpp"

#include <cmath>
#include <random>
#include <stdexcept>

#include <gtest/gtest.h>

namespace gd {
namespace {

// SMs 0..n-1, the odd ones in partition B; lines homed in B when j % 3 == 0. Near 200 cycles,
// far 300, with +-10 noise.
std::vector<std::vector<double>> two_partitions(int sms, int lines, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(-10, 10);
  std::vector<std::vector<double>> lat(sms, std::vector<double>(lines));
  for (int s = 0; s < sms; ++s)
    for (int j = 0; j < lines; ++j) lat[s][j] = ((s % 2 == 1) == (j % 3 == 0) ? 200 : 300) + noise(rng);
  return lat;
}

TEST(Partition, FindsTwoGroupsTheirLinesAndNearFar) {
  const auto lat = two_partitions(16, 60, 7);
  const PartitionMap m = partition_two_way(lat);
  for (int s = 0; s < 16; ++s) EXPECT_EQ(m.sm_group[s] == m.sm_group[1], s % 2 == 1) << "SM " << s;
  for (int j = 0; j < 60; ++j) EXPECT_EQ(m.line_home[j] == m.sm_group[1], j % 3 == 0) << "line " << j;
  for (int s = 0; s < 16; ++s) {
    EXPECT_NEAR(m.near[s], 200, 10);
    EXPECT_NEAR(m.far[s], 300, 10);
  }
  EXPECT_NEAR(m.separation, 100, 10);
  EXPECT_NEAR(m.distance[0][1], 100, 10);  // one near where the other is far, on every line
  EXPECT_LT(m.distance[0][2], 15);
}

TEST(Partition, UniformMatrixIsOneGroupWithNoFarLines) {
  const std::vector<std::vector<double>> lat(4, std::vector<double>(5, 250));
  const PartitionMap m = partition_two_way(lat);
  ASSERT_EQ(m.sm_group.size(), 4u) << "one group per SM: an empty map would pass the loops vacuously";
  ASSERT_EQ(m.far.size(), 4u);
  for (int g : m.sm_group) EXPECT_EQ(g, 0);
  for (double f : m.far) EXPECT_TRUE(std::isnan(f));
  EXPECT_EQ(m.separation, 0);
}

// Both lines read faster from SM 1: they are homed in SM 1's group, SM 0 has no near line (NaN)
// and no gap, and the separation comes from the SMs that have both (here none: 0, not NaN).
TEST(Partition, SmWithoutNearLinesAddsNoGap) {
  const PartitionMap m = partition_two_way({{100, 100}, {50, 50}});
  EXPECT_NE(m.sm_group[0], m.sm_group[1]);
  EXPECT_TRUE(std::isnan(m.near[0]));
  EXPECT_EQ(m.far[0], 100);
  EXPECT_EQ(m.separation, 0);
  // The probes summarize nears() and fars(): the SM without a near line is left out, not a NaN.
  EXPECT_EQ(m.nears(), std::vector<double>{50});
  EXPECT_EQ(m.fars(), std::vector<double>{100});
}

TEST(Partition, RejectsBadInput) {
  EXPECT_THROW(partition_two_way({}), std::invalid_argument);
  EXPECT_THROW(partition_two_way({{1, 2}, {1}}), std::invalid_argument);
  EXPECT_THROW(partition_two_way({{1, NAN}}), std::invalid_argument);
}

}  // namespace
}  // namespace gd
