#include "analysis/inflight.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "support/ideal_stream.hpp"

namespace gd {
namespace {

using test_support::ideal_stream;

TEST(Inflight, LittlesLawInvertsTheRate) {
  // 132 SMs x 16 KiB in flight at 4 TB/s: 540.67 ns.
  EXPECT_NEAR(littles_latency_ns(16384, 4.0, 132), 16384.0 * 132 / 4e12 * 1e9, 1e-9);
  EXPECT_TRUE(std::isnan(littles_latency_ns(16384, 0, 132)));
}

TEST(Inflight, RecoversLatencyKneeAndPlateauOfAnIdealStream) {
  const auto p = ideal_stream(800, 4.8, 132);
  const InflightCurve c = analyze_inflight(p, 132);
  EXPECT_DOUBLE_EQ(c.plateau_tbps, 4.8);
  EXPECT_NEAR(c.unloaded_latency_ns, 800, 1e-6);
  // Saturation starts at 4.8e12 * 800e-9 / 132 = 29 091 bytes: the first power of two past
  // 0.95 of that is 32 KiB.
  EXPECT_DOUBLE_EQ(c.knee_bytes_per_sm, 32768);
  EXPECT_DOUBLE_EQ(c.knee_tbps, 4.8);
  EXPECT_NEAR(c.knee_latency_ns, 32768.0 * 132 / 4.8e12 * 1e9, 1e-6);
}

TEST(Inflight, TheEnvelopeKeepsTheBestConfigurationPerDepth) {
  std::vector<InflightPoint> p = {{4096, 1.0}, {4096, 2.0}, {8192, 3.0}, {2048, 0.5}};
  const InflightCurve c = analyze_inflight(p, 100);
  ASSERT_EQ(c.envelope.size(), 3u);
  EXPECT_DOUBLE_EQ(c.envelope[0].bytes_per_sm, 2048);
  EXPECT_DOUBLE_EQ(c.envelope[1].tbps, 2.0);
  EXPECT_DOUBLE_EQ(c.knee_bytes_per_sm, 8192);
}

TEST(Inflight, NoUnloadedLatencyWhenEveryPointIsSaturated) {
  std::vector<InflightPoint> p = {{4096, 4.0}, {8192, 4.1}};
  EXPECT_TRUE(std::isnan(analyze_inflight(p, 132).unloaded_latency_ns));
}

TEST(Inflight, RejectsBadInput) {
  EXPECT_THROW(analyze_inflight({}, 132), std::invalid_argument);
  std::vector<InflightPoint> zero = {{0, 1.0}};
  EXPECT_THROW(analyze_inflight(zero, 132), std::invalid_argument);
  std::vector<InflightPoint> nan = {{1024, std::nan("")}};
  EXPECT_THROW(analyze_inflight(nan, 132), std::invalid_argument);
  std::vector<InflightPoint> ok = {{1024, 1.0}};
  EXPECT_THROW(analyze_inflight(ok, 0), std::invalid_argument);
  EXPECT_THROW(analyze_inflight(ok, 132, 1.5), std::invalid_argument);
}

}  // namespace
}  // namespace gd
