// compare's statistics, calibrated on committed runs: it must stay quiet between two runs of one
// card and still find a small move in a quiet metric and a large move in a noisy one.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "core/run_file.hpp"
#include "report/compare.hpp"
#include "report/run_to_run.hpp"
#include "support/committed_suite.hpp"

namespace gd {
namespace {

using test_support::kMeasuredDir;


// (max - min) / 2 / |median|: how far a metric's own samples spread.
double half_range(const Metric& m) { return m.stats.n < 2 ? 0 : (m.stats.max - m.stats.min) / 2 / std::fabs(m.value()); }

// A real move of a metric: every statistic of its samples scaled, the sketch the rank test reads too.
void scale(Summary& s, double k) {
  for (double* v : {&s.median, &s.min, &s.max, &s.mean, &s.stddev, &s.q1, &s.q3}) *v *= k;
  for (double& v : s.sketch) v *= k;
}

// Every metric both runs have for a record both measured, as (A's, B's).
template <class F>
void each_pair(const RunDocument& a, RunDocument& b, F f) {
  for (const Record& ra : a.records) {
    if (ra.status != Status::Ok) continue;
    for (Record& rb : b.records) {
      if (rb.status != Status::Ok || rb.id != ra.id || rb.derived != ra.derived || to_string(rb.params) != to_string(ra.params))
        continue;
      for (const Metric& ma : ra.metrics)
        for (Metric& mb : rb.metrics)
          if (mb.name == ma.name) f(ra, ma, rb, mb);
    }
  }
}

// Two full runs of one card, the same code, minutes apart: the 2026-11-29 pair (written before
// runs kept quartiles and sketches: the medians' test from sd) and the current dataset with its
// repeat (the rank test of the sketches, quartile intervals).
struct Pair {
  const char* a;
  const char* b;
  Change::Test test;  // what compare tests most multi-sample metrics of this pair with
};
const Pair kPairs[] = {{"nvidia-h200-2026-11-29.json", "nvidia-h200-2026-11-29-repeat.json", Change::Test::Median},
                       {"nvidia-h200-2026-12-02f-suite.json.gz", "nvidia-h200-2026-12-02f-repeat.json.gz", Change::Test::Rank}};

class CompareCalibration : public ::testing::TestWithParam<Pair> {};

// Over the metrics a test can judge (the threshold alone decides the others). A metric measured
// once (an analysis's knee, a power reading, one curve's fit) has no spread of its own in a run:
// between the two current runs 154 of those 6,393 (2.4 %) moved past 4 %, which only the
// run-to-run spread of such metrics, measured over more repeats, could judge (issue 37's closing
// note says so). Where the rank test applies (8 samples a side or more) it is sharp enough to see
// the runs themselves move: 24 of those 341 metrics are called (PCIe latency 15-23 %, atomics
// 10-17 % apart between the two runs), inside the 1 % over all tested metrics; what separates a
// drifting run from a regression is the run-to-run spread, not yet measured (issue 37's note).
TEST_P(CompareCalibration, TwoRunsOfOneCardRaiseUnderOnePercentFalseAlarms) {
  const RunDocument a = read_run_file(kMeasuredDir + GetParam().a);
  RunDocument b = read_run_file(kMeasuredDir + GetParam().b);
  ASSERT_EQ(a.device["uuid"], b.device["uuid"]);
  int tested = 0, called = 0, ranked = 0, rank_called = 0;
  std::string first;
  each_pair(a, b, [&](const Record& ra, const Metric& ma, const Record& rb, Metric&) {
    const auto change = assess(ma.name, ra, rb, {});
    if (!change || change->test == Change::Test::None) return;
    ++tested;
    const bool rank = change->test == Change::Test::Rank;
    ranked += rank;
    if (change->kind == Change::Kind::Same) return;
    ++called;
    rank_called += rank;
    if (first.empty()) first = ra.id + " " + to_string(ra.params) + " " + ma.name;
  });
  ASSERT_GT(tested, 300);
  EXPECT_LT(called, 0.01 * tested) << called << " of " << tested << " tested metrics called; the first: " << first;
  std::cout << called << " of " << tested << " tested metrics called, " << rank_called << " of " << ranked << " by the rank test\n";
  if (GetParam().test == Change::Test::Rank) EXPECT_GT(ranked, 300) << "the sketched pair has metrics enough for the rank test";
}

// A 5 % shift planted in every metric whose own half-range is under 1 %.
TEST_P(CompareCalibration, AFivePercentShiftInAQuietMetricIsFound) {
  const RunDocument a = read_run_file(kMeasuredDir + GetParam().a);
  RunDocument b = read_run_file(kMeasuredDir + GetParam().b);
  int planted = 0, found = 0, by_test = 0;
  each_pair(a, b, [&](const Record&, const Metric& ma, const Record&, Metric& mb) {
    if (mb.stats.n < 2 || mb.value() == 0 || half_range(mb) >= 0.01) return;
    Metric shifted = mb;
    scale(shifted.stats, 1.05);
    const auto change = assess(ma.name, ma, shifted, {});
    if (!change) return;
    ++planted;
    found += change->kind != Change::Kind::Same;
    by_test += change->test == GetParam().test;
  });
  ASSERT_GT(planted, 300);
  EXPECT_GE(found, 0.95 * planted) << found << " of " << planted;
  // Most quiet metrics hold 3 to 7 samples, too few for the rank test: the medians' test finds
  // those; the sketched pair's metrics with 8 samples or more are rank-tested.
  // The old pair's metrics with no spread at all (sd 0) are decided by the threshold alone.
  if (GetParam().test == Change::Test::Rank) EXPECT_GT(by_test, 30) << "some of the shifts were found by the rank test";
  else EXPECT_GE(by_test, 0.8 * planted) << "the old pair is tested by its medians";
  std::cout << found << " of " << planted << " planted shifts found, " << by_test << " by the pair's own test\n";
}

INSTANTIATE_TEST_SUITE_P(Pairs, CompareCalibration, ::testing::ValuesIn(kPairs),
                         [](const ::testing::TestParamInfo<Pair>& p) {
                           return p.param.test == Change::Test::Rank ? std::string("SketchedRepeat") : std::string("OldRepeat");
                         });

// Repeat full runs of two H200s with the same probes (data/measured): the dataset's card and its
// repeat, and three runs of another card on 2026-12-03. Each card's table judges the other card's
// pairs (out of sample: another card, another day); the committed table pools all five.
const std::vector<std::string> kCardD = {"nvidia-h200-2026-12-02f-suite.json.gz", "nvidia-h200-2026-12-02f-repeat.json.gz"};
const std::vector<std::string> kCardX = {"nvidia-h200-2026-12-03-noise-r1.json.gz", "nvidia-h200-2026-12-03-noise-r2.json.gz",
                                         "nvidia-h200-2026-12-03-noise-r3.json.gz"};
const std::string kCommittedTable = "nvidia-h200-run-to-run.json.gz";

const std::vector<RunDocument>& runs_of(const std::vector<std::string>& names) {
  static std::map<std::string, std::vector<RunDocument>> cache;
  auto& runs = cache[names.front()];
  if (runs.empty())
    for (const auto& n : names) runs.push_back(read_run_file(kMeasuredDir + n));
  return runs;
}

struct Holdout {
  const std::vector<std::string>* table_from;
  const std::vector<std::string>* judged;
};
const Holdout kHoldouts[] = {{&kCardX, &kCardD}, {&kCardD, &kCardX}};
std::string holdout_name(const ::testing::TestParamInfo<Holdout>& p) {
  return p.param.judged == &kCardD ? "DatasetCardJudgedByTheOther" : "OtherCardJudgedByTheDatasets";
}

class RunToRunCalibration : public ::testing::TestWithParam<Holdout> {};

// Over every metric compare compares (measured once or many times, every test or none): with the
// other card's table, each pair of one card's runs raises under 1 % false alarms.
TEST_P(RunToRunCalibration, TwoRunsOfOneCardRaiseUnderOnePercentFalseAlarmsOverAllMetrics) {
  const RunToRunTable table = build_run_to_run(runs_of(*GetParam().table_from));
  CompareOptions opts;
  opts.run_to_run = &table;
  const auto& runs = runs_of(*GetParam().judged);
  ASSERT_NE(runs[0].device["uuid"], runs_of(*GetParam().table_from)[0].device["uuid"]) << "two cards";
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (std::size_t j = i + 1; j < runs.size(); ++j) {
      int compared = 0, called = 0, by_table = 0;
      std::string first;
      for_each_compared_metric(runs[i], runs[j], [&](const Record& ra, const Metric& ma, const Record& rb, const Metric&) {
        const auto change = assess(ma.name, ra, rb, opts);
        if (!change) return;
        ++compared;
        by_table += change->run_to_run > 0;
        if (change->kind == Change::Kind::Same) return;
        ++called;
        if (first.empty()) first = ra.id + " " + to_string(ra.params) + " " + ma.name;
      });
      ASSERT_GT(compared, 9000);
      // The rest repeated exactly on the other card (a count, a knee on its grid: sigma 0 says
      // nothing of how far they can move) or were not measured there.
      EXPECT_GT(by_table, 0.8 * compared) << "the other card's table knows most metrics";
      EXPECT_LT(called, 0.01 * compared) << called << " of " << compared << " metrics called; the first: " << first;
      std::cout << runs[i].run_id << " vs " << runs[j].run_id << ": " << called << " of " << compared
                << " metrics called, " << by_table << " with a run-to-run sigma\n";
    }
}

// A 5 % shift planted in every metric whose own half-range is under 1 % is still found with the
// run-to-run spread added to its noise.
TEST_P(RunToRunCalibration, AFivePercentShiftInAQuietMetricIsFound) {
  const RunToRunTable table = build_run_to_run(runs_of(*GetParam().table_from));
  CompareOptions opts;
  opts.run_to_run = &table;
  const auto& runs = runs_of(*GetParam().judged);
  int planted = 0, found = 0;
  for_each_compared_metric(runs[0], runs[1], [&](const Record& ra, const Metric& ma, const Record& rb, const Metric& mb) {
    if (mb.stats.n < 2 || mb.value() == 0 || half_range(mb) >= 0.01) return;
    Record shifted = rb;
    for (Metric& m : shifted.metrics)
      if (m.name == mb.name) scale(m.stats, 1.05);
    const auto change = assess(ma.name, ra, shifted, opts);
    if (!change) return;
    ++planted;
    found += change->kind != Change::Kind::Same;
  });
  ASSERT_GT(planted, 1000);
  EXPECT_GE(found, 0.95 * planted) << found << " of " << planted;
  std::cout << found << " of " << planted << " planted shifts found\n";
}

INSTANTIATE_TEST_SUITE_P(Cards, RunToRunCalibration, ::testing::ValuesIn(kHoldouts), holdout_name);

// The committed table is what `noise` gives from the five committed runs, so it cannot drift from
// them (and README's `compare --noise` reads a measured table, not a hand-made one).
TEST(RunToRunCommitted, TheTableIsWhatTheCommittedRunsGive) {
  std::vector<RunDocument> all = runs_of(kCardD);
  for (const auto& r : runs_of(kCardX)) all.push_back(r);
  const RunToRunTable built = build_run_to_run(all);
  const RunToRunTable committed = read_run_to_run(kMeasuredDir + kCommittedTable);
  EXPECT_EQ(committed.pairs, 4);
  EXPECT_EQ(committed.runs.size(), 5u);
  ASSERT_EQ(committed.groups.size(), built.groups.size());
  for (const auto& [key, g] : built.groups) {
    const RunToRunGroup& c = committed.groups.at(key);
    EXPECT_EQ(c.moves, g.moves) << key.first << " " << key.second;
    EXPECT_NEAR(c.sigma, g.sigma, 1e-12 * (1 + g.sigma)) << key.first << " " << key.second;
  }
}

// The case that showed the old rule blind: fa3, causal, seq 4096, 2048 samples spread over more
// than half the median either way. Multiplying the median by 1.5 was "0 changes" over 8861 metrics.
TEST(CompareCalibrationSingle, AOneAndAHalfFoldMoveOfAWidelySpreadPointIsFound) {
  const RunDocument a = run_from_json(test_support::committed_suite(), test_support::kCommittedSuite);
  RunDocument b = a;
  Metric* moved = nullptr;
  for (Record& r : b.records)
    if (r.id == "attention.breakdown" && !r.derived && to_string(r.params) == "causal=1 head_dim=64 schedule=fa3 seq=4096 variant=full")
      for (Metric& m : r.metrics)
        if (m.name == "cycles/per_kv_tile") moved = &m;
  ASSERT_TRUE(moved);
  const double half_range_a = half_range(*moved);
  scale(moved->stats, 1.5);
  // The old rule's noise, the two half-ranges added, covers the 50 % move: it called nothing.
  ASSERT_GT(half_range_a + half_range(*moved), 0.5) << "the point is still as widely spread";
  const ChangeCounts c = count_changes(a, b, {});
  EXPECT_EQ(c.regressions + c.improvements + c.changed, 1);
  // And with the committed run-to-run table: the point's spread between runs is far below 50 %.
  const RunToRunTable table = read_run_to_run(kMeasuredDir + kCommittedTable);
  CompareOptions opts;
  opts.run_to_run = &table;
  const ChangeCounts with_table = count_changes(a, b, opts);
  EXPECT_EQ(with_table.regressions + with_table.improvements + with_table.changed, 1);
  const nlohmann::json j = compare_runs_json(a, b);
  bool seen = false;
  for (const auto& rec : j["matched"])
    for (const auto& m : rec["metrics"])
      if (m["change"] == "changed") {
        seen = true;
        EXPECT_EQ(rec["id"], "attention.breakdown");
        EXPECT_LT(m["p_value"].get<double>(), kCompareAlpha);
        EXPECT_LT(m["interval"][0].get<double>(), 1.5);
        EXPECT_GT(m["interval"][1].get<double>(), 1.5);
      }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace gd
