#include "analysis/rank_test.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

Summary of(std::vector<double> v) { return summarize(v); }

// Textbook cases, U counted by hand over every pair: five below five (no overlap), and a tied
// case whose variance needs the tie correction (n_a n_b / 12 ((n + 1) - sum(t^3 - t) / (n (n - 1)))).
TEST(MannWhitney, MatchesHandCountedCases) {
  const auto apart = mann_whitney(of({1, 2, 3, 4, 5}), of({6, 7, 8, 9, 10}));
  ASSERT_TRUE(apart);
  EXPECT_DOUBLE_EQ(apart->u, 25);
  EXPECT_DOUBLE_EQ(apart->superiority, 1);
  EXPECT_NEAR(apart->z, 2.6111648393354674, 1e-12);
  EXPECT_NEAR(apart->p_value, 0.009023438818080334, 1e-12);
  const auto tied = mann_whitney(of({1, 2, 2, 3}), of({2, 3, 3, 4}));
  ASSERT_TRUE(tied);
  EXPECT_DOUBLE_EQ(tied->u, 13);
  EXPECT_NEAR(tied->z, 1.51744244666721, 1e-12);
  EXPECT_NEAR(tied->p_value, 0.1291550139900681, 1e-12);
  // B below A: the same distance the other way.
  EXPECT_NEAR(mann_whitney(of({6, 7, 8, 9, 10}), of({1, 2, 3, 4, 5}))->z, -2.6111648393354674, 1e-12);
}

// Sketches standing for thousands of samples: the same distribution is no shift at all; a shift
// of a tenth of the spread is found, since the weights carry the real sample counts.
TEST(MannWhitney, WeighsSketchPointsByTheSamplesTheyStandFor) {
  std::vector<double> base, moved;
  for (int i = 0; i < 4000; ++i) {
    const double u = (i + 0.5) / 4000;
    base.push_back(100 + 10 * u);
    moved.push_back(101 + 10 * u);
  }
  const Summary a = of(base), b = of(moved);
  ASSERT_EQ(a.sketch.size(), kSketchPoints);
  const auto same = mann_whitney(a, of(base));
  ASSERT_TRUE(same);
  EXPECT_NEAR(same->z, 0, 1e-9);
  EXPECT_NEAR(same->p_value, 1, 1e-9);
  const auto shifted = mann_whitney(a, b);
  ASSERT_TRUE(shifted);
  EXPECT_GT(shifted->z, 5);
  EXPECT_LT(shifted->p_value, 1e-6);
  EXPECT_NEAR(shifted->superiority, 0.595, 0.01) << "P(b > a) of two uniforms 1/10 of their width apart";
  // The same sketches standing for 40 samples each are not enough to tell.
  Summary a40 = a, b40 = b;
  a40.n = b40.n = 40;
  EXPECT_GT(mann_whitney(a40, b40)->p_value, 0.05);
}

TEST(MannWhitney, NeedsASketchAndTwoSamplesOnEachSide) {
  EXPECT_FALSE(mann_whitney(single_value(3), of({1, 2, 3})));
  EXPECT_FALSE(mann_whitney(of({1, 2, 3}), Summary{}));
  // All values tied: no spread to test against, so only equality can be said.
  const auto equal = mann_whitney(of({4, 4, 4}), of({4, 4}));
  ASSERT_TRUE(equal);
  EXPECT_EQ(equal->p_value, 1);
  // Two tied groups apart: the tie-corrected variance is 6/12 (6 - 30/20) = 2.25, U - 3 = 3.
  EXPECT_NEAR(mann_whitney(of({4, 4, 4}), of({5, 5}))->z, 2.0, 1e-12);
}

}  // namespace
}  // namespace gd
