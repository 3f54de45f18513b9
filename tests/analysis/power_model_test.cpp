#include "analysis/power_model.hpp"

#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

TEST(PowerFit, CurveTextListsEachPointAndTheLine) {
  const std::vector<double> sms = {17, 66, 132}, watts = {156.04, 214.4, 298.8};
  const PowerFit f = fit_power_vs_sms(std::vector<double>{17, 66, 132, 33}, std::vector<double>{156, 214, 299, 174});
  const std::string t = power_curve_text(sms, watts, f);
  EXPECT_EQ(t.rfind("17 SMs: 156 W; 66 SMs: 214 W; 132 SMs: 299 W (P = ", 0), 0u) << t;
  EXPECT_NE(t.find(" W/SM, R² "), std::string::npos) << t;
  EXPECT_THROW(power_curve_text(sms, std::vector<double>{1, 2}, f), std::invalid_argument);
  EXPECT_THROW(power_curve_text({}, {}, f), std::invalid_argument);
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

// The settle cases scripts/gemm_torch.py's pytest runs too (tests/fixtures/gemm_protocol.json):
// a flat rate, a step, a one-chunk dip, hunting, a ramp that never settles, a decay, slow calls.
TEST(SettledAt, SharedCasesWithThePyTorchScript) {
  std::ifstream in(std::string(GPUDISSECT_FIXTURES) + "/gemm_protocol.json");
  const nlohmann::json doc = nlohmann::json::parse(in);
  const nlohmann::json& s = doc["protocol"]["settle"];
  ASSERT_GE(doc["settle_cases"].size(), 8u);
  for (const nlohmann::json& c : doc["settle_cases"]) {
    SettleRule rule{s["min_load_s"], s["window_s"], s["tolerance"], s["min_chunks"]};
    if (c.contains("rule")) rule.window_s = c["rule"].value("window_s", rule.window_s);
    const double got = settled_at(c["t_s"].get<std::vector<double>>(), c["rate"].get<std::vector<double>>(), rule);
    if (c["settled_at"].is_null()) EXPECT_TRUE(std::isnan(got)) << c["name"] << ": " << got;
    else EXPECT_DOUBLE_EQ(got, c["settled_at"].get<double>()) << c["name"] << ": " << c["why"];
  }
}

TEST(SettledAt, NeverBeforeTheMinimumLoadNorWithThinWindows) {
  // A flat rate in chunks every 50 ms from 0.06 s (no chunk on a window's edge).
  std::vector<double> t, r;
  for (int i = 1; i <= 30; ++i) {
    t.push_back(0.05 * i + 0.01);
    r.push_back(100);
  }
  EXPECT_DOUBLE_EQ(settled_at(t, r, {0.5, 0.22, 0.01, 3}), 0.51);
  // With no minimum: the first chunk whose earlier window, (t - 0.44, t - 0.22], holds 3 chunks.
  EXPECT_DOUBLE_EQ(settled_at(t, r, {0.0, 0.22, 0.01, 3}), 0.41);
  EXPECT_TRUE(std::isnan(settled_at(t, r, {0.5, 0.22, 0.01, 5})));  // the earlier window holds 4 at most
  EXPECT_TRUE(std::isnan(settled_at(std::vector<double>{}, std::vector<double>{})));
}

TEST(SettledAt, RejectsBadSeriesAndRules) {
  const std::vector<double> t{0.1, 0.2, 0.3}, r{1, 1, 1};
  EXPECT_THROW(settled_at(t, std::vector<double>{1, 1}), std::invalid_argument);
  EXPECT_THROW(settled_at(std::vector<double>{0.2, 0.1, 0.3}, r), std::invalid_argument);
  EXPECT_THROW(settled_at(t, std::vector<double>{1, NAN, 1}), std::invalid_argument);
  EXPECT_THROW(settled_at(t, std::vector<double>{1, -1, 1}), std::invalid_argument);
  EXPECT_THROW(settled_at(t, r, {1.0, 0.0, 0.02, 3}), std::invalid_argument);
  EXPECT_THROW(settled_at(t, r, {1.0, 0.25, -0.1, 3}), std::invalid_argument);
  EXPECT_THROW(settled_at(t, r, {1.0, 0.25, 0.02, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace gd
