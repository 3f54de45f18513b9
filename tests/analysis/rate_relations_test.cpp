#include "analysis/rate_relations.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

#include "support/sample_run.hpp"

namespace gd {
namespace {

using test_support::kNaN;


TEST(RateRelations, ExtraLatencyIsTheDifferenceAndMayBeNegative) {
  EXPECT_NEAR(extra_latency(4.12, 4.0), 0.12, 1e-12);
  EXPECT_DOUBLE_EQ(extra_latency(4.0, 4.0), 0.0);
  EXPECT_DOUBLE_EQ(extra_latency(3.9, 4.0), 3.9 - 4.0);  // noise below the base is reported, not clipped
  EXPECT_THROW(extra_latency(kNaN, 4), std::invalid_argument);
  EXPECT_THROW(extra_latency(4, -1), std::invalid_argument);
}

TEST(RateRelations, RatioNeedsTwoPositiveRates) {
  EXPECT_DOUBLE_EQ(rate_ratio(64, 128), 0.5);
  EXPECT_DOUBLE_EQ(rate_ratio(940.8, 619.4), 940.8 / 619.4);
  EXPECT_THROW(rate_ratio(0, 1), std::invalid_argument);
  EXPECT_THROW(rate_ratio(1, 0), std::invalid_argument);
  EXPECT_THROW(rate_ratio(1, kNaN), std::invalid_argument);
  EXPECT_THROW(rate_ratio(std::numeric_limits<double>::infinity(), 1), std::invalid_argument);
}

TEST(RateRelations, LittlesLawMultipliesLatencyByIssueRate) {
  EXPECT_DOUBLE_EQ(littles_law_in_flight(4, 1), 4);       // FFMA: one per cycle, 4 cycles
  EXPECT_DOUBLE_EQ(littles_law_in_flight(4, 0.5), 2);     // a half-rate pipe holds half as many
  EXPECT_DOUBLE_EQ(littles_law_in_flight(24, 0.166), 24 * 0.166);
  EXPECT_NO_THROW(littles_law_in_flight(4, 1.02));        // noise at full rate
  EXPECT_THROW(littles_law_in_flight(4, 4), std::invalid_argument);  // per SM, not per sub-core
  EXPECT_THROW(littles_law_in_flight(0, 1), std::invalid_argument);
  EXPECT_THROW(littles_law_in_flight(4, kNaN), std::invalid_argument);
}

}  // namespace
}  // namespace gd
