#include "analysis/change_point.hpp"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

// Footprints 16 KiB, 24 KiB, 32 KiB, ... (one point per 8 KiB) and a latency per point.
struct Curve {
  std::vector<double> x, y;
  void add(double latency) {
    x.push_back(16384.0 + 8192.0 * double(x.size()));
    y.push_back(latency);
  }
  void level(double latency, int points) {
    for (int i = 0; i < points; ++i) add(latency);
  }
};

// Deterministic noise in [-amplitude, +amplitude], relative.
double jitter(std::uint64_t& state, double amplitude) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return amplitude * (double(state >> 11) / double(1ull << 53) * 2 - 1);
}

Curve noisy(std::vector<std::pair<double, int>> levels, double amplitude, std::uint64_t seed = 1) {
  Curve c;
  for (const auto& [latency, points] : levels)
    for (int i = 0; i < points; ++i) c.add(latency * (1 + jitter(seed, amplitude)));
  return c;
}

TEST(ChangePoints, ACleanStepIsFoundAtTheLastFootprintThatFits) {
  Curve c;
  c.level(38, 10);
  c.level(260, 10);
  const ChangePoints r = find_change_points(c.x, c.y);
  ASSERT_EQ(r.steps.size(), 1u) << r.note;
  EXPECT_EQ(r.steps[0].index, 10u);
  EXPECT_DOUBLE_EQ(r.steps[0].last_before, c.x[9]);
  EXPECT_DOUBLE_EQ(r.steps[0].first_after, c.x[10]);
  EXPECT_EQ(r.steps[0].upper_begin, r.steps[0].lower_end + 1);
  EXPECT_DOUBLE_EQ(r.steps[0].before, 38);
  EXPECT_DOUBLE_EQ(r.steps[0].after, 260);
  EXPECT_GE(r.steps[0].confidence, 0.99);
}

TEST(ChangePoints, ANoisyStepIsFoundWhereItIs) {
  const Curve c = noisy({{38, 12}, {52, 12}}, 0.05);  // a 37 % rise under +-5 % noise
  const ChangePoints r = find_change_points(c.x, c.y);
  ASSERT_EQ(r.steps.size(), 1u) << r.note;
  EXPECT_EQ(r.steps[0].index, 12u);
  EXPECT_GE(r.steps[0].confidence, 0.99);
}

TEST(ChangePoints, AFlatNoisyCurveHasNoStep) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Curve c = noisy({{260, 30}}, 0.05, seed);
    const ChangePoints r = find_change_points(c.x, c.y);
    EXPECT_FALSE(r.found()) << "seed " << seed << ": a step at index " << r.steps[0].index;
    EXPECT_NE(r.note.find("no step"), std::string::npos) << r.note;
  }
}

TEST(ChangePoints, AVeryNoisyFlatCurveHasNoStepThoughItsHalvesDiffer) {
  // +-40 % noise over 10 points: the best split often rises past min_rise by chance; only the
  // permutation test tells it from a level.
  int big_rises = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const Curve c = noisy({{260, 10}}, 0.4, seed);
    ChangePointOptions o;
    o.alpha = 1;  // every split passes the test: what would be found without it
    if (find_change_points(c.x, c.y, o).found()) ++big_rises;
    EXPECT_FALSE(find_change_points(c.x, c.y).found()) << "seed " << seed;
  }
  EXPECT_GT(big_rises, 5);  // the case this test is about does occur
}

TEST(ChangePoints, ASignificantButSmallRiseIsNotALevel) {
  const Curve c = noisy({{100, 15}, {104, 15}}, 0.002);  // 4 %, far above its noise
  const ChangePoints r = find_change_points(c.x, c.y);
  EXPECT_FALSE(r.found());
  EXPECT_NE(r.note.find("under the minimum"), std::string::npos) << r.note;
}

TEST(ChangePoints, ThreeLevelsGiveTwoStepsInOrder) {
  const Curve c = noisy({{38, 8}, {260, 10}, {680, 8}}, 0.03);
  const ChangePoints r = find_change_points(c.x, c.y);
  ASSERT_EQ(r.steps.size(), 2u) << r.note;
  EXPECT_EQ(r.steps[0].index, 8u);
  EXPECT_EQ(r.steps[1].index, 18u);
  EXPECT_NEAR(r.steps[1].rise, 680.0 / 260 - 1, 0.1);
}

TEST(ChangePoints, AGradualTransitionIsOneStepSpanningIt) {
  Curve c;
  c.level(38, 10);
  for (double v : {90.0, 160.0}) c.add(v);  // partial hits: between the levels
  c.level(260, 10);
  const ChangePoints r = find_change_points(c.x, c.y);
  ASSERT_EQ(r.steps.size(), 1u) << r.note;
  EXPECT_DOUBLE_EQ(r.steps[0].last_before, c.x[9]);
  EXPECT_DOUBLE_EQ(r.steps[0].first_after, c.x[12]);
  EXPECT_EQ(r.steps[0].upper_begin - r.steps[0].lower_end - 1, 2u);
  EXPECT_DOUBLE_EQ(r.steps[0].before, 38);
}

TEST(ChangePoints, ALongRampsSplitsAreMergedIntoOneStep) {
  // Long levels make each end of a four-point ramp significant on its own: three splits, within
  // a few points of each other, that are one transition.
  Curve c;
  c.level(38, 20);
  for (double v : {60.0, 90.0, 130.0, 180.0}) c.add(v);
  c.level(260, 20);
  const ChangePoints r = find_change_points(c.x, c.y);
  ASSERT_EQ(r.steps.size(), 1u) << r.note;
  EXPECT_DOUBLE_EQ(r.steps[0].last_before, c.x[19]);
  EXPECT_DOUBLE_EQ(r.steps[0].first_after, c.x[24]);
  EXPECT_DOUBLE_EQ(r.steps[0].after, 260);
}

TEST(ChangePoints, TooFewPointsIsNotFoundWithTheReason) {
  const std::vector<double> x{1, 2, 3}, y{10, 10, 50};
  const ChangePoints r = find_change_points(x, y);
  EXPECT_FALSE(r.found());
  EXPECT_FALSE(r.note.empty());
}

TEST(ChangePoints, TheSameCurveGivesTheSameConfidence) {
  const Curve c = noisy({{38, 6}, {45, 6}}, 0.04);
  const ChangePoints a = find_change_points(c.x, c.y), b = find_change_points(c.x, c.y);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) EXPECT_EQ(a.steps[i].p_value, b.steps[i].p_value);
}

TEST(ChangePoints, BadInputIsRefused) {
  const std::vector<double> x{1, 2, 3}, unsorted{1, 3, 2}, y{10, 10, 50}, zero{10, 0, 50}, nan{10, std::nan(""), 50};
  EXPECT_THROW(find_change_points(x, std::vector<double>{1, 2}), std::invalid_argument);
  EXPECT_THROW(find_change_points(unsorted, y), std::invalid_argument);
  EXPECT_THROW(find_change_points(x, zero), std::invalid_argument);
  EXPECT_THROW(find_change_points(x, nan), std::invalid_argument);
}

}  // namespace
}  // namespace gd
