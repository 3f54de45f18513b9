#include "analysis/sm_rate.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

#include "support/region_blocks.hpp"

namespace gd {
namespace {

using test_support::block;

TEST(SmRate, BlocksOfOneSmShareTheSpanFromFirstStartToLastEnd) {
  // SM 3: two blocks over [100, 300) and [150, 500): 2 x 1000 bytes over 400 cycles.
  // SM 1: one block of 100 cycles.
  const std::vector<RegionTiming> b = {block(3, 100, 200), block(1, 0, 100), block(3, 150, 350)};
  const auto r = per_sm_rates(b, 1000);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].smid, 1u);
  EXPECT_DOUBLE_EQ(r[0].bytes_per_clock, 10.0);
  EXPECT_EQ(r[1].smid, 3u);
  EXPECT_EQ(r[1].blocks, 2);
  EXPECT_DOUBLE_EQ(r[1].cycles, 400.0);
  EXPECT_DOUBLE_EQ(r[1].bytes_per_clock, 5.0);
}

TEST(SmRate, UntimedBlocksAreIgnored) {
  const std::vector<RegionTiming> b = {block(0, 0, 0), block(0, 10, 50)};
  const auto r = per_sm_rates(b, 100);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].blocks, 1);
  EXPECT_DOUBLE_EQ(r[0].bytes_per_clock, 2.0);
}

TEST(SmRate, EmptyInputAndBadBytes) {
  EXPECT_TRUE(per_sm_rates({}, 1).empty());
  EXPECT_THROW(per_sm_rates({}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace gd
