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

// Lines 8 .. max_lines in steps of 2, with a +-2 % wobble (L2 near/far hits) on every point.
std::vector<TlbPoint> sweep(double page, const std::vector<double>& strides, double max_lines = 8192,
                            double l1 = 16, double l2 = 1024) {
  std::vector<TlbPoint> pts;
  int k = 0;
  for (double s : strides)
    for (double n = 8; n <= max_lines; n *= 2, ++k)
      pts.push_back({s, n, model(s, n, page, l1, l2) * (1 + 0.02 * ((k % 3) - 1))});
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
  EXPECT_NEAR(r.steps.back()[1].cycles_after, 800, 20);
  EXPECT_EQ(r.steps.front()[0].last_fast_entries, 128);  // 8 lines per 2 MiB page
  EXPECT_EQ(r.implied_page_bytes, 2 << 20);
  EXPECT_EQ(r.page_lower_bytes, 256 << 10);
  EXPECT_EQ(r.page_upper_bytes, 2 << 20);
  EXPECT_FALSE(r.page_at_most_smallest_stride);
  EXPECT_EQ(r.max_span_bytes.back(), 8192.0 * (32 << 20));
  // Two levels: 16 entries x 2 MiB and 1024 entries x 2 MiB.
  ASSERT_EQ(r.levels.size(), 2u);
  EXPECT_EQ(r.levels[0].entries, 16);
  EXPECT_EQ(r.levels[0].coverage_bytes, 32 << 20);
  EXPECT_EQ(r.levels[1].entries, 1024);
  EXPECT_EQ(r.levels[1].coverage_bytes, 2LL << 30);
  EXPECT_NEAR(r.levels[1].cycles_before, 400, 10);
}

TEST(Tlb, TheStrideWhereEntriesStopChangingBoundsThePage) {
  // 64 KiB is below a 2 MiB page, 2 MiB and 32 MiB at or above it.
  const TlbReach r = tlb_reach(sweep(2 << 20, {64 << 10, 2 << 20, 32 << 20}, 65536));
  EXPECT_EQ(r.implied_page_bytes, 2 << 20);
  EXPECT_EQ(r.page_lower_bytes, 64 << 10);
  EXPECT_EQ(r.page_upper_bytes, 2 << 20);
}

TEST(Tlb, AnotherPageSizeGivesAnotherAnswer) {
  const TlbReach r = tlb_reach(sweep(64 << 10, {16 << 10, 2 << 20}));
  EXPECT_EQ(r.implied_page_bytes, 64 << 10);
  ASSERT_FALSE(r.levels.empty());
  EXPECT_EQ(r.levels[0].coverage_bytes, 16 * (64 << 10));
}

TEST(Tlb, HugePagesAboveEveryStrideGiveTheCoverageInBytes) {
  // 512 MiB pages: 32 MiB and 128 MiB strides both step at an 8 GiB span.
  const TlbReach r = tlb_reach(sweep(512 << 20, {32 << 20, 128 << 20}, 8192));
  EXPECT_TRUE(r.page_above_largest_stride);
  EXPECT_EQ(r.implied_page_bytes, 0);
  EXPECT_EQ(r.page_lower_bytes, 128 << 20);
  ASSERT_FALSE(r.levels.empty());
  EXPECT_EQ(r.levels[0].coverage_bytes, 16.0 * (512 << 20));
}

TEST(Tlb, ALargerStrideWithoutAStepBoundsThePageFromAbove) {
  // 64 MiB translation units, 1024 entries (64 GiB); 128 GiB of memory: the 512 MiB stride
  // reaches 256 lines, all held, while 2 MiB and 32 MiB strides step at a 64 GiB span.
  std::vector<TlbPoint> pts;
  for (double s : {2.0 * (1 << 20), 32.0 * (1 << 20), 512.0 * (1 << 20)})
    for (double n = 8; n * s <= 128.0 * (1LL << 30) && n <= 65536; n *= 2)
      pts.push_back({s, n, model(s, n, 64 << 20, 1024, 1e9)});
  const TlbReach r = tlb_reach(pts);
  EXPECT_TRUE(r.page_above_largest_stride);
  EXPECT_EQ(r.page_lower_bytes, 32 << 20);
  EXPECT_EQ(r.page_upper_bytes, 128.0 * (1 << 30) / 256);  // the step's first slow span (128 GiB) over 256 lines
  ASSERT_EQ(r.levels.size(), 1u);
  EXPECT_EQ(r.levels[0].coverage_bytes, 64.0 * (1LL << 30));
  EXPECT_EQ(r.levels[0].largest_stride_bytes, 32 << 20);
}

TEST(Tlb, StridesAllAbovePageSayOnlyAnUpperBound) {
  const TlbReach r = tlb_reach(sweep(64 << 10, {2 << 20, 32 << 20}));
  EXPECT_EQ(r.implied_page_bytes, 0);
  EXPECT_TRUE(r.page_at_most_smallest_stride);
  EXPECT_EQ(r.page_upper_bytes, 2 << 20);
  ASSERT_FALSE(r.levels.empty());
  EXPECT_EQ(r.levels[0].entries, 16);
}

TEST(Tlb, ARiseAtTheSweepsEndIsAnOpenStep) {
  std::vector<TlbPoint> pts;
  for (double n = 8; n <= 512; n *= 2) pts.push_back({2 << 20, n, n < 512 ? 280.0 : 420.0});
  const TlbReach r = tlb_reach(pts);
  ASSERT_EQ(r.steps[0].size(), 1u);
  EXPECT_TRUE(r.steps[0][0].open_ended);
  EXPECT_EQ(r.steps[0][0].last_fast_entries, 256);
  EXPECT_EQ(r.steps[0][0].first_slow_entries, 512);
  EXPECT_EQ(r.steps[0][0].cycles_after, 420);
}

TEST(Tlb, FlatCurveHasNoStep) {
  std::vector<TlbPoint> pts;
  for (double n = 8; n <= 1024; n *= 2) pts.push_back({2 << 20, n, 300.0 + double(int(n) % 3)});
  const TlbReach r = tlb_reach(pts);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_TRUE(r.steps[0].empty());
  EXPECT_TRUE(r.levels.empty());
  EXPECT_EQ(r.implied_page_bytes, 0);
  EXPECT_EQ(r.max_span_bytes[0], 1024.0 * (2 << 20));
}

TEST(Tlb, RejectsBadInput) {
  const std::vector<TlbPoint> bad{{0, 8, 300}};
  EXPECT_THROW(tlb_reach(bad), std::invalid_argument);
  const std::vector<TlbPoint> nan{{4096, 8, std::nan("")}};
  EXPECT_THROW(tlb_reach(nan), std::invalid_argument);
}

}  // namespace
}  // namespace gd
