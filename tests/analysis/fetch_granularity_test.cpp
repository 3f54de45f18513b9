#include "analysis/fetch_granularity.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

const std::vector<double> kFirstTouchStrides = {4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512};
const std::vector<double> kGranularityCandidates = {8, 16, 32, 64, 128, 256, 512};

// A synthetic first-touch walk: each level misses on a share min(1, s / G) of the loads, plus a
// deterministic wobble of +-1 % so no fit is exact.
std::vector<FetchPoint> first_touch_walk(double hit, std::vector<FetchLevel> levels) {
  std::vector<FetchPoint> pts;
  int i = 0;
  for (double s : kFirstTouchStrides) {
    double lat = hit;
    for (const FetchLevel& l : levels) lat += l.miss_cost * std::min(1.0, s / l.granularity);
    pts.push_back({s, lat * (1 + 0.01 * ((i++ % 3) - 1))});
  }
  return pts;
}

TEST(FetchGranularity, OneLevelSectorIsFound) {
  const FetchGranularity g = fetch_granularity(first_touch_walk(40, {{32, 220}}), kGranularityCandidates);
  ASSERT_TRUE(g.found) << g.note;
  ASSERT_EQ(g.levels.size(), 1u);
  EXPECT_EQ(g.levels[0].granularity, 32);
  EXPECT_NEAR(g.levels[0].miss_cost, 220, 10);
  EXPECT_NEAR(g.hit_latency, 40, 3);
  EXPECT_GT(g.confidence, 0.9);
}

TEST(FetchGranularity, TwoLevelsMissedTogetherAreSeparated) {
  // A constant L1 of 64-byte lines filled from an L1.5 that fetches 256 bytes.
  const FetchGranularity g = fetch_granularity(first_touch_walk(20, {{64, 80}, {256, 200}}), kGranularityCandidates);
  ASSERT_TRUE(g.found) << g.note;
  ASSERT_EQ(g.levels.size(), 2u);
  EXPECT_EQ(g.levels[0].granularity, 64);
  EXPECT_EQ(g.levels[1].granularity, 256);
}

TEST(FetchGranularity, OneLevelIsNotSplitIntoTwo) {
  const FetchGranularity g = fetch_granularity(first_touch_walk(40, {{128, 300}}), kGranularityCandidates);
  ASSERT_TRUE(g.found);
  ASSERT_EQ(g.levels.size(), 1u);
  EXPECT_EQ(g.levels[0].granularity, 128);
}

TEST(FetchGranularity, OneLevelAllowedKeepsTheNearerGranularity) {
  // Where only one level can be cold (L1 filled from a warm L2), a second ramp is not a level.
  const FetchGranularity g = fetch_granularity(first_touch_walk(20, {{64, 80}, {256, 200}}), kGranularityCandidates, 0.10, 1);
  ASSERT_TRUE(g.found);
  ASSERT_EQ(g.levels.size(), 1u);
}

TEST(FetchGranularity, FlatCurveHasNoGranularity) {
  const FetchGranularity g = fetch_granularity(first_touch_walk(40, {}), kGranularityCandidates);
  EXPECT_FALSE(g.found);
  EXPECT_TRUE(g.levels.empty());
  EXPECT_FALSE(g.note.empty());
}

TEST(FetchGranularity, BadInputThrows) {
  std::vector<FetchPoint> few = {{4, 1}, {8, 2}, {16, 3}};
  EXPECT_THROW(fetch_granularity(few, kGranularityCandidates), std::invalid_argument);
  std::vector<FetchPoint> bad = first_touch_walk(40, {{32, 100}});
  bad[2].latency = -1;
  EXPECT_THROW(fetch_granularity(bad, kGranularityCandidates), std::invalid_argument);
  EXPECT_THROW(fetch_granularity(first_touch_walk(40, {{32, 100}}), std::vector<double>{}), std::invalid_argument);
}

TEST(LineFromKnees, KneeMovesPastTheLine) {
  const std::vector<KneeAtStride> knees = {{32, 240e3}, {64, 236e3}, {128, 244e3}, {256, 480e3}, {512, 950e3}};
  const LineSize l = line_from_knees(knees);
  ASSERT_TRUE(l.found) << l.note;
  EXPECT_EQ(l.line, 128);
  EXPECT_NEAR(l.ratios[3], 2.0, 0.05);
}

TEST(LineFromKnees, KneeThatNeverMovesGivesNoLine) {
  const std::vector<KneeAtStride> knees = {{32, 240e3}, {64, 240e3}, {128, 240e3}, {256, 240e3}};
  const LineSize l = line_from_knees(knees);
  EXPECT_FALSE(l.found);
  EXPECT_NE(l.note.find("at least"), std::string::npos);
}

TEST(LineFromKnees, KneeOutOfProportionGivesNoLine) {
  const std::vector<KneeAtStride> knees = {{32, 240e3}, {64, 240e3}, {128, 1900e3}};
  EXPECT_FALSE(line_from_knees(knees).found);
}

TEST(LineFromKnees, BadInputThrows) {
  EXPECT_THROW(line_from_knees(std::vector<KneeAtStride>{{32, 1}}), std::invalid_argument);
  EXPECT_THROW(line_from_knees(std::vector<KneeAtStride>{{64, 1}, {32, 1}}), std::invalid_argument);
  EXPECT_THROW(line_from_knees(std::vector<KneeAtStride>{{32, 1}, {64, 0}}), std::invalid_argument);
}

}  // namespace
}  // namespace gd
