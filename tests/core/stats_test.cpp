#include "core/stats.hpp"
#include "core/median.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

namespace gd {
namespace {

TEST(Summarize, EmptyGivesNanAndZeroCount) {
  const Summary s = summarize(std::vector<double>{});
  EXPECT_EQ(s.n, 0u);
  EXPECT_TRUE(std::isnan(s.median));
  EXPECT_TRUE(std::isnan(s.min));
}

TEST(Summarize, EvenLengthMedianAveragesTheMiddlePair) {
  const Summary s = summarize(std::vector<double>{4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(s.stddev, std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_EQ(s.n, 4u);
}

TEST(Summarize, OddLengthMedianIsTheMiddle) {
  EXPECT_DOUBLE_EQ(summarize(std::vector<double>{9, 1, 5}).median, 5);
}

TEST(Summarize, SingleValueHasZeroSpread) {
  const Summary s = single_value(7.5);
  EXPECT_DOUBLE_EQ(s.median, 7.5);
  EXPECT_DOUBLE_EQ(s.stddev, 0);
  EXPECT_EQ(s.n, 1u);
}

// The sketch: every sample while they fit, else evenly spaced order statistics, sorted and
// rounded to 7 significant digits; quartiles interpolate like the median.
TEST(Summarize, KeepsQuartilesAndASketch) {
  const Summary few = summarize(std::vector<double>{5, 1, 4, 2, 3});
  EXPECT_EQ(few.sketch, (std::vector<double>{1, 2, 3, 4, 5}));
  EXPECT_DOUBLE_EQ(few.q1, 2);
  EXPECT_DOUBLE_EQ(few.q3, 4);
  std::vector<double> many;
  for (int i = 0; i < 3200; ++i) many.push_back(3199 - i);
  const Summary s = summarize(many);
  ASSERT_EQ(s.sketch.size(), kSketchPoints);
  EXPECT_TRUE(std::is_sorted(s.sketch.begin(), s.sketch.end()));
  EXPECT_NEAR(s.sketch.front(), 0.5 / 32 * 3199, 1e-3);
  EXPECT_NEAR(s.sketch.back(), 31.5 / 32 * 3199, 1e-3);
  EXPECT_EQ(sketch_of_sorted(std::vector<double>{1.23456789}), std::vector<double>{1.234568});
  EXPECT_TRUE(single_value(7).sketch.empty()) << "one value is no distribution";
}

TEST(Summarize, NanSampleIsRejected) {
  EXPECT_THROW(summarize(std::vector<double>{1, NAN, 3}), std::invalid_argument);
}

TEST(Quantile, InterpolatesBetweenSamples) {
  const std::vector<double> v{10, 20, 30, 40};
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.0), 10);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 1.0), 40);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.25), 17.5);
}

TEST(MedianCi, InfiniteBelowThreeSamplesAndZeroForConstantData) {
  EXPECT_TRUE(std::isinf(median_relative_ci(std::vector<double>{1, 2})));
  EXPECT_DOUBLE_EQ(median_relative_ci(std::vector<double>{5, 5, 5, 5}), 0.0);
}

TEST(Repeat, StopsAtMinimumWhenDataIsConstant) {
  int calls = 0;
  RepeatPolicy p;
  p.warmup = 2;
  p.min_samples = 5;
  const RepeatResult r = repeat_until_stable([&] { ++calls; return 3.0; }, p, [] { return 0.0; });
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.samples.size(), 5u);
  EXPECT_EQ(calls, 7);  // warm-up calls are made and discarded
  EXPECT_EQ(r.stop_reason, "converged");
}

TEST(Repeat, WarmsUpForAMinimumTime) {
  double t = 0;
  int calls = 0;
  RepeatPolicy p;
  p.warmup = 1;
  p.warmup_s = 1.0;
  p.min_samples = 3;
  // Each call takes 0.25 s of the injected clock: four warm-up calls reach 1 s.
  const RepeatResult r = repeat_until_stable([&] { t += 0.25; ++calls; return 2.0; }, p, [&] { return t; });
  EXPECT_EQ(r.samples.size(), 3u);
  EXPECT_EQ(calls, 4 + 3);
}

TEST(Repeat, NoisyDataRunsToTheSampleCap) {
  int i = 0;
  RepeatPolicy p;
  p.max_samples = 40;
  p.target_rel_ci = 1e-6;
  const RepeatResult r = repeat_until_stable([&] { return (i++ % 2) ? 1.0 : 3.0; }, p, [] { return 0.0; });
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.samples.size(), 40u);
  EXPECT_EQ(r.stop_reason, "sample cap");
}

// The policy's minimum is a promise: a slow sample stops the run at the cap, never below it.
TEST(Repeat, TimeCapStopsButNeverBelowThePolicysMinimum) {
  for (int min_samples : {1, 3, 7}) {
    double t = 0;
    int i = 0;
    RepeatPolicy p;
    p.min_samples = min_samples;
    p.time_cap_s = 1.0;
    p.target_rel_ci = 1e-9;
    // Each sample "takes" 10 s of the injected clock.
    const RepeatResult r = repeat_until_stable([&] { t += 10; return double(i++ % 3); }, p, [&] { return t; });
    EXPECT_EQ(r.stop_reason, "time cap") << min_samples;
    EXPECT_FALSE(r.converged);
    EXPECT_EQ(r.samples.size(), std::size_t(min_samples));
  }
}

TEST(Repeat, RejectsImpossiblePolicy) {
  RepeatPolicy p;
  p.min_samples = 10;
  p.max_samples = 5;
  EXPECT_THROW(repeat_until_stable([] { return 1.0; }, p), std::invalid_argument);
}

}  // namespace
}  // namespace gd

namespace gd {
namespace {

TEST(SamplingOverride, OverridesOnlyWhatIsSet) {
  RepeatPolicy p;
  p.min_samples = 5;
  p.max_samples = 20;
  p.target_rel_ci = 0.01;
  EXPECT_EQ(apply(SamplingOverride{}, p).target_rel_ci, 0.01);
  const RepeatPolicy q = apply(SamplingOverride{50, 0.001, 3.0, 0}, p);
  EXPECT_EQ(q.min_samples, 50);
  EXPECT_EQ(q.max_samples, 50) << "the sample cap rises to the minimum";
  EXPECT_EQ(q.target_rel_ci, 0.001);
  EXPECT_EQ(q.min_time_s, 3.0);
  EXPECT_GE(q.time_cap_s, 3.0);
}

TEST(SamplingOverride, FunctionalMeasuresOnceWithoutWarmup) {
  RepeatPolicy p;
  p.min_samples = 5;
  p.max_samples = 20;
  p.warmup = 3;
  SamplingOverride f;
  f.functional = true;
  const RepeatPolicy q = apply(f, p);
  EXPECT_EQ(q.min_samples, 1);
  EXPECT_EQ(q.max_samples, 1);
  EXPECT_EQ(q.warmup, 0);
  EXPECT_TRUE(f.any());
}

TEST(Repeat, MinTimeKeepsAConvergedMeasurementSampling) {
  double t = 0;
  RepeatPolicy p;
  p.min_time_s = 5;
  p.time_cap_s = 100;
  const RepeatResult r = repeat_until_stable([&] { t += 1; return 1.0; }, p, [&] { return t; });
  EXPECT_TRUE(r.converged);
  EXPECT_GE(r.samples.size(), 5u);
  EXPECT_GE(t, 5.0);
}

}  // namespace
}  // namespace gd

namespace gd {
namespace {

// The one median (core/median.hpp) agrees with summarize()'s on odd and even counts, in any
// order, and an empty sample has none (the copies it replaced read before an empty vector).
TEST(MedianOf, OneDefinitionAgreesWithSummarize) {
  const std::vector<std::vector<double>> samples = {{3}, {5, 1}, {9, 1, 5}, {4, 8, 1, 2}, {7, 7, 1, 9, 3, 3}};
  for (const auto& s : samples) EXPECT_DOUBLE_EQ(median_of(s), summarize(s).median);
  EXPECT_DOUBLE_EQ(median_of(std::vector<double>{4, 8, 1, 2}), 3.0);
  EXPECT_TRUE(std::isnan(median_of(std::vector<double>{})));
}

}  // namespace
}  // namespace gd
