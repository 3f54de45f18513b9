#include "analysis/scheduler_sharing.hpp"

#include <gtest/gtest.h>

namespace gd {
namespace {

TEST(SchedulerSharing, RoundRobinSlowsTheSharersAlike) {
  // Warpids 2 and 6 share scheduler 2; 0, 1 and 3 are alone. 1000 instructions per warp.
  const auto s = scheduler_sharing({{2, 2010}, {3, 1000}, {0, 1005}, {1, 990}, {6, 2000}}, 1000);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->max_over_min, 2010.0 / 2000);
  EXPECT_DOUBLE_EQ(s->over_lone, 2000.0 / 1005) << "the fastest sharer over the slowest lone warp";
  EXPECT_DOUBLE_EQ(s->cycles_per_instr, 2010.0 / 2000);
}

TEST(SchedulerSharing, GreedyShowsAsOneSharerAtTheLonePace) {
  const auto s = scheduler_sharing({{0, 1000}, {4, 2000}, {1, 1000}}, 1000);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->max_over_min, 2);
  EXPECT_DOUBLE_EQ(s->over_lone, 1);
  // The worst scheduler sets the ratios: here two groups, one fair and one not.
  const auto two = scheduler_sharing({{0, 2000}, {4, 2000}, {1, 1000}, {5, 3000}}, 1000);
  ASSERT_TRUE(two);
  EXPECT_DOUBLE_EQ(two->max_over_min, 3);
  EXPECT_DOUBLE_EQ(two->cycles_per_instr, 1.5);
  EXPECT_EQ(two->over_lone, 0) << "no lone warp";
}

TEST(SchedulerSharing, NothingToSayWithoutSharersOrWithBadInput) {
  EXPECT_FALSE(scheduler_sharing({{0, 1000}, {1, 1000}}, 1000));
  EXPECT_FALSE(scheduler_sharing({}, 1000));
  EXPECT_FALSE(scheduler_sharing({{0, 0}, {4, 1000}}, 1000));
  EXPECT_FALSE(scheduler_sharing({{0, 1000}, {4, 1000}}, 0));
  // Eight schedulers: 0 and 4 no longer share.
  EXPECT_FALSE(scheduler_sharing({{0, 1000}, {4, 1000}}, 1000, 8));
}

}  // namespace
}  // namespace gd
