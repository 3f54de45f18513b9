#include "core/clock_check.hpp"

#include <gtest/gtest.h>

#include "core/device.hpp"

namespace gd {
namespace {

Record at_clock(double mhz, ClockSource source = ClockSource::InKernel) {
  Record r;
  r.sm_clock_mhz = mhz;
  r.sm_clock_source = source;
  return r;
}

TEST(ClockCheck, FlagsMoreThanThreePercentUnderTheApplicationClock) {
  Record low = at_clock(1612), edge = at_clock(1980 * 0.975), none = at_clock(0, ClockSource::None);
  check_clock(low, 1980);
  check_clock(edge, 1980);
  check_clock(none, 1980);
  EXPECT_TRUE(has_flag(low, kClockBelowApplicationFlag));
  EXPECT_NEAR(low.extra["clock_check"]["ratio"].get<double>(), 1612.0 / 1980, 1e-12);
  EXPECT_FALSE(has_flag(edge, kClockBelowApplicationFlag)) << "2.5 % under is within the tolerance";
  EXPECT_FALSE(none.extra.contains("clock_check")) << "no in-run clock: no verdict";
  check_clock(low, 1980);
  EXPECT_EQ(record_flags(low).size(), 1u) << "a flag is added once";
}

TEST(ClockCheck, ApplicationClockComesFromTheRunsSettingsThenTheDriver) {
  DeviceInfo d;
  d.max_sm_clock_mhz = 1980;
  const nlohmann::json state = {{"before", {{"settings", {{"application_sm_clock_mhz", 1755}}}}}};
  EXPECT_EQ(application_sm_clock_mhz(state, d), 1755);
  EXPECT_EQ(application_sm_clock_mhz(nlohmann::json::object(), d), 1980);
  EXPECT_EQ(application_sm_clock_mhz(state["before"]["settings"], nlohmann::json{{"max_sm_clock_mhz", 1980}}), 1755);
  EXPECT_EQ(application_sm_clock_mhz(nullptr, nlohmann::json{{"max_sm_clock_mhz", 1980}}), 1980);
  EXPECT_EQ(application_sm_clock_mhz(nullptr, nlohmann::json::object()), 0);
}

TEST(ClockCheck, DerivedRecordsInheritEveryFlagAndLimiter) {
  Record a = at_clock(1980), b = at_clock(1600);
  check_clock(b, 1980);
  a.extra["throttle"] = {{"by", {"sw_power_cap"}}};
  b.extra["throttle"] = {{"by", {"hw_slowdown", "sw_power_cap"}}};
  Record d;
  inherit_flags(d, {&a, &b});
  EXPECT_TRUE(has_flag(d, kClockBelowApplicationFlag));
  EXPECT_EQ(throttled_by(d).value(), (std::vector<std::string>{"sw_power_cap", "hw_slowdown"}));
  Record clean;
  inherit_flags(clean, {&a});
  EXPECT_TRUE(record_flags(clean).empty());
}

}  // namespace
}  // namespace gd
