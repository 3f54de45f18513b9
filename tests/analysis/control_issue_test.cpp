#include "analysis/control_issue.hpp"

#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

TEST(FindIssueStall, TheFirstLongGapIsWhereIssueStopped) {
  // 6 loads issue 3 cycles apart, the 7th waits 500 cycles, then issue flows again.
  std::vector<double> gaps{3, 3, 4, 3, 3, 3, 500, 3, 3};
  const IssueStall s = find_issue_stall(gaps);
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.index, 6);
  EXPECT_DOUBLE_EQ(s.baseline, 3);
  EXPECT_DOUBLE_EQ(s.stall_cycles, 500);
  EXPECT_DOUBLE_EQ(s.issued_by, 19);
  EXPECT_DOUBLE_EQ(s.resumed_after, 519);
}

TEST(FindIssueStall, SmallJittersAreNotStalls) {
  // A gap of 13 against 3 is over 4x but within min_jump (16); 40 is both.
  const IssueStall none = find_issue_stall(std::vector<double>{3, 3, 3, 3, 13, 3, 10});
  EXPECT_FALSE(none.found);
  EXPECT_EQ(none.index, -1);
  EXPECT_DOUBLE_EQ(none.issued_by, 38);
  const IssueStall s = find_issue_stall(std::vector<double>{3, 3, 3, 3, 12, 40});
  EXPECT_TRUE(s.found);
  EXPECT_EQ(s.index, 5);
  // A slow but steady issue (every gap 30) never "stops".
  EXPECT_FALSE(find_issue_stall(std::vector<double>(20, 30.0)).found);
}

TEST(FindIssueStall, BadInputsAreRefused) {
  EXPECT_THROW(find_issue_stall(std::vector<double>{1, 2, 3, 4}), std::invalid_argument);
  EXPECT_THROW(find_issue_stall(std::vector<double>{1, 2, -3, 4, 5}), std::invalid_argument);
  EXPECT_THROW(find_issue_stall(std::vector<double>{1, 2, 3, 4, 5}, 0), std::invalid_argument);
  EXPECT_THROW(find_issue_stall(std::vector<double>{1, 2, 3, 4, 5}, 4, 16, 0.5), std::invalid_argument);
}

TEST(ClockedCost, MedianTimedMinusMedianEmpty) {
  const ClockedCost c = clocked_cost(std::vector<double>{40, 42, 100, 41}, std::vector<double>{2, 2, 3});
  EXPECT_DOUBLE_EQ(c.overhead, 2);
  EXPECT_DOUBLE_EQ(c.cycles, 39.5);
  EXPECT_DOUBLE_EQ(c.min, 38);
  EXPECT_DOUBLE_EQ(c.max, 98);
  EXPECT_EQ(c.n, 4);
  EXPECT_THROW(clocked_cost(std::vector<double>{}, std::vector<double>{1}), std::invalid_argument);
  EXPECT_THROW(clocked_cost(std::vector<double>{1}, std::vector<double>{}), std::invalid_argument);
}

}  // namespace
}  // namespace gd
