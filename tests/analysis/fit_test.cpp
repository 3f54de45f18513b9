#include "analysis/fit.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

TEST(FitLine, ExactLineRecoversSlopeAndIntercept) {
  const std::vector<double> x{512, 1024, 2048, 4096}, y{2048 * 1 + 100, 4096 + 100, 8192 + 100, 16384 + 100};
  const LineFit f = fit_chain_slope(x, y);
  EXPECT_DOUBLE_EQ(f.slope, 4.0);
  EXPECT_NEAR(f.intercept, 100.0, 1e-9);
  EXPECT_NEAR(f.r2, 1.0, 1e-12);
  EXPECT_EQ(f.n, 4u);
}

TEST(FitLine, OverheadFallsIntoTheIntercept) {
  // A chain minus a guessed overhead would be biased; the slope is not.
  const std::vector<double> x{100, 200, 400}, y{4 * 100 + 757, 4 * 200 + 757, 4 * 400 + 757};
  EXPECT_NEAR(fit_line(x, y).slope, 4.0, 1e-12);
}

TEST(FitLine, NoisyDataHasR2BelowOne) {
  const std::vector<double> x{1, 2, 3, 4}, y{1, 3, 2, 4};
  const LineFit f = fit_line(x, y);
  EXPECT_LT(f.r2, 1.0);
  EXPECT_GT(f.r2, 0.0);
}

TEST(FitLine, RejectsDegenerateInput) {
  EXPECT_THROW(fit_line(std::vector<double>{1}, std::vector<double>{1}), std::invalid_argument);
  EXPECT_THROW(fit_line(std::vector<double>{2, 2}, std::vector<double>{1, 3}), std::invalid_argument);
  EXPECT_THROW(fit_line(std::vector<double>{1, 2}, std::vector<double>{1}), std::invalid_argument);
  EXPECT_THROW(fit_line(std::vector<double>{1, 2}, std::vector<double>{1, NAN}), std::invalid_argument);
}

TEST(FitLine, FlatDataHasNanR2) { EXPECT_TRUE(std::isnan(fit_line(std::vector<double>{1, 2}, std::vector<double>{5, 5}).r2)); }

TEST(Knee, FirstPointWithinFractionOfPeak) {
  const std::vector<double> warps{4, 8, 16, 32, 64}, tbps{1.0, 2.0, 3.9, 4.6, 4.7};
  const Knee k = find_knee(warps, tbps, 0.95);
  EXPECT_DOUBLE_EQ(k.peak, 4.7);
  EXPECT_DOUBLE_EQ(k.x, 32);
  EXPECT_EQ(k.index, 3u);
}

TEST(Knee, RejectsUnsortedOrEmpty) {
  EXPECT_THROW(find_knee(std::vector<double>{}, std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(find_knee(std::vector<double>{2, 1}, std::vector<double>{1, 2}), std::invalid_argument);
}

}  // namespace
}  // namespace gd
