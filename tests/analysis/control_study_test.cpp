#include "analysis/control_study.hpp"

#include <gtest/gtest.h>

namespace gd {
namespace {

// A fixed-latency class like the H200's FFMA: wrong below 4, one cycle per stall above.
std::vector<StallTrial> fixed_sweep(int threshold) {
  std::vector<StallTrial> t;
  for (int s = 0; s <= 15; ++s) t.push_back({s, true, s < threshold && s > 0 ? 32 : 0, s == 0 ? 30.0 : double(std::max(s, threshold))});
  return t;
}

// A scoreboard class: right at every stall with the waits, wrong at every stall without.
std::vector<StallTrial> waited(double cycles) {
  std::vector<StallTrial> t;
  for (int s = 0; s <= 15; ++s) t.push_back({s, true, 0, cycles + s});
  return t;
}
std::vector<StallTrial> unwaited() {
  std::vector<StallTrial> t;
  for (int s = 0; s <= 15; ++s) t.push_back({s, true, 32, double(s)});
  return t;
}

TEST(JudgeStallClass, FixedLatencyAgreesWithTheChain) {
  const StallClassVerdict v = judge_stall_class(fixed_sweep(4), {}, false, 4.02, 1);
  EXPECT_EQ(v.threshold, 4);
  EXPECT_EQ(v.threshold_no_wait, 4);
  EXPECT_TRUE(v.fixed_latency);
  EXPECT_TRUE(v.agrees) << v.note;
  EXPECT_NEAR(v.cycles_per_stall, 1.0, 1e-9);
}

TEST(JudgeStallClass, ADisagreementIsExplainedNotHidden) {
  const StallClassVerdict above = judge_stall_class(fixed_sweep(5), {}, false, 4.0, 1);
  EXPECT_FALSE(above.agrees);
  EXPECT_NE(above.note.find("above the chain latency"), std::string::npos) << above.note;
  const StallClassVerdict below = judge_stall_class(fixed_sweep(4), {}, false, 6.0, 1);
  EXPECT_FALSE(below.agrees);
  EXPECT_NE(below.note.find("below the chain latency"), std::string::npos) << below.note;
  const StallClassVerdict noisy = judge_stall_class(fixed_sweep(4), {}, false, 4.4, 1);
  EXPECT_FALSE(noisy.agrees) << "a latency far from an integer is not an agreement";
}

TEST(JudgeStallClass, APairIsJudgedPerInstruction) {
  const StallClassVerdict v = judge_stall_class(fixed_sweep(4), {}, false, 8.0, 2);
  EXPECT_TRUE(v.agrees) << v.note;
  const StallClassVerdict w = judge_stall_class(fixed_sweep(6), {}, false, 10.0, 2);
  EXPECT_FALSE(w.agrees);
  EXPECT_NE(w.note.find("several instructions per step"), std::string::npos) << w.note;
}

TEST(JudgeStallClass, AScoreboardClassIsRightOnlyWithTheWait) {
  const StallClassVerdict v = judge_stall_class(waited(30), unwaited(), true, 33.0, 1);
  EXPECT_EQ(v.threshold, 0);
  EXPECT_EQ(v.threshold_no_wait, -1);
  EXPECT_FALSE(v.fixed_latency);
  EXPECT_FALSE(v.agrees);
  EXPECT_NE(v.note.find("needs a scoreboard"), std::string::npos) << v.note;
  EXPECT_EQ(v.note.find("with the waits kept"), std::string::npos) << v.note;
  auto odd = waited(30);
  odd[12].wrong_lanes = 32;  // the H200's MUFU and LDS chains: stall 12 corrupts even with the wait
  const StallClassVerdict o = judge_stall_class(odd, unwaited(), true, 33.0, 1);
  EXPECT_EQ(o.threshold, 13);
  EXPECT_NE(o.note.find("with the waits kept, stall 12 still gave wrong results"), std::string::npos) << o.note;
}

TEST(StallCost, SlopeFromTheThresholdUpOnlyAndPerInstruction) {
  EXPECT_NEAR(stall_cost(fixed_sweep(4), 4, 1).slope, 1.0, 1e-9);
  auto pair = fixed_sweep(4);
  for (auto& t : pair) t.cycles_per_step *= 2;
  EXPECT_NEAR(stall_cost(pair, 4, 2).slope, 1.0, 1e-9);
  EXPECT_EQ(stall_cost(fixed_sweep(4), -1, 1).n, 0u);
  EXPECT_EQ(stall_cost(fixed_sweep(15), 15, 1).n, 0u) << "one point is no slope";
}

TEST(ChaseStepsSeen, CountsStepsAndRejectsUnreachable) {
  const std::vector<std::uint32_t> next = {1, 2, 3, 0};  // one cycle of four
  EXPECT_EQ(chase_steps_seen(next, 0, 0, 10), 0);
  EXPECT_EQ(chase_steps_seen(next, 0, 3, 10), 3);
  EXPECT_EQ(chase_steps_seen(next, 2, 1, 10), 3);
  EXPECT_EQ(chase_steps_seen(next, 0, 3, 2), -1) << "not within max_steps";
  EXPECT_EQ(chase_steps_seen(next, 0, 7, 10), -1) << "not a slot";
}

TEST(UnwaitedRead, InterlockedStaleOrWrong) {
  EXPECT_EQ(unwaited_read({960, 960}, 960), "interlocked");
  EXPECT_EQ(unwaited_read({960, 1}, 960), "stale");
  EXPECT_EQ(unwaited_read({1, -1}, 960), "wrong");
  EXPECT_EQ(unwaited_read({}, 960), "no lanes");
}

TEST(RegisterBanks, TwoBanksFromConflictsAtEvenDistances) {
  std::vector<BankTrial> t;
  for (int d = 0; d <= 8; ++d) t.push_back({d, d > 0 && d % 2 == 0 ? 2.0 : 1.0});
  t[0].cycles = 1.0;  // the same register twice is read once
  const RegisterBanks b = derive_register_banks(t);
  EXPECT_EQ(b.banks, 2);
  EXPECT_TRUE(b.consistent);
  EXPECT_DOUBLE_EQ(b.free_cycles, 1.0);
  EXPECT_DOUBLE_EQ(b.conflict_cycles, 2.0);
}

TEST(RegisterBanks, FourBanksAndAnInconsistentPattern) {
  std::vector<BankTrial> t;
  for (int d = 0; d <= 8; ++d) t.push_back({d, d % 4 == 0 && d ? 2.0 : 1.0});
  EXPECT_EQ(derive_register_banks(t).banks, 4);
  t[3].cycles = 2.0;  // distance 3 also conflicts: not "index mod banks"
  const RegisterBanks b = derive_register_banks(t);
  EXPECT_EQ(b.banks, 3);
  EXPECT_FALSE(b.consistent);
}

TEST(RegisterBanks, NoConflictNoBankCount) {
  std::vector<BankTrial> t;
  for (int d = 0; d <= 8; ++d) t.push_back({d, 1.0 + 0.02 * d});  // a slow drift, never 1.3x
  EXPECT_EQ(derive_register_banks(t).banks, 0);
  EXPECT_EQ(derive_register_banks({}).banks, 0);
}

TEST(WrongStalls, ListsEveryWrongOrFailedTrialInOrder) {
  std::vector<StallTrial> t = waited(20.0);
  t[13].wrong_lanes = 32;  // stall 13
  t[1].wrong_lanes = 5;    // stall 1
  t[12].completed = false;  // stall 12: the launch failed
  std::swap(t[1], t[15]);  // stall 1 now comes last
  EXPECT_EQ(wrong_stalls(t), (std::vector<int>{1, 12, 13}));
  EXPECT_TRUE(wrong_stalls(waited(20.0)).empty());
  EXPECT_EQ(wrong_stalls(unwaited()).size(), 16u);
}

}  // namespace
}  // namespace gd
