#include "analysis/coissue.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

namespace gd {
namespace {

InterferenceVerdict verdict(bool decisive, double score) {
  InterferenceVerdict v;
  v.decisive = decisive;
  v.same_pipe_score = score;
  return v;
}

TEST(CoissuePairs, ConfirmedOnlyWhenBothDirectionsAreDecisiveAndSeparate) {
  // A and B separate both ways; A and C shared one way; B and C: C's verdict on B not decisive;
  // D has no row at all.
  const std::map<std::string, std::map<std::string, InterferenceVerdict>> rows{
      {"A", {{"B", verdict(true, 0.1)}, {"C", verdict(true, 0.2)}, {"D", verdict(true, 0.0)}}},
      {"B", {{"A", verdict(true, 0.3)}, {"C", verdict(true, 0.0)}}},
      {"C", {{"A", verdict(true, 0.9)}, {"B", verdict(false, 0.0)}}}};
  const CoissuePairs p = coissue_pairs({"A", "B", "C", "D"}, rows);
  EXPECT_EQ(p.confirmed, (std::vector<std::string>{"A+B"}));
  EXPECT_EQ(p.shared, (std::vector<std::string>{"A+C"}));
  EXPECT_EQ(p.undecided, (std::vector<std::string>{"A+D", "B+C", "B+D", "C+D"}));
  // A score of exactly 0.5 is one pipe, not two.
  const CoissuePairs edge = coissue_pairs({"A", "B"}, {{"A", {{"B", verdict(true, 0.5)}}}, {"B", {{"A", verdict(true, 0)}}}});
  EXPECT_TRUE(edge.confirmed.empty());
  EXPECT_EQ(edge.shared.size(), 1u);
  EXPECT_TRUE(coissue_pairs({}, rows).confirmed.empty());
}

TEST(MixGain, CombinedRateOverTheFirstStreamAlone) {
  // Equal rates, neither slowed: twice the work, +100 %. Taking turns (half each): +0 %.
  EXPECT_DOUBLE_EQ(mix_gain_percent(1, 0.5, 1, 0.5), 100);
  EXPECT_DOUBLE_EQ(mix_gain_percent(0.5, 0.5, 0.5, 0.5), 0);
  // X at 1.0 slowed to 0.8, Y at 0.5 slowed to 0.3 of alone: (0.8 + 0.15) / 1 - 1.
  EXPECT_NEAR(mix_gain_percent(0.8, 1.0, 0.3, 0.5), -5, 1e-12);
  EXPECT_THROW(mix_gain_percent(0, 1, 1, 1), std::invalid_argument);
  EXPECT_THROW(mix_gain_percent(1, 1, 1, -1), std::invalid_argument);
  EXPECT_THROW(mix_gain_percent(1, std::nan(""), 1, 1), std::invalid_argument);
}

TEST(Backpressure, IndependentWhenNeitherDirectionSlowsPastTheLimit) {
  const BackpressureVerdict yes = backpressure_independence("INT", "SFU", 1.01, 1.08);
  EXPECT_TRUE(yes.independent);
  EXPECT_DOUBLE_EQ(yes.worst, 1.08);
  EXPECT_EQ(yes.text.rfind("yes:", 0), 0u) << yes.text;
  const BackpressureVerdict no = backpressure_independence("INT", "SFU", 1.01, 4.5);
  EXPECT_FALSE(no.independent);
  EXPECT_EQ(no.text.rfind("no:", 0), 0u) << no.text;
  EXPECT_NE(no.text.find("x4.50"), std::string::npos) << no.text;
  EXPECT_FALSE(backpressure_independence("A", "B", 1.3, 1.0, 1.2).independent);
  EXPECT_THROW(backpressure_independence("A", "B", 0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace gd
