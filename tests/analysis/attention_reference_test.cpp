#include "analysis/attention_reference.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

// Two keys, head_dim 4: q = (a, 0, 0, 0), k0 = (1, 0, 0, 0), k1 = 0, v0 = 1, v1 = 0. The logits are
// a / sqrt(4) and 0, so every output column is sigmoid(a / 2): the 1/sqrt(d) scale shows.
TEST(AttentionReference, TwoKeysGiveTheSigmoidOfTheScaledLogit) {
  const float a = 2.0f;
  const std::vector<float> q = {a, 0, 0, 0};
  const std::vector<float> k = {1, 0, 0, 0, 0, 0, 0, 0};
  const std::vector<float> v = {1, 1, 1, 1, 0, 0, 0, 0};
  const auto out = attention_reference_row(q, k, v, 2, 4, 1, false);
  const double expect = 1.0 / (1.0 + std::exp(-1.0));
  for (double x : out) EXPECT_NEAR(x, expect, 1e-12);
}

// q = 0: uniform weights, the mean of the visible V rows (causal: rows 0..row only).
TEST(AttentionReference, ZeroQueryAveragesTheVisibleValues) {
  const int seq = 5, d = 2;
  std::vector<float> q(d, 0.f), k(seq * d), v(seq * d);
  for (int j = 0; j < seq; ++j) {
    k[j * d] = float(j) - 2;
    k[j * d + 1] = 0.5f * float(j);
    v[j * d] = float(j);
    v[j * d + 1] = float(10 * j);
  }
  const auto all = attention_reference_row(q, k, v, seq, d, 2, false);
  EXPECT_NEAR(all[0], 2.0, 1e-12);
  EXPECT_NEAR(all[1], 20.0, 1e-12);
  const auto causal = attention_reference_row(q, k, v, seq, d, 2, true);  // rows 0, 1, 2
  EXPECT_NEAR(causal[0], 1.0, 1e-12);
  EXPECT_NEAR(causal[1], 10.0, 1e-12);
}

// Causal: values after the row do not matter; without the mask they do.
TEST(AttentionReference, CausalIgnoresLaterKeys) {
  const int seq = 6, d = 3, row = 2;
  std::vector<float> q = {0.3f, -0.7f, 1.1f}, k(seq * d), v(seq * d);
  for (int i = 0; i < seq * d; ++i) {
    k[i] = std::sin(0.7f * float(i));
    v[i] = std::cos(1.3f * float(i));
  }
  const auto before = attention_reference_row(q, k, v, seq, d, row, true);
  const auto before_all = attention_reference_row(q, k, v, seq, d, row, false);
  for (int i = (row + 1) * d; i < seq * d; ++i) v[i] += 5.f;
  const auto after = attention_reference_row(q, k, v, seq, d, row, true);
  const auto after_all = attention_reference_row(q, k, v, seq, d, row, false);
  for (int c = 0; c < d; ++c) {
    EXPECT_DOUBLE_EQ(before[c], after[c]);
    EXPECT_GT(std::abs(after_all[c] - before_all[c]), 0.1);
  }
}

TEST(AttentionReference, RejectsBadShapes) {
  const std::vector<float> q(4), kv(8);
  EXPECT_THROW(attention_reference_row(q, kv, kv, 2, 4, 2, false), std::invalid_argument);  // row past the end
  EXPECT_THROW(attention_reference_row(q, kv, kv, 3, 4, 0, false), std::invalid_argument);  // k too short
  EXPECT_THROW(attention_reference_row(std::vector<float>(3), kv, kv, 2, 4, 0, false), std::invalid_argument);
}

TEST(AttentionRowMismatch, PassesWithinToleranceAndNamesTheWorstColumn) {
  const std::vector<double> ref = {0.5, -0.25, 0.0};
  EXPECT_EQ(attention_row_mismatch(ref, std::vector<float>{0.501f, -0.2515f, 0.0015f}), "");
  const std::string why = attention_row_mismatch(ref, std::vector<float>{0.5f, -0.2f, 0.0f});
  EXPECT_NE(why.find("column 1"), std::string::npos) << why;
  EXPECT_NE(attention_row_mismatch(ref, std::vector<float>{0.5f, std::numeric_limits<float>::quiet_NaN(), 0.f}), "");
  EXPECT_NE(attention_row_mismatch(ref, std::vector<float>{0.5f, -0.25f}), "");
}

TEST(AttentionFlops, FourBhN2dHalvedWhenCausal) {
  EXPECT_DOUBLE_EQ(attention_flops(16, 1024, 128, false), 4.0 * 16 * 1024 * 1024 * 128);
  EXPECT_DOUBLE_EQ(attention_flops(16, 1024, 128, true), 2.0 * 16 * 1024 * 1024 * 128);
  EXPECT_THROW(attention_flops(0, 1024, 128, false), std::invalid_argument);
}

TEST(AttentionStageShares, LeaveOneOutShares) {
  AttentionStageTimes t;
  t.full = 100;
  t.no_softmax = 60;  // softmax 40 %
  t.poly_exp2 = 110;  // the polynomial is 10 % slower
  t.no_pv = 80;       // 20 %
  t.no_qk = 75;       // 25 %
  t.no_load = 95;     // 5 %
  const AttentionStageShares s = attention_stage_shares(t);
  EXPECT_DOUBLE_EQ(s.softmax_pct, 40);
  EXPECT_DOUBLE_EQ(s.pv_pct, 20);
  EXPECT_DOUBLE_EQ(s.qk_pct, 25);
  EXPECT_DOUBLE_EQ(s.mma_pct, 45);
  EXPECT_DOUBLE_EQ(s.memory_pct, 5);
  EXPECT_DOUBLE_EQ(s.exp2_poly_extra_pct, 10);
  EXPECT_DOUBLE_EQ(s.sum_pct, 90);
  EXPECT_TRUE(s.not_isolated.empty());
  t.no_load = 0;
  EXPECT_THROW(attention_stage_shares(t), std::invalid_argument);
}

// The H200's hd128 fa3 breakdown: leaving out the softmax or the MMAs made the kernel slower.
TEST(AttentionStageShares, StagesWhoseRemovalSlowsTheKernelAreNamed) {
  AttentionStageTimes t;
  t.full = 100;
  t.no_softmax = 102;
  t.poly_exp2 = 130;
  t.no_pv = 103;
  t.no_qk = 99;
  t.no_load = 84;
  const AttentionStageShares s = attention_stage_shares(t);
  EXPECT_DOUBLE_EQ(s.softmax_pct, -2);
  EXPECT_EQ(s.not_isolated, (std::vector<std::string>{"softmax", "pv_mma"}));
}

TEST(AttentionScheduleGains, SpeedupsOverTheStepBefore) {
  AttentionScheduleTimes t;
  t.simple = 120;
  t.ws = 100;        // warp specialization: 1.2x
  t.pingpong = 80;   // 1.25x over ws
  t.pipelined = 50;  // 2x over ws
  t.fa3 = 40;        // 2.5x over ws = 1.25 x 2: the two overlaps add up
  AttentionScheduleGains g = attention_schedule_gains(t);
  EXPECT_DOUBLE_EQ(g.ws, 1.2);
  EXPECT_DOUBLE_EQ(g.pingpong, 1.25);
  EXPECT_DOUBLE_EQ(g.pipelined, 2);
  EXPECT_DOUBLE_EQ(g.fa3, 2.5);
  EXPECT_DOUBLE_EQ(g.total, 3);
  EXPECT_DOUBLE_EQ(g.interaction, 1);
  t.fa3 = 50;  // ping-pong adds nothing on top of the pipelining: they hide the same time
  g = attention_schedule_gains(t);
  EXPECT_DOUBLE_EQ(g.interaction, 0.8);
}

TEST(AttentionScheduleGains, RejectsMissingOrInvalidTimes) {
  AttentionScheduleTimes t{10, 10, 10, 10, 10};
  EXPECT_NO_THROW(attention_schedule_gains(t));
  t.pingpong = 0;
  EXPECT_THROW(attention_schedule_gains(t), std::invalid_argument);
  t.pingpong = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(attention_schedule_gains(t), std::invalid_argument);
  t.pingpong = 10;
  t.simple = std::numeric_limits<double>::infinity();
  EXPECT_THROW(attention_schedule_gains(t), std::invalid_argument);
}

}  // namespace
}  // namespace gd
