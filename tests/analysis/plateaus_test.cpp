#include "analysis/plateaus.hpp"

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

// A synthetic latency ladder like a real chase: 4 log-spaced sizes per octave, flat levels, and
// between a level's capacity and twice it a ramp (a growing share of misses) to the next level.
struct Ladder {
  std::vector<double> x, y;
};

double ideal_latency(double s, const std::vector<std::pair<double, double>>& levels) {
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const auto [cap, latency] = levels[i];
    if (s <= cap || i + 1 == levels.size()) return latency;
    if (s < 2 * cap) return latency + std::log2(s / cap) * (levels[i + 1].second - latency);
  }
  return levels.back().second;
}

Ladder ladder(const std::vector<std::pair<double, double>>& levels /* (capacity, latency) */, double noise,
              unsigned seed = 1) {
  Ladder l;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> jitter(-noise, noise);
  for (double s = 4096; s <= double(1 << 30); s *= std::sqrt(std::sqrt(2.0))) {
    l.x.push_back(s);
    l.y.push_back(ideal_latency(s, levels) * (1 + jitter(rng)));
  }
  return l;
}

TEST(Plateaus, FindsThreeLevelsOfACleanLadder) {
  const Ladder l = ladder({{256e3, 33}, {50e6, 260}, {1e12, 700}}, 0.0);
  const auto p = find_plateaus(l.x, l.y);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_DOUBLE_EQ(p[0].latency, 33);
  EXPECT_DOUBLE_EQ(p[1].latency, 260);
  EXPECT_DOUBLE_EQ(p[2].latency, 700);
  EXPECT_LE(p[0].end_x, 256e3);
  EXPECT_GT(p[0].next_x, 256e3);
  EXPECT_LE(p[1].end_x, 50e6);
  EXPECT_EQ(p[2].next_x, 0);
}

TEST(Plateaus, SurvivesNoiseAndKeepsATwoLevelL2Apart) {
  // A partitioned L2: near hits at 260, far at 400, under 3 % noise.
  const Ladder l = ladder({{256e3, 33}, {12e6, 260}, {50e6, 400}, {1e12, 700}}, 0.03, 7);
  const auto p = find_plateaus(l.x, l.y);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_NEAR(p[1].latency, 260, 10);
  EXPECT_NEAR(p[2].latency, 400, 15);
}

TEST(Plateaus, TransitionPointsBelongToNoPlateau) {
  const std::vector<double> x{1, 2, 3, 4, 5, 6, 7}, y{30, 30, 30, 150, 260, 260, 260};
  const auto p = find_plateaus(x, y);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].last, 2u);
  EXPECT_EQ(p[1].first, 4u);
}

TEST(Plateaus, SinglePointIsNotAPlateau) {
  EXPECT_TRUE(find_plateaus(std::vector<double>{1}, std::vector<double>{5}).empty());
  EXPECT_TRUE(find_plateaus(std::vector<double>{}, std::vector<double>{}).empty());
}

TEST(Plateaus, RejectsBadInput) {
  EXPECT_THROW(find_plateaus(std::vector<double>{2, 1}, std::vector<double>{1, 1}), std::invalid_argument);
  EXPECT_THROW(find_plateaus(std::vector<double>{1, 2}, std::vector<double>{1, NAN}), std::invalid_argument);
  EXPECT_THROW(find_plateaus(std::vector<double>{1, 2}, std::vector<double>{1}), std::invalid_argument);
}

}  // namespace
}  // namespace gd

namespace gd {
namespace {

TEST(Plateaus, AGentleRampIntoALevelIsPartOfIt) {
  // An L1-cached chase just past L1: partial L1 hits pull the first L2 points a little lower.
  const std::vector<double> y{252, 259, 262, 267, 266, 269, 273, 275, 274, 277, 276, 277, 278, 279, 279};
  std::vector<double> x(y.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = double(i + 1);
  const auto p = find_plateaus(x, y);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NEAR(p[0].latency, 275, 1);
}

TEST(Plateaus, AStrayPointDoesNotSplitALevel) {
  const std::vector<double> x{1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<double> y{274, 275, 276, 277, 300, 279, 280, 280, 281};
  const auto p = find_plateaus(x, y);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].first, 0u);
  EXPECT_EQ(p[0].last, 8u);
}

}  // namespace
}  // namespace gd
