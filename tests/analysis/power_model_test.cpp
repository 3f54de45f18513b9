#include "analysis/power_model.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

TEST(PowerFit, LineOverSmsRecoversStaticAndPerSmPower) {
  // The seed's SM_120 figure: about 80 W at no SM and 1 W per SM.
  const std::vector<double> sms{22, 55, 110}, w{80 + 22 * 1.0, 80 + 55 * 1.0, 80 + 110 * 1.0};
  const PowerFit f = fit_power_vs_sms(sms, w);
  EXPECT_NEAR(f.p0_w, 80, 1e-9);
  EXPECT_NEAR(f.w_per_sm, 1.0, 1e-12);
  EXPECT_NEAR(f.r2, 1.0, 1e-12);
  EXPECT_NEAR(f.static_share, 80.0 / 190.0, 1e-12);
  EXPECT_EQ(f.n, 3u);
}

TEST(PowerFit, NoiseLowersR2) {
  const std::vector<double> sms{16, 33, 66, 99, 132}, w{150, 190, 170, 260, 240};
  const PowerFit f = fit_power_vs_sms(sms, w);
  EXPECT_LT(f.r2, 0.95);
  EXPECT_GT(f.w_per_sm, 0);
}

TEST(PowerFit, RejectsTooFewOrImpossiblePoints) {
  EXPECT_THROW(fit_power_vs_sms(std::vector<double>{1, 2}, std::vector<double>{100, 101}), std::invalid_argument);
  EXPECT_THROW(fit_power_vs_sms(std::vector<double>{0, 2, 4}, std::vector<double>{100, 101, 102}), std::invalid_argument);
  EXPECT_THROW(fit_power_vs_sms(std::vector<double>{1, 2, 4}, std::vector<double>{100, 0, 102}), std::invalid_argument);
  EXPECT_THROW(fit_power_vs_sms(std::vector<double>{1, 2, 4}, std::vector<double>{100, NAN, 102}), std::invalid_argument);
  EXPECT_THROW(fit_power_vs_sms(std::vector<double>{4, 4, 4}, std::vector<double>{100, 101, 102}), std::invalid_argument);
  EXPECT_THROW(fit_power_vs_sms(std::vector<double>{1, 2, 4}, std::vector<double>{100, 101}), std::invalid_argument);
}

TEST(PerWatt, DividesAndRejectsNoPower) {
  EXPECT_DOUBLE_EQ(per_watt(700, 350), 2.0);
  EXPECT_THROW(per_watt(700, 0), std::invalid_argument);
  EXPECT_THROW(per_watt(700, NAN), std::invalid_argument);
  EXPECT_THROW(per_watt(-1, 300), std::invalid_argument);
}

TEST(ClockResponse, SettleTimeIsWhenTheClockStaysInTheBand) {
  // Idle at 1980, the load at t = 1.0 s; the clock dips, overshoots, and holds ~1757 from 1.4 s.
  const std::vector<double> t{0.5, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 2.1, 2.2};
  const std::vector<double> f{1980, 1980, 1980, 1600, 1900, 1800, 1760, 1750, 1755, 1755, 1980, 1980};
  const ClockResponse r = clock_response(t, f, 1.0, 2.0);
  EXPECT_DOUBLE_EQ(r.idle_mhz, 1980);
  EXPECT_DOUBLE_EQ(r.loaded_mhz, 1757.5);
  EXPECT_DOUBLE_EQ(r.loaded_min_mhz, 1600);
  EXPECT_DOUBLE_EQ(r.loaded_max_mhz, 1980);
  EXPECT_NEAR(r.settle_s, 0.4, 1e-12);  // 1800 is 2.4% off: outside the default 2% band
  EXPECT_DOUBLE_EQ(r.after_mhz, 1980);
  EXPECT_EQ(r.loaded_samples, 8u);
  EXPECT_NEAR(clock_response(t, f, 1.0, 2.0, 0.05).settle_s, 0.3, 1e-12);  // inside a 5% band
}

TEST(ClockResponse, SteadyClockSettlesAtOnceAndAnUnsettledOneIsNan) {
  const std::vector<double> t{0, 1, 2, 3}, steady{1980, 1980, 1980, 1980}, late{1980, 1980, 1980, 1500};
  EXPECT_DOUBLE_EQ(clock_response(t, steady, 1, 3).settle_s, 0);
  EXPECT_TRUE(std::isnan(clock_response(t, late, 1, 3, 0.01).settle_s));  // out of the band at the end
}

TEST(ClockResponse, RejectsTracesWithoutIdleOrLoad) {
  const std::vector<double> t{1, 2, 3}, f{1, 2, 3};
  EXPECT_THROW(clock_response(t, f, 0.5, 4), std::invalid_argument);   // nothing before the load
  EXPECT_THROW(clock_response(t, f, 1.2, 1.5), std::invalid_argument);  // nothing inside it
  EXPECT_THROW(clock_response(std::vector<double>{2, 1}, std::vector<double>{1, 1}, 1, 2), std::invalid_argument);
}

}  // namespace
}  // namespace gd
