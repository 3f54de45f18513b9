// PowerTrace: the mean power comes from the instantaneous samples; the energy counter's figure
// (coarse in time on Hopper: it advances in ~100 ms steps) is recorded beside it.
#include "core/power_monitor.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

PowerTrace trace_of(std::vector<double> watts, std::vector<double> mhz) {
  PowerTrace t;
  t.interval_s = 0.01;
  t.duration_s = 2.0;
  t.power_w = std::move(watts);
  t.sm_clock_mhz = std::move(mhz);
  for (std::size_t i = 0; i < t.power_w.size(); ++i) t.t_s.push_back(0.01 * double(i));
  return t;
}

TEST(PowerTrace, MeanPowerFromSamplesEnergyCounterBeside) {
  PowerTrace t = trace_of({100, 300}, {1980, 1755});
  EXPECT_DOUBLE_EQ(t.mean_power_w(), 200);
  EXPECT_TRUE(std::isnan(t.energy_power_w()));
  EXPECT_FALSE(t.summary().contains("energy_counter_power_w"));
  t.energy_j = 500;  // 500 J over 2 s
  EXPECT_DOUBLE_EQ(t.mean_power_w(), 200);
  EXPECT_DOUBLE_EQ(t.energy_power_w(), 250);
  EXPECT_DOUBLE_EQ(t.summary()["energy_counter_power_w"].get<double>(), 250);
  EXPECT_DOUBLE_EQ(t.mean_sm_clock_mhz(), (1980 + 1755) / 2.0);
  EXPECT_DOUBLE_EQ(t.min_sm_clock_mhz(), 1755);
  EXPECT_DOUBLE_EQ(t.max_power_w(), 300);
  EXPECT_EQ(t.summary()["samples"], 2);
}

TEST(PowerTrace, EmptyTraceHasNoMeans) {
  const PowerTrace t;
  EXPECT_TRUE(std::isnan(t.mean_power_w()));
  EXPECT_TRUE(std::isnan(t.mean_sm_clock_mhz()));
  EXPECT_TRUE(std::isnan(t.min_sm_clock_mhz()));
}

// GEMM groups after rests: only the samples inside the groups describe the work.
TEST(PowerTrace, WithinKeepsTheSamplesInsideTheWindows) {
  PowerTrace t = trace_of({100, 700, 710, 100, 100, 690, 100}, {1980, 1800, 1790, 1980, 1980, 1810, 1980});
  t.energy_j = 1000;
  t.throttled_by = {"power_cap"};
  const std::vector<std::pair<double, double>> groups{{0.005, 0.025}, {0.045, 0.055}};
  const PowerTrace w = t.within(groups);
  EXPECT_EQ(w.t_s, (std::vector<double>{t.t_s[1], t.t_s[2], t.t_s[5]}));
  EXPECT_DOUBLE_EQ(w.mean_power_w(), 700);
  EXPECT_DOUBLE_EQ(w.mean_sm_clock_mhz(), 1800);
  EXPECT_NEAR(w.duration_s, 0.03, 1e-12);
  EXPECT_FALSE(w.energy_j.has_value());  // the counter cannot be split among windows
  EXPECT_EQ(w.throttled_by, t.throttled_by);
  EXPECT_TRUE(t.within({}).power_w.empty());
  const std::vector<std::pair<double, double>> backwards{{0.03, 0.02}};
  EXPECT_THROW(t.within(backwards), std::invalid_argument);
}

}  // namespace
}  // namespace gd
