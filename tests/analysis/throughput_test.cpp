#include "analysis/throughput.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

RegionTiming block(unsigned sm, long long start, long long cycles) { return RegionTiming{start, cycles, 0, sm, 0}; }

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
  near.same_pipe_score = 1.4;
  EXPECT_EQ(pipe_by_interference({{"tensor", near}, {"INT", same}}), "tensor");
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
