#include "analysis/cache_levels.hpp"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

namespace gd {
namespace {

// Shaped like an H200 chase (60 MiB L2, 4 sizes per octave): L1 at 32 cycles to ~220 KiB,
// a ramp, L2 near 280 to ~28 MiB, a climb to ~385 by 56 MiB (far partition), a warm
// hit/miss blend past L2 (a ramp, or flat: a false plateau), and cold DRAM at ~658 from twice
// the L2 size.
std::vector<ChasePoint> h200_like(bool l1_cached, bool flat_past_l2 = false) {
  const double l2 = 60.0 * (1 << 20);
  std::vector<ChasePoint> pts;
  for (double s = 4096; s <= 512.0 * (1 << 20); s *= std::pow(2.0, 0.25)) {
    double c;
    const bool cold = s > 2 * l2;
    if (cold) c = 658 + std::fmod(s, 3.0);
    else if (s > l2) c = flat_past_l2 ? 500 : 440 + 80 * std::log2(s / l2);
    else if (s > 30e6) c = 280 + 105 * std::log2(s / 30e6);
    else if (!l1_cached || s > 1e6) c = 279 + std::fmod(s, 2.0);
    else if (s <= 230e3) c = 32;
    else c = 32 + 248 * std::log2(s / 230e3) / std::log2(1e6 / 230e3);
    pts.push_back({s, c, cold});
  }
  return pts;
}

TEST(CacheLevels, CachedChaseFindsL1L2FarBlendAndDram) {
  const auto levels = cache_levels(h200_like(true), true, 60.0 * (1 << 20));
  ASSERT_EQ(levels.size(), 4u);
  EXPECT_EQ(levels[0].name, "L1");
  EXPECT_DOUBLE_EQ(levels[0].cycles, 32);
  EXPECT_LT(levels[0].last_bytes, 256e3);
  EXPECT_EQ(levels[1].name, "L2");
  EXPECT_NEAR(levels[1].cycles, 280, 2);
  EXPECT_LT(levels[1].last_bytes, 31e6);
  EXPECT_EQ(levels[2].name, "L2.far_blend");
  EXPECT_GT(levels[2].cycles, 370);
  EXPECT_LE(levels[2].last_bytes, 60.0 * (1 << 20));
  EXPECT_EQ(levels[3].name, "DRAM");
  EXPECT_NEAR(levels[3].cycles, 659, 2);
  EXPECT_GT(levels[3].first_bytes, 120.0 * (1 << 20));
}

TEST(CacheLevels, BypassingChaseHasNoL1) {
  const auto levels = cache_levels(h200_like(false), false, 60.0 * (1 << 20));
  ASSERT_FALSE(levels.empty());
  EXPECT_EQ(levels[0].name, "L2");
  EXPECT_EQ(levels[0].first_bytes, 4096);
}

TEST(CacheLevels, WarmBlendPastL2IsNotALevel) {
  // Past L2 the warm curve here is flat (a steady hit/miss mix): a plateau by shape, but one that
  // starts beyond the L2 capacity, so it must not become an L2 level.
  const double l2 = 60.0 * (1 << 20);
  const auto levels = cache_levels(h200_like(true, true), true, l2);
  std::string names;
  for (const auto& l : levels) names += l.name + " ";
  EXPECT_EQ(names, "L1 L2 L2.far_blend DRAM ");
  for (const auto& l : levels)
    if (l.name.starts_with("L")) {
      EXPECT_LE(l.first_bytes, l2) << l.name;
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
  EXPECT_THROW(cache_levels(h200_like(true), true, 0), std::invalid_argument);
}

}  // namespace
}  // namespace gd
