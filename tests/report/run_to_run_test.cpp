// The run-to-run noise table: what it pools, which runs it pairs, how a file is checked, and what
// it changes in compare's verdict.
#include "report/run_to_run.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "report/compare.hpp"
#include "support/sample_run.hpp"

namespace gd {
namespace {

using test_support::metric;
using test_support::record;

// A run of one metric at two points of one probe.
RunDocument run_of(const std::string& run_id, const std::string& uuid, double x, double y,
                   const std::string& gpu = "NVIDIA H200") {
  RunDocument d;
  d.run_id = run_id;
  d.device = test_support::device(gpu, 9, 132);
  d.device["uuid"] = uuid;
  d.records = {record("memory.bandwidth.dram", {{"size", "1"}}, {metric("bandwidth/tbps", "TB/s", x, x, x, 1)}),
               record("memory.bandwidth.dram", {{"size", "2"}}, {metric("bandwidth/tbps", "TB/s", y, y, y, 1)})};
  return d;
}

// Three runs of one card give three pairs; the sigma is the root mean square of every ln(B/A).
TEST(RunToRun, PoolsEveryPointOfEveryPairOfOneCard) {
  const std::vector<RunDocument> runs = {run_of("r1", "GPU-1", 4.0, 3.0), run_of("r2", "GPU-1", 4.4, 3.0),
                                         run_of("r3", "GPU-1", 4.0, 3.3)};
  const RunToRunTable t = build_run_to_run(runs);
  EXPECT_EQ(t.pairs, 3);
  EXPECT_EQ(t.gpu, "NVIDIA H200");
  ASSERT_EQ(t.groups.size(), 1u);
  const RunToRunGroup& g = t.groups.at({"memory.bandwidth.dram", "bandwidth/tbps"});
  EXPECT_EQ(g.moves, 6);
  const double l = std::log(1.1);  // pairs (1,2), (1,3), (2,3): 1.1, 1, 1/1.1 at size 1; 1, 1.1, 1 at size 2
  EXPECT_NEAR(g.sigma, std::sqrt(4 * l * l / 6), 1e-12);
  EXPECT_NEAR(g.max_abs, l, 1e-12);
  EXPECT_NEAR(*t.sigma("memory.bandwidth.dram", "bandwidth/tbps"), g.sigma, 1e-15);
  EXPECT_FALSE(t.sigma("memory.bandwidth.dram", "latency/ns"));
}

// Two cards differ by more than one card's runs: a pair is two runs of one UUID, and a metric that
// repeated exactly says nothing of how far it can move (no sigma rather than sigma 0).
TEST(RunToRun, PairsOnlyRunsOfOneCard) {
  const RunToRunTable t = build_run_to_run(
      {run_of("r1", "GPU-1", 4.0, 3.0), run_of("other", "GPU-2", 8.0, 6.0), run_of("r2", "GPU-1", 4.0, 3.0)});
  EXPECT_EQ(t.pairs, 1);
  EXPECT_EQ(t.runs.size(), 3u);
  EXPECT_EQ(t.groups.at({"memory.bandwidth.dram", "bandwidth/tbps"}).sigma, 0);
  EXPECT_FALSE(t.sigma("memory.bandwidth.dram", "bandwidth/tbps"));
  EXPECT_THROW(build_run_to_run({run_of("r1", "GPU-1", 4, 3), run_of("r2", "GPU-2", 4, 3)}), UserError);
  EXPECT_THROW(build_run_to_run({run_of("r1", "GPU-1", 4, 3)}), UserError);
  EXPECT_THROW(build_run_to_run({run_of("r1", "GPU-1", 4, 3), run_of("r1", "GPU-1", 4, 3)}), UserError);
  EXPECT_THROW(build_run_to_run({run_of("r1", "GPU-1", 4, 3), run_of("r2", "GPU-1", 4, 3, "NVIDIA H100")}), UserError);
}

TEST(RunToRun, RoundTripsThroughJson) {
  const RunToRunTable t = build_run_to_run({run_of("r1", "GPU-1", 4.0, 3.0), run_of("r2", "GPU-1", 4.2, 3.1)});
  const RunToRunTable back = run_to_run_from_json(to_json(t), "t.json");
  EXPECT_EQ(back.gpu, t.gpu);
  EXPECT_EQ(back.pairs, 1);
  ASSERT_EQ(back.runs.size(), 2u);
  EXPECT_EQ(back.runs[1].run_id, "r2");
  EXPECT_EQ(back.runs[1].uuid, "GPU-1");
  const auto key = std::make_pair(std::string("memory.bandwidth.dram"), std::string("bandwidth/tbps"));
  EXPECT_EQ(back.groups.at(key).moves, 2);
  EXPECT_DOUBLE_EQ(back.groups.at(key).sigma, t.groups.at(key).sigma);
}

// A damaged table is an error naming the file, never a table that silently judges nothing.
TEST(RunToRun, RefusesWhatIsNotATable) {
  const nlohmann::json good = to_json(build_run_to_run({run_of("r1", "GPU-1", 4.0, 3.0), run_of("r2", "GPU-1", 4.2, 3.1)}));
  const auto refused = [](const nlohmann::json& j) {
    try {
      run_to_run_from_json(j, "t.json");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refused(good), "accepted");
  nlohmann::json j = good;
  j["kind"] = "gpudissect-run";
  EXPECT_EQ(refused(j).rfind("t.json: not a run-to-run noise table", 0), 0u) << refused(j);
  j = good;
  j["version"] = 2;
  EXPECT_NE(refused(j).find("this build reads 1"), std::string::npos) << refused(j);
  j = good;
  j["groups"][0]["sigma"] = -0.1;
  EXPECT_NE(refused(j).find("sigma not in [0, max_abs]"), std::string::npos) << refused(j);
  j = good;
  j["groups"][0]["moves"] = 0;
  EXPECT_NE(refused(j).find("moves below 1"), std::string::npos) << refused(j);
  j = good;
  j["groups"].push_back(j["groups"][0]);
  EXPECT_NE(refused(j).find("appears twice"), std::string::npos) << refused(j);
  j = good;
  j["runs"].erase(1);
  EXPECT_NE(refused(j).find("fewer than two runs"), std::string::npos) << refused(j);
  j = good;
  j.erase("groups");
  EXPECT_NE(refused(j).find("groups"), std::string::npos) << refused(j);
  EXPECT_EQ(refused(nlohmann::json::array()).rfind("t.json: not a run-to-run", 0), 0u);
}

// A metric with sketches of 16 samples each, B's all 6 % above A's: the rank test alone calls it;
// the run-to-run spread of such a metric decides whether 6 % is beyond what the runs do anyway.
TEST(RunToRun, TheSpreadBetweenRunsDecidesAShiftTheSamplesAloneWouldCall) {
  auto sketched = [](double scale) {
    Metric m = metric("bandwidth/tbps", "TB/s", 4.0 * scale, 3.99 * scale, 4.01 * scale, 16);
    for (int i = 0; i < 16; ++i) m.stats.sketch.push_back((3.99 + 0.02 * i / 15) * scale);
    m.stats.q1 = 3.995 * scale;
    m.stats.q3 = 4.005 * scale;
    return m;
  };
  const Metric a = sketched(1), b = sketched(1.06);
  const auto alone = assess("bandwidth/tbps", a, b, {});
  ASSERT_TRUE(alone);
  EXPECT_EQ(alone->test, Change::Test::Rank);
  EXPECT_EQ(alone->kind, Change::Kind::Improvement);
  const auto wide = assess("bandwidth/tbps", a, b, {}, 0.02);  // 6 % is 2.9 sigma: p = 0.004
  EXPECT_EQ(wide->test, Change::Test::RunToRun);
  EXPECT_EQ(wide->kind, Change::Kind::Same);
  EXPECT_NEAR(wide->run_to_run, 0.02, 1e-15);
  EXPECT_GT(wide->noise, 0.02);
  EXPECT_TRUE(std::isfinite(wide->superiority)) << "the rank test's effect size is still reported";
  const auto narrow = assess("bandwidth/tbps", a, b, {}, 0.01);
  EXPECT_EQ(narrow->kind, Change::Kind::Improvement);
  EXPECT_LT(narrow->p_value, kCompareAlpha);
}

// A metric measured once has no noise of its own: without a table the threshold alone decides, with
// one its run-to-run spread does too.
TEST(RunToRun, AMetricMeasuredOnceIsJudgedByItsSpreadBetweenRuns) {
  const RunDocument a = run_of("a", "GPU-1", 4.0, 3.0), b = run_of("b", "GPU-1", 4.4, 3.0);
  EXPECT_EQ(count_changes(a, b, {}).improvements, 1);
  RunToRunTable t = build_run_to_run({run_of("r1", "GPU-1", 4.0, 3.0), run_of("r2", "GPU-1", 4.2, 3.3)});
  CompareOptions opts;
  opts.run_to_run = &t;
  EXPECT_EQ(count_changes(a, b, opts).improvements, 0) << "10 % is within 3.29 sigma of moves of 5 and 10 %";
  t.groups.begin()->second.sigma = 0.02;
  EXPECT_EQ(count_changes(a, b, opts).improvements, 1) << "10 % is 4.8 sigma of 2 %";
  const std::string md = compare_runs(a, b, opts);
  EXPECT_NE(md.find("Run-to-run noise: 1 (probe, metric) groups measured over 1 pairs"), std::string::npos);
  EXPECT_NE(md.find("(medians, run-to-run)"), std::string::npos);
  EXPECT_NE(compare_runs(a, b).find("No run-to-run noise table"), std::string::npos);
  EXPECT_EQ(compare_runs_json(a, b, opts)["summary"]["noise_table"]["pairs"], 1);
  EXPECT_TRUE(compare_runs_json(a, b)["summary"]["noise_table"].is_null());
}

}  // namespace
}  // namespace gd
