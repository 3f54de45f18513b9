#include "analysis/cache_levels.hpp"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

#include "core/stats.hpp"

namespace gd {
namespace {

constexpr double kL2 = 60.0 * (1 << 20);

struct Shape {
  bool l1_cached = true;
  double cold_factor = 2;         // the probe scrubs L2 past this many L2 sizes
  bool flat_past_l2 = false;      // warm hit/miss blend past L2 as a flat run (a false plateau)
};

// Shaped like an H200 chase (60 MiB L2, 4 sizes per octave): L1 at 32 cycles to ~220 KiB,
// a ramp, L2 near 280 to ~28 MiB, a climb to ~385 by 56 MiB (far partition), a warm
// hit/miss blend past L2, and cold DRAM at ~658 from cold_factor times the L2 size.
std::vector<ChasePoint> h200_like(const Shape& shape = {}) {
  std::vector<ChasePoint> pts;
  for (double s = 4096; s <= 512.0 * (1 << 20); s *= std::pow(2.0, 0.25)) {
    double c;
    const bool cold = s > shape.cold_factor * kL2;
    if (cold) c = 658 + std::fmod(s, 3.0);
    else if (s > kL2) c = shape.flat_past_l2 ? 500 : 440 + 80 * std::log2(s / kL2);
    else if (s > 30e6) c = 280 + 105 * std::log2(s / 30e6);
    else if (!shape.l1_cached || s > 1e6) c = 279 + std::fmod(s, 2.0);
    else if (s <= 230e3) c = 32;
    else c = 32 + 248 * std::log2(s / 230e3) / std::log2(1e6 / 230e3);
    pts.push_back({s, c, cold});
  }
  return pts;
}

std::string names(const std::vector<CacheLevel>& levels) {
  std::string n;
  for (const auto& l : levels) n += l.name + " ";
  return n;
}

// By value, so that level(cache_levels(...), name) outlives the temporary list.
CacheLevel level(const std::vector<CacheLevel>& levels, const std::string& name) {
  for (const auto& l : levels)
    if (l.name == name) return l;
  throw std::runtime_error("no level " + name + " in " + names(levels));
}

TEST(CacheLevels, CachedChaseFindsL1L2FarBlendAndDram) {
  const auto levels = cache_levels(h200_like(), true, kL2);
  ASSERT_EQ(names(levels), "L1 L2 L2.far_blend DRAM ");
  EXPECT_DOUBLE_EQ(levels[0].cycles, 32);
  EXPECT_LT(levels[0].last_bytes, 256e3);
  EXPECT_NEAR(levels[1].cycles, 280, 2);
  EXPECT_LT(levels[1].last_bytes, 31e6);
  EXPECT_GT(levels[2].cycles_at_last_bytes, 370);
  EXPECT_LE(levels[2].last_bytes, kL2);
  EXPECT_NEAR(levels[3].cycles, 659, 2);
}

TEST(CacheLevels, EveryLevelsLatencyIsTheMedianOfItsPoints) {
  const auto levels = cache_levels(h200_like(), true, kL2);
  ASSERT_EQ(levels.size(), 4u) << "L1, L2, the far blend and DRAM: no level would pass the loop vacuously";
  for (const auto& l : levels) {
    EXPECT_GT(l.cycles, 0) << l.name;
    ASSERT_FALSE(l.samples.empty()) << l.name;
    EXPECT_DOUBLE_EQ(l.cycles, summarize(l.samples).median) << l.name;
  }
}

TEST(CacheLevels, FarBlendIsItsPointsStatisticsWithTheLastPointApart) {
  // The blend is a climb: 33.5, 39.9, 47.5 and 56.4 MiB at about 297, 323, 349 and 375 cycles.
  const CacheLevel far = level(cache_levels(h200_like(), true, kL2), "L2.far_blend");
  ASSERT_EQ(far.samples.size(), 4u);
  EXPECT_DOUBLE_EQ(far.cycles, summarize(far.samples).median);
  EXPECT_NEAR(far.cycles, 336, 2) << "the median, not the last point";
  EXPECT_DOUBLE_EQ(far.cycles_at_last_bytes, far.samples.back());
  EXPECT_GT(far.cycles_at_last_bytes, 370);
  EXPECT_GT(far.next_bytes, kL2) << "the blend reaches the last warm size inside L2";
}

TEST(CacheLevels, DramStartsWhereTheWarmCurveLeavesL2) {
  const auto levels = cache_levels(h200_like(), true, kL2);
  const CacheLevel far = level(levels, "L2.far_blend");
  const CacheLevel dram = level(levels, "DRAM");
  EXPECT_EQ(dram.first_bytes, far.next_bytes);
  EXPECT_GT(dram.first_bytes, kL2);
  EXPECT_LT(dram.first_bytes, 1.2 * kL2);
  EXPECT_GT(dram.l2_scrubbed_from_bytes, 2 * kL2) << "where the probe began scrubbing, kept apart";
  EXPECT_EQ(far.l2_scrubbed_from_bytes, 0) << "warm levels were not scrubbed";
}

TEST(CacheLevels, DramBoundaryDoesNotFollowTheScrubSwitch) {
  // Scrubbing from 4 L2s instead of 2 moves the cold points, not where DRAM begins.
  const CacheLevel two = level(cache_levels(h200_like({.cold_factor = 2}), true, kL2), "DRAM");
  const CacheLevel four = level(cache_levels(h200_like({.cold_factor = 4}), true, kL2), "DRAM");
  EXPECT_EQ(two.first_bytes, four.first_bytes);
  EXPECT_GT(four.l2_scrubbed_from_bytes, two.l2_scrubbed_from_bytes);
  EXPECT_NEAR(four.cycles, two.cycles, 2);
}

TEST(CacheLevels, WarmSweepThatNeverLeavesL2ShowsNoDramBoundary) {
  std::vector<ChasePoint> pts;
  for (int i = 1; i <= 6; ++i) pts.push_back({1e6 * i, 280, false});
  for (int i = 1; i <= 4; ++i) pts.push_back({1e9 * i, 650, true});
  const auto levels = cache_levels(pts, false, 1e8);
  ASSERT_EQ(names(levels), "L2 DRAM ");
  EXPECT_EQ(levels[1].first_bytes, 0) << "0: the data shows no boundary";
  EXPECT_EQ(levels[1].l2_scrubbed_from_bytes, 1e9);
}

TEST(CacheLevels, BypassingChaseHasNoL1) {
  const auto levels = cache_levels(h200_like({.l1_cached = false}), false, kL2);
  ASSERT_FALSE(levels.empty());
  EXPECT_EQ(levels[0].name, "L2");
  EXPECT_EQ(levels[0].first_bytes, 4096);
}

TEST(CacheLevels, WarmBlendPastL2IsNotALevel) {
  // Past L2 the warm curve here is flat (a steady hit/miss mix): a plateau by shape, but one that
  // starts beyond the L2 capacity, so it must not become an L2 level.
  const auto levels = cache_levels(h200_like({.flat_past_l2 = true}), true, kL2);
  EXPECT_EQ(names(levels), "L1 L2 L2.far_blend DRAM ");
  for (const auto& l : levels)
    if (l.name.starts_with("L")) {
      EXPECT_LE(l.first_bytes, kL2) << l.name;
    }
}

TEST(CacheLevels, TwoDistinctL2PlateausAreNumbered) {
  std::vector<ChasePoint> pts;
  for (int i = 0; i < 6; ++i) pts.push_back({1e6 * (i + 1), 280, false});
  for (int i = 0; i < 6; ++i) pts.push_back({1e7 * (i + 1), 400, false});
  const auto levels = cache_levels(pts, false, 1e8);
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(levels[0].name, "L2");
  EXPECT_EQ(levels[1].name, "L2.2");
}

TEST(CacheLevels, NeedsTheL2Size) {
  EXPECT_THROW(cache_levels(h200_like(), true, 0), std::invalid_argument);
}

}  // namespace
}  // namespace gd
