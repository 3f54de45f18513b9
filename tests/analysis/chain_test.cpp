// measure_chain_latency with a fake chain on the CPU: timings that lie on a known line must give
// its slope back, with the fit quality and the clock they imply, and a bent line must show.
#include "analysis/chain.hpp"

#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace gd {
namespace {

constexpr double kCyclesPerStep = 4, kOverheadCycles = 100, kClockMhz = 2000;

// A chain whose region takes kOverheadCycles + kCyclesPerStep * steps cycles at kClockMhz;
// `extra_cycles(call, steps)` bends chosen calls (call counts every run_chain call, from 0).
struct FakeChain {
  std::function<long long(int call, std::int64_t steps)> extra_cycles = [](int, std::int64_t) { return 0LL; };
  int calls = 0;
  RegionTiming operator()(std::int64_t steps) {
    RegionTiming t;
    t.cycles = (long long)(kOverheadCycles + kCyclesPerStep * double(steps)) + extra_cycles(calls++, steps);
    t.ns = (unsigned long long)(double(t.cycles) / kClockMhz * 1e3);
    return t;
  }
};

class ChainLatencyTest : public ::testing::Test {
 protected:
  ChainLatencyTest() {
    spec_.id = "test.chain";
    spec_.metrics = chain_latency_metrics("one fake step");
    policy_.warmup = 0;  // every call is a sample, so tests can point at one by its number
    policy_.min_samples = policy_.max_samples = 5;
  }
  ChainLatency measure(FakeChain& chain, std::vector<std::int64_t> lengths = {512, 1024, 2048}) {
    return measure_chain_latency(ctx_, lengths, std::ref(chain), policy_);
  }
  ProbeSpec spec_;
  DeviceInfo device_;
  ProbeContext ctx_{spec_, {}, device_, false, 10.0};
  RepeatPolicy policy_;
};

TEST_F(ChainLatencyTest, SlopeOfAStraightChainIsTheStepCost) {
  FakeChain chain;
  const ChainLatency lat = measure(chain);
  EXPECT_DOUBLE_EQ(lat.per_step.median, kCyclesPerStep);
  EXPECT_EQ(lat.per_step.n, 5u);
  EXPECT_NEAR(lat.worst_fit.r2, 1.0, 1e-12);
  EXPECT_NEAR(lat.worst_fit.intercept, kOverheadCycles, 1e-6) << "the fixed cost falls into the intercept";
  EXPECT_EQ(chain.calls, 5 * 3);
}

TEST_F(ChainLatencyTest, ClockComesFromTheTimedRegionsAndIsSetOnTheContext) {
  FakeChain chain;
  const ChainLatency lat = measure(chain);
  EXPECT_NEAR(lat.clock_mhz, kClockMhz, 1e-9);
  ASSERT_TRUE(ctx_.has_observed_sm_clock());
  EXPECT_NEAR(ctx_.observed_sm_clock_mhz(), kClockMhz, 1e-9);
}

TEST_F(ChainLatencyTest, OneBentFitIsTheWorstFit) {
  FakeChain chain;
  // Fit number 2 (calls 6..8) has its middle length 600 cycles slow.
  chain.extra_cycles = [](int call, std::int64_t steps) { return call / 3 == 2 && steps == 1024 ? 600LL : 0LL; };
  const ChainLatency lat = measure(chain);
  EXPECT_LT(lat.worst_fit.r2, 0.99);
  EXPECT_NE(lat.worst_fit.slope, kCyclesPerStep);
  EXPECT_DOUBLE_EQ(lat.per_step.median, kCyclesPerStep) << "one bent fit does not move the median";
  EXPECT_NE(lat.per_step.min, lat.per_step.max) << "the bent fit is one of the samples";
}

TEST_F(ChainLatencyTest, WarmUpIsLeftOutOfTheFitQualityAndTheClock) {
  policy_.warmup = 1;
  FakeChain chain;
  // The warm-up fit (calls 0..2) is bent and ran at half the clock, as a cold first launch can.
  chain.extra_cycles = [](int call, std::int64_t steps) { return call < 3 && steps == 1024 ? 600LL : 0LL; };
  const auto half_clock_warmup = [&chain](std::int64_t steps) {
    const bool warmup = chain.calls < 3;
    RegionTiming t = chain(steps);
    if (warmup) t.ns *= 2;
    return t;
  };
  const ChainLatency lat = measure_chain_latency(ctx_, std::vector<std::int64_t>{512, 1024, 2048},
                                                 half_clock_warmup, policy_);
  EXPECT_EQ(chain.calls, 3 + 5 * 3) << "one warm-up fit, then the samples";
  EXPECT_NEAR(lat.worst_fit.r2, 1.0, 1e-12);
  EXPECT_NEAR(lat.clock_mhz, kClockMhz, 1e-9);
}

TEST_F(ChainLatencyTest, FewerThanThreeDistinctLengthsIsAnError) {
  FakeChain chain;
  EXPECT_THROW(measure(chain, {512, 2048}), Error);
  EXPECT_THROW(measure(chain, {512, 2048, 2048}), Error);
  EXPECT_THROW(measure(chain, {}), Error);
  EXPECT_EQ(chain.calls, 0) << "refused before running anything";
  try {
    measure(chain, {512, 2048});
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at least 3"), std::string::npos) << e.what();
  }
}

TEST_F(ChainLatencyTest, EmitReportsCyclesNanosecondsAndFitQuality) {
  FakeChain chain;
  emit_chain_latency(ctx_, measure(chain));
  Record r;
  ctx_.fill(r);
  ASSERT_NE(r.metric("latency/cycles"), nullptr);
  ASSERT_NE(r.metric("latency/ns"), nullptr);
  EXPECT_DOUBLE_EQ(r.metric("latency/cycles")->value(), kCyclesPerStep);
  EXPECT_NEAR(r.metric("latency/ns")->value(), kCyclesPerStep / kClockMhz * 1e3, 1e-9);
  EXPECT_NEAR(r.extra["fit_worst_r2"].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(r.extra["fit_intercept_cycles"].get<double>(), kOverheadCycles, 1e-6);
  EXPECT_NEAR(r.sm_clock_mhz, kClockMhz, 1e-9);
}

// wgmma's interval: a loop iteration of kSteps dependent wgmma is one fitted step, so cycles per
// wgmma are the step's divided by kSteps; the launch's fixed cost is not per instruction.
TEST_F(ChainLatencyTest, PerInstructionDividesTheStepNotTheIntercept) {
  FakeChain chain;
  const ChainLatency step = measure(chain);
  const ChainLatency each = per_instruction(step, 4);
  EXPECT_DOUBLE_EQ(each.per_step.median, kCyclesPerStep / 4);
  EXPECT_DOUBLE_EQ(each.per_step.min, step.per_step.min / 4);
  EXPECT_DOUBLE_EQ(each.per_step.max, step.per_step.max / 4);
  EXPECT_DOUBLE_EQ(each.per_step.mean, step.per_step.mean / 4);
  EXPECT_EQ(each.per_step.n, step.per_step.n);
  EXPECT_DOUBLE_EQ(each.worst_fit.slope, step.worst_fit.slope / 4);
  EXPECT_DOUBLE_EQ(each.worst_fit.intercept, step.worst_fit.intercept);
  EXPECT_DOUBLE_EQ(each.clock_mhz, step.clock_mhz);
  EXPECT_DOUBLE_EQ(per_instruction(step, 1).per_step.median, kCyclesPerStep);
  EXPECT_THROW(per_instruction(step, 0), Error);
}

}  // namespace
}  // namespace gd
