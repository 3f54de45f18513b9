#include "analysis/latency_rise.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "support/ideal_stream.hpp"

namespace gd {
namespace {

// An ideal stream's latency doubles at twice the knee's depth.
using test_support::ideal_stream;

TEST(LatencyRise, AnIdealStreamDoublesItsLatencyAtTwiceTheKnee) {
  // 132 SMs, 800 ns, 4.224 TB/s: the knee is 25600 B, so 32 KiB runs at 1024 ns and 64 KiB,
  // the first depth of the envelope at or past 1600 ns, at 2048 ns.
  const auto p = ideal_stream(800, 4.224, 132);
  const LatencyRise r = latency_rise(p, 132, 800);
  ASSERT_TRUE(r.found);
  EXPECT_DOUBLE_EQ(r.bytes_per_sm, 65536);
  EXPECT_NEAR(r.latency_ns, 2048, 1e-6);
  // A factor of 1.25 is reached at 32 KiB (1024 ns).
  EXPECT_DOUBLE_EQ(latency_rise(p, 132, 800, 1.25).bytes_per_sm, 32768);
}

TEST(LatencyRise, NoneWhenTheLatencyNeverGrowsEnough) {
  const std::vector<InflightPoint> flat = {{1024, 0.1}, {2048, 0.2}, {4096, 0.4}};
  const LatencyRise r = latency_rise(flat, 132, 1000);
  EXPECT_FALSE(r.found);
}

TEST(LatencyRise, RejectsBadInput) {
  const std::vector<InflightPoint> ok = {{1024, 1}, {2048, 1}};
  EXPECT_THROW(latency_rise({}, 132, 500), std::invalid_argument);
  EXPECT_THROW(latency_rise(ok, 0, 500), std::invalid_argument);
  EXPECT_THROW(latency_rise(ok, 132, 0), std::invalid_argument);
  EXPECT_THROW(latency_rise(ok, 132, std::nan("")), std::invalid_argument);
  EXPECT_THROW(latency_rise(ok, 132, 500, 1.0), std::invalid_argument);
  const std::vector<InflightPoint> descending = {{2048, 1}, {1024, 1}};
  EXPECT_THROW(latency_rise(descending, 132, 500), std::invalid_argument);
  const std::vector<InflightPoint> nan = {{1024, std::nan("")}};
  EXPECT_THROW(latency_rise(nan, 132, 500), std::invalid_argument);
}

}  // namespace
}  // namespace gd
