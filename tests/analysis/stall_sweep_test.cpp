#include "analysis/stall_sweep.hpp"

#include <gtest/gtest.h>

namespace gd {
namespace {

// The H200's FFMA sweep: wrong below 4, stall 0 behaves as a wait (right, 32 cycles).
std::vector<StallTrial> h200_like_stalls() {
  return {{0, true, 0, 32.9}, {1, true, 32, 2.0}, {2, true, 32, 2.0}, {3, true, 32, 3.0},
          {4, true, 0, 4.0},  {5, true, 0, 5.0},  {6, true, 0, 6.0},  {8, true, 0, 8.0}};
}

TEST(StallThreshold, SmallestStallFromWhichEveryLargerOneIsRight) {
  EXPECT_EQ(stall_threshold(h200_like_stalls()), 4) << "stall 0 being right does not make the threshold 0";
  auto shuffled = h200_like_stalls();
  std::swap(shuffled[0], shuffled[6]);
  EXPECT_EQ(stall_threshold(shuffled), 4) << "order of trials does not matter";
  auto top_wrong = h200_like_stalls();
  top_wrong.back().wrong_lanes = 1;
  EXPECT_EQ(stall_threshold(top_wrong), -1);
  auto crashed = h200_like_stalls();
  crashed[5].completed = false;
  EXPECT_EQ(stall_threshold(crashed), 6) << "a launch that did not complete is not right";
  EXPECT_EQ(stall_threshold({}), -1);
}

TEST(PatchEffect, CorruptedResultsBelowTheCompilersStallProveIt) {
  const PatchEffect e = patch_effect(h200_like_stalls(), 4);
  EXPECT_TRUE(e.took);
  EXPECT_NE(e.evidence.find("stall 1 gave wrong results in 32 lanes"), std::string::npos) << e.evidence;
}

TEST(PatchEffect, TimingThatFollowsTheStallProvesIt) {
  std::vector<StallTrial> t = {{2, true, 0, 4.0}, {4, true, 0, 4.0}, {8, true, 0, 8.0}};
  const PatchEffect e = patch_effect(t, 4);
  EXPECT_TRUE(e.took) << e.evidence;
}

// The bug this guards: a patch the chip never saw (every stall right, timing flat) was recorded
// as threshold 0 and ok.
TEST(PatchEffect, AnIgnoredPatchIsNoEffect) {
  std::vector<StallTrial> t = {{0, true, 0, 4.0}, {1, true, 0, 4.0}, {4, true, 0, 4.0}, {8, true, 0, 4.01}};
  const PatchEffect e = patch_effect(t, 4);
  EXPECT_FALSE(e.took);
  EXPECT_NE(e.evidence.find("changed cycles per step by 0.01"), std::string::npos) << e.evidence;
  EXPECT_FALSE(patch_effect({{4, true, 0, 4.0}}, 4).took) << "nothing to compare";
}

}  // namespace
}  // namespace gd
