#include "analysis/throughput.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "support/region_blocks.hpp"

namespace gd {
namespace {

using test_support::block;

TEST(PerSmRate, MedianOverSmsOfWorkOverSpan) {
  // SM 0: one block of 1000 cycles; SM 1: two blocks overlapping, spanning 0..2000; SM 2: 1000.
  const std::vector<RegionTiming> t{block(0, 0, 1000), block(1, 0, 1500), block(1, 500, 1500), block(2, 7, 1000)};
  // Rates 100/1000, 200/2000, 100/1000: 0.1 each.
  EXPECT_DOUBLE_EQ(per_sm_rate(t, 100), 0.1);
  const std::vector<RegionTiming> slow{block(0, 0, 1000), block(1, 0, 4000), block(2, 0, 4000)};
  EXPECT_DOUBLE_EQ(per_sm_rate(slow, 100), 0.025) << "the median, not the mean or the best SM";
  EXPECT_EQ(per_sm_rate({}, 100), 0);
}

TEST(ThroughputKnee, FindsPlateauAndBothKnees) {
  std::vector<RatePoint> sweep;
  for (double ilp : {1, 2, 4, 8})
    for (double warps : {4, 8, 16, 32}) sweep.push_back({ilp, warps, std::min(128.0, 4 * ilp * warps)});
  const ThroughputKnee k = throughput_knee(sweep);
  EXPECT_DOUBLE_EQ(k.plateau, 128);
  // The first best point in order is ilp 1, warps 32; at warps 32 ilp 1 already reaches it.
  EXPECT_DOUBLE_EQ(k.plateau_ilp, 1);
  EXPECT_DOUBLE_EQ(k.plateau_warps, 32);
  EXPECT_DOUBLE_EQ(k.ilp_knee, 1);
  EXPECT_DOUBLE_EQ(k.warps_knee, 32);
}

TEST(ThroughputKnee, KneesSitWhereNinetyFivePercentIsReached) {
  const std::vector<RatePoint> sweep{{1, 32, 50}, {2, 32, 90}, {4, 32, 96}, {8, 32, 100},
                                     {8, 4, 60},  {8, 8, 94},  {8, 16, 95}};
  const ThroughputKnee k = throughput_knee(sweep);
  EXPECT_DOUBLE_EQ(k.plateau, 100);
  EXPECT_DOUBLE_EQ(k.ilp_knee, 4);
  EXPECT_DOUBLE_EQ(k.warps_knee, 16);
  EXPECT_THROW(throughput_knee({}), std::invalid_argument);
  const std::vector<RatePoint> bad{{1, 4, NAN}};
  EXPECT_THROW(throughput_knee(bad), std::invalid_argument);
}

TEST(Interference, SlowStreamsOnSeparatePipesLeaveEachOtherAlone) {
  // Two half-rate streams: together they fit the issue slots.
  const InterferenceVerdict sep = judge_interference({0.5, 0.5, 0.49});
  EXPECT_DOUBLE_EQ(sep.separate, 1.0);
  EXPECT_TRUE(sep.decisive);
  EXPECT_LT(sep.same_pipe_score, 0.1);
  const InterferenceVerdict same = judge_interference({0.5, 0.5, 0.25});
  EXPECT_NEAR(same.same_pipe_score, 1.0, 1e-12);
  EXPECT_EQ(pipe_by_interference({{"INT", same}, {"FP32", sep}}), "INT");
  EXPECT_EQ(pipe_by_interference({{"FP32", sep}}), "");
  InterferenceVerdict near = same;
  near.same_pipe_score = 1.08;
  EXPECT_EQ(pipe_by_interference({{"tensor", near}, {"INT", same}}), "INT") << "a near tie goes to the first class";
  near.same_pipe_score = 0.8;
  near.ratio = 0.3;
  EXPECT_EQ(pipe_by_interference({{"tensor", near}, {"INT", same}}), "INT") << "0.2 behind: outside the tie window";
}

// DADD on the H200 (11-30b): beside the DFMA reference it runs at exactly half its rate, one
// pipe split fairly; beside the HMMA reference at a quarter, because each HMMA holds the shared
// FP64/tensor pipe for several of DADD's slots (HMMA beside DFMA keeps 0.999 of its rate). A
// score past 1 is no more "the same pipe": the row is FP64's, and tensor is tied, not the answer.
TEST(Interference, AReferenceThatHogsASharedPipeDoesNotOutrankTheFairSplit) {
  const InterferenceVerdict fp64 = judge_interference({0.480, 0.492, 0.480 * 0.498});
  const InterferenceVerdict tensor = judge_interference({0.480, 0.247, 0.480 * 0.252});
  ASSERT_TRUE(fp64.decisive);
  ASSERT_TRUE(tensor.decisive);
  EXPECT_GT(tensor.same_pipe_score, 1.4) << "the raw score still says how far below the split it fell";
  const std::map<std::string, InterferenceVerdict> row{{"FP64", fp64}, {"tensor", tensor}};
  EXPECT_EQ(pipe_by_interference(row), "FP64");
  EXPECT_EQ(pipes_tied_by_interference(row), (std::vector<std::string>{"FP64", "tensor"}));
  // The same rule read back from a stored run (resummarize of an older run applies it too).
  nlohmann::json stored = nlohmann::json::object();
  for (const auto& [cls, v] : row)
    stored[cls] = {{"decisive", v.decisive}, {"same_pipe_score", v.same_pipe_score}, {"ratio", v.ratio}, {"shared", v.shared}};
  EXPECT_EQ(pipe_by_interference(verdicts_from_json(stored)), "FP64");
  // SREG warpid: INT at 0.493 and LSU at 0.389 (score 1.22): the fair split names INT.
  const InterferenceVerdict intc = judge_interference({0.203, 0.486, 0.203 * 0.493});
  const InterferenceVerdict lsu = judge_interference({0.203, 0.246, 0.203 * 0.389});
  EXPECT_EQ(pipe_by_interference({{"LSU", lsu}, {"INT", intc}}), "INT");
  // IDIV.U32 (a MUFU.RCP seed and IMAD refinement): the SFU (0.359) and F2F (0.334) references,
  // both on ncu's xu pipe, bring it below the split; the IMAD reference leaves it at 0.555. A
  // class at the split or below goes first, so the answer is SFU (nearest the split of the two),
  // not FMA-heavy (nearer still, but above it).
  const InterferenceVerdict sfu = judge_interference({0.2, 0.124, 0.2 * 0.359});
  const InterferenceVerdict cvt = judge_interference({0.2, 0.116, 0.2 * 0.334});
  const InterferenceVerdict heavy = judge_interference({0.2, 0.494, 0.2 * 0.555});
  ASSERT_TRUE(sfu.decisive && cvt.decisive && heavy.decisive);
  const std::map<std::string, InterferenceVerdict> idiv{{"SFU", sfu}, {"conversion", cvt}, {"FMAheavy", heavy}};
  EXPECT_EQ(pipes_tied_by_interference(idiv), (std::vector<std::string>{"SFU", "conversion", "FMAheavy"}));
}

// MATCH on the H200: the SHFL (LSU) and S2UR (uniform, ADU) references slow it alike, so both
// are interference's answer; a clear winner stands alone, and nothing decisive names nothing.
TEST(Interference, NearTiesAreAllNamedInClassOrder) {
  InterferenceVerdict lsu, uniform, intc;
  lsu.decisive = uniform.decisive = intc.decisive = true;
  lsu.same_pipe_score = 1.117;
  uniform.same_pipe_score = 1.091;
  intc.same_pipe_score = 0.037;
  const std::map<std::string, InterferenceVerdict> row{{"uniform", uniform}, {"LSU", lsu}, {"INT", intc}};
  EXPECT_EQ(pipes_tied_by_interference(row), (std::vector<std::string>{"LSU", "uniform"}));
  EXPECT_EQ(pipe_by_interference(row), "LSU");
  uniform.same_pipe_score = 0.8;  // 0.2 behind the best's rank of 1: outside the window
  EXPECT_EQ(pipes_tied_by_interference({{"uniform", uniform}, {"LSU", lsu}}), (std::vector<std::string>{"LSU"}));
  lsu.decisive = false;
  EXPECT_EQ(pipes_tied_by_interference({{"LSU", lsu}}), std::vector<std::string>{});
}

TEST(Interference, VerdictsReadBackFromTheirStoredJson) {
  const nlohmann::json stored = {{"LSU", {{"decisive", true}, {"same_pipe_score", 1.2}, {"reference", "shfl_idx"}}},
                                 {"FP32", {{"decisive", false}, {"same_pipe_score", 1.4}}},
                                 {"bad", {{"decisive", "yes"}, {"same_pipe_score", 1.0}}},
                                 {"partial", {{"same_pipe_score", 1.0}}}};
  const auto v = verdicts_from_json(stored);
  ASSERT_EQ(v.size(), 2u) << "entries without a boolean decisive and a numeric score are left out";
  EXPECT_TRUE(v.at("LSU").decisive);
  EXPECT_DOUBLE_EQ(v.at("LSU").same_pipe_score, 1.2);
  EXPECT_FALSE(v.at("FP32").decisive);
  EXPECT_TRUE(verdicts_from_json(nullptr).empty());
  EXPECT_EQ(pipe_by_interference(v), "LSU");
}

TEST(Interference, TwoFullRateStreamsCannotBeToldApart) {
  // Both issue every clock alone: beside each other each gets half the slots either way.
  const InterferenceVerdict v = judge_interference({1.0, 1.0, 0.5});
  EXPECT_DOUBLE_EQ(v.separate, 0.5);
  EXPECT_FALSE(v.decisive);
  EXPECT_EQ(pipe_by_interference({{"FP32", v}}), "") << "an undecidable pair never names a pipe";
  // A full-rate X beside a slow Y still keeps most of its slots on another pipe.
  const InterferenceVerdict w = judge_interference({1.0, 0.125, 0.86});
  EXPECT_DOUBLE_EQ(w.separate, 0.875);
  EXPECT_FALSE(w.decisive) << "their issue demands exceed the slots: a slowdown may be issue, not the pipe";
  EXPECT_TRUE(judge_interference({0.5, 0.125, 0.5}).decisive);
  EXPECT_THROW(judge_interference({0, 1, 1}), std::invalid_argument);
  EXPECT_THROW(judge_interference({1, NAN, 1}), std::invalid_argument);
}

TEST(PipeByCounters, DominantPipeWithFoldedParts) {
  const CounterPipe p = pipe_by_counters({{"smsp__inst_executed_pipe_fmaheavy.sum", 600},
                                          {"smsp__inst_executed_pipe_fmalite.sum", 400},
                                          {"smsp__inst_executed_pipe_alu.sum", 50},
                                          {"smsp__inst_executed_pipe_uniform.sum", 10},
                                          {"smsp__inst_executed_pipe_alu.avg", 1e9},
                                          {"sm__cycles_elapsed.avg", 1e9}});
  EXPECT_EQ(p.pipe, "fma");
  EXPECT_NEAR(p.share, 1000.0 / 1060.0, 1e-12);
  EXPECT_EQ(class_of_counter_pipe(p.pipe), "FP32");
  const CounterPipe t = pipe_by_counters({{"smsp__inst_executed_pipe_tensor_op_hmma.sum", 99},
                                          {"smsp__inst_executed_pipe_fma.sum", 1}});
  EXPECT_EQ(t.pipe, "tensor");
  EXPECT_EQ(pipe_by_counters({{"sm__cycles_elapsed.avg", 5}}).pipe, "");
  EXPECT_EQ(class_of_counter_pipe("cbu"), "");
  EXPECT_EQ(p.busiest, std::vector<std::string>{"fma"}) << "count mode names one pipe";
  EXPECT_FALSE(p.by_utilization);
}

std::map<std::string, double> utilization(std::initializer_list<std::pair<const char*, double>> pipes) {
  std::map<std::string, double> m{{"sm__cycles_elapsed.avg", 1e6}};
  for (const auto& [pipe, pct] : pipes)
    m[pipe == std::string("shared") ? "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active"
                                    : std::string("sm__inst_executed_pipe_") + pipe + ".avg.pct_of_peak_sustained_active"] = pct;
  return m;
}

// Probes ask for these while they register, during static initialisation, as this does: a name
// assembled from throughput.cpp's own std::string globals came out as "smadu" on the GPU once.
const std::vector<std::string> kMetricsAtStartup = pipe_utilization_metrics();

TEST(PipeByCounters, UtilizationMetricsAreWellFormedEvenDuringStaticInitialisation) {
  ASSERT_EQ(kMetricsAtStartup.size(), pipe_utilization_metrics().size());
  for (const std::string& m : kMetricsAtStartup) {
    EXPECT_EQ(m.rfind("sm__", 0), 0u) << m;
    EXPECT_NE(m.find(".avg.pct_of_peak_sustained_active"), std::string::npos) << m;
    EXPECT_EQ(pipe_by_counters({{m, 50}}).pipe.empty(), false) << m << " must name a pipe pipe_by_counters reads";
  }
}

TEST(PipeByCounters, UtilizationNamesTheBindingPipeNotTheMostFrequentOpcode) {
  // A division sequence: three FFMA per MUFU, but the SFU (xu) runs at 16 results per clock.
  auto m = utilization({{"fma", 55}, {"fmaheavy", 60}, {"alu", 40}, {"xu", 98}});
  m["smsp__inst_executed_pipe_fma.sum"] = 3000;  // the counts say fma; utilization wins
  m["smsp__inst_executed_pipe_xu.sum"] = 1000;
  const CounterPipe p = pipe_by_counters(m);
  EXPECT_TRUE(p.by_utilization);
  EXPECT_EQ(p.pipe, "xu");
  EXPECT_EQ(p.busiest, std::vector<std::string>{"xu"});
  EXPECT_EQ(class_by_counters(p), "SFU");
  EXPECT_TRUE(pipe_methods_agree("SFU", p));
  EXPECT_TRUE(pipe_methods_agree("conversion", p)) << "Hopper's F2F.F64 reference runs on xu";
  EXPECT_FALSE(pipe_methods_agree("FP32", p));
  for (const std::string& name : pipe_utilization_metrics())
    EXPECT_NE(name.find(".avg.pct_of_peak_sustained_active"), std::string::npos) << name;
}

TEST(PipeByCounters, PipesWithinTenPercentOfTheTopAreAllBusy) {
  // HFMA2: dual-issued to both FMA halves, so interference sees it collide with IMAD (heavy).
  const CounterPipe h = pipe_by_counters(utilization({{"fma", 99}, {"fmaheavy", 100}, {"fmalite", 97}, {"alu", 5}}));
  EXPECT_EQ(h.busiest, (std::vector<std::string>{"fma", "fmaheavy", "fmalite"}));
  EXPECT_EQ(class_by_counters(h), "FP32");
  EXPECT_TRUE(pipe_methods_agree("FMAheavy", h));
  EXPECT_FALSE(pipe_methods_agree("INT", h));
  // IMAD: the heavy half at its peak is half the fma pipe's: fma is not busy.
  const CounterPipe i = pipe_by_counters(utilization({{"fma", 50}, {"fmaheavy", 100}}));
  EXPECT_EQ(i.busiest, std::vector<std::string>{"fmaheavy"});
  EXPECT_TRUE(pipe_methods_agree("FMAheavy", i));
  // DFMA on Hopper: the fp64 pipe and the shared pipe it has with the tensor cores.
  const CounterPipe d = pipe_by_counters(utilization({{"fp64", 100}, {"shared", 100}, {"alu", 3}}));
  EXPECT_EQ(class_by_counters(d), "FP64");
  EXPECT_TRUE(pipe_methods_agree("tensor", d)) << "the tensor reference collides with DFMA through the shared pipe";
  EXPECT_FALSE(pipe_methods_agree("SFU", d));
  // The inst and cycles views of one pipe count once, at the larger.
  auto both = utilization({{"alu", 40}});
  both["sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"] = 80;
  EXPECT_DOUBLE_EQ(pipe_by_counters(both).utilization.at("alu"), 80);
  EXPECT_EQ(pipe_by_counters(utilization({{"alu", 0}})).pipe, "") << "an idle kernel names no pipe";
  EXPECT_TRUE(counter_pipes_of_class("nonsense").empty());
  // S2UR, the uniform reference, runs on the ADU by its own counters on the H200.
  EXPECT_TRUE(pipe_methods_agree("uniform", pipe_by_counters(utilization({{"adu", 94.5}, {"alu", 46.9}}))));
}

TEST(PipeFromNcu, ReadsTheNamedKernelsCountersOrSaysAbsent) {
  const nlohmann::json extra = {{"ncu",
                                 {{"_Z15alu_pair_kernel", {{"smsp__inst_executed_pipe_alu.sum", 900}}},
                                  {"_Z17alu_stream_kernelIN2gd4Dfma", {{"smsp__inst_executed_pipe_fp64.sum", 800},
                                                                       {"smsp__inst_executed_pipe_alu.sum", 10}}}}}};
  const auto p = pipe_from_ncu(extra, "alu_stream_kernel");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->pipe, "fp64") << "the pair kernel's counters are not the row alone";
  EXPECT_EQ(describe_ncu_pipe(extra, "alu_stream_kernel")["class"], "FP64");
  EXPECT_FALSE(pipe_from_ncu(nlohmann::json::object(), "alu_stream_kernel").has_value());
  EXPECT_EQ(describe_ncu_pipe(nlohmann::json::object(), "alu_stream_kernel"), "ncu counters absent");
  EXPECT_EQ(describe_ncu_pipe({{"ncu", {{"alu_stream_kernel", {{"other", 1}}}}}}, "alu_stream_kernel"),
            "ncu counters absent");
}

TEST(CoissueGain, SumsEachStreamsShareOfItsSoloRate) {
  EXPECT_DOUBLE_EQ(coissue_gain(1, 2, 1, 2), 2.0);
  EXPECT_DOUBLE_EQ(coissue_gain(1, 2, 0.5, 1), 1.0);
  EXPECT_THROW(coissue_gain(0, 1, 1, 1), std::invalid_argument);
}

}  // namespace
}  // namespace gd
