#include "analysis/tlb.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

// A chase over `lines` lines `stride` apart on a chip with `page`-byte pages, an L1 TLB of
// `l1_entries` and an L2 TLB of `l2_entries`: 300 cycles on a hit, +100 past L1, +400 past L2.
double model(double stride, double lines, double page, double l1_entries, double l2_entries) {
  const double pages = stride >= page ? lines : std::max(1.0, lines * stride / page);
  if (pages <= l1_entries) return 300;
  if (pages <= l2_entries) return 400;
  return 800;
}

std::vector<TlbPoint> sweep(double page, const std::vector<double>& strides) {
  std::vector<TlbPoint> pts;
  for (double s : strides)
    for (double n = 8; n <= 8192; n *= 2) pts.push_back({s, n, model(s, n, page, 16, 1024)});
  return pts;
}

TEST(Tlb, FindsStepsAndThePageSizeFromStridesBelowAndAbove) {
  const auto pts = sweep(2 << 20, {256 << 10, 2 << 20, 32 << 20});
  const TlbReach r = tlb_reach(pts);
  ASSERT_EQ(r.strides.size(), 3u);
  ASSERT_EQ(r.steps.back().size(), 2u);
  EXPECT_EQ(r.steps.back()[0].last_fast_entries, 16);
  EXPECT_EQ(r.steps.back()[0].first_slow_entries, 32);
  EXPECT_EQ(r.steps.back()[1].last_fast_entries, 1024);
  EXPECT_NEAR(r.steps.back()[1].cycles_after, 800, 1);
  EXPECT_EQ(r.steps.front()[0].last_fast_entries, 128);  // 8 lines per 2 MiB page
  EXPECT_EQ(r.implied_page_bytes, 2 << 20);
  EXPECT_FALSE(r.page_at_most_smallest_stride);
}

TEST(Tlb, AnotherPageSizeGivesAnotherAnswer) {
  const TlbReach r = tlb_reach(sweep(64 << 10, {16 << 10, 2 << 20}));
  EXPECT_EQ(r.implied_page_bytes, 64 << 10);
}

TEST(Tlb, StridesAllAbovePageSayOnlyAnUpperBound) {
  const TlbReach r = tlb_reach(sweep(64 << 10, {2 << 20, 32 << 20}));
  EXPECT_EQ(r.implied_page_bytes, 0);
  EXPECT_TRUE(r.page_at_most_smallest_stride);
}

TEST(Tlb, FlatCurveHasNoStep) {
  std::vector<TlbPoint> pts;
  for (double n = 8; n <= 1024; n *= 2) pts.push_back({2 << 20, n, 300.0 + double(int(n) % 3)});
  const TlbReach r = tlb_reach(pts);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_TRUE(r.steps[0].empty());
  EXPECT_EQ(r.implied_page_bytes, 0);
}

TEST(Tlb, RejectsBadInput) {
  const std::vector<TlbPoint> bad{{0, 8, 300}};
  EXPECT_THROW(tlb_reach(bad), std::invalid_argument);
  const std::vector<TlbPoint> nan{{4096, 8, std::nan("")}};
  EXPECT_THROW(tlb_reach(nan), std::invalid_argument);
}

}  // namespace
}  // namespace gd
