#include "report/compare.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/clock_check.hpp"
#include "report/format.hpp"
#include "support/sample_run.hpp"
#include "support/text.hpp"

namespace gd {
namespace {

using test_support::metric;

// The cells of a Markdown table row, trimmed.
std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::string cell;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '|' && row[i - 1] != '\\') {
      const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
      out.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  return out;
}

class CompareRuns : public ::testing::Test {
 protected:
  void SetUp() override {
    a.device = test_support::device("NVIDIA H100 80GB HBM3", 9, 132);
    a.run_id = "run-a";
    b.device = test_support::device("NVIDIA H200", 9, 132);
    b.run_id = "run-b";
    b.records[0].metrics[0].stats.median = 131;       // chain=64: B/A 0.5
    b.records[3].metrics[0].stats.median = 4.512 * 2;  // triad TB/s: B/A 2
  }
  RunDocument a = test_support::sample_run();
  RunDocument b = test_support::sample_run();
};

TEST_F(CompareRuns, HeaderNamesBothDevicesAndRuns) {
  const std::string md = compare_runs(a, b);
  EXPECT_EQ(md.rfind("# gpudissect comparison: NVIDIA H100 80GB HBM3 (A) vs NVIDIA H200 (B)\n", 0), 0u);
  EXPECT_TRUE(contains(md, "- **A**: NVIDIA H100 80GB HBM3, run `run-a`"));
  EXPECT_TRUE(contains(md, "- **B**: NVIDIA H200, run `run-b`"));
  EXPECT_EQ(cells(line_with(md, "| GPU ")), (std::vector<std::string>{"GPU", "NVIDIA H100 80GB HBM3", "NVIDIA H200"}));
  EXPECT_EQ(cells(line_with(md, "| Run id ")), (std::vector<std::string>{"Run id", "run-a", "run-b"}));
}

TEST_F(CompareRuns, RatiosAreBOverA) {
  const std::string all = compare_runs(a, b);
  const std::string md = all.substr(all.find("## Matched"));  // the full tables, after the list of moves
  EXPECT_EQ(cells(line_with(md, "|    64 |")),
            (std::vector<std::string>{"64", "time/cycles", "262 cycles", "131 cycles", "0.5", "-50.0% changed", ""}));
  EXPECT_EQ(cells(line_with(md, "| bandwidth/tbps ")),
            (std::vector<std::string>{"4", "triad", "bandwidth/tbps", "4.512 TB/s", "9.024 TB/s", "2", "+100.0% improvement"}));
  EXPECT_EQ(cells(line_with(md, "| bandwidth/percent_of_theoretical ")).at(5), "1");
  EXPECT_EQ(cells(line_with(md, "latency/cycles (analysis)")),
            (std::vector<std::string>{"", "latency/cycles (analysis)", "4 cycles", "4 cycles", "1", "", ""}));
}

// A comparison of two suites printed 10,798 lines with the moves only as counts (the first
// regression on line 3384): it leads with the list of what moved beyond noise, largest first.
TEST_F(CompareRuns, WhatMovedLeadsLargestFirst) {
  b.records[3].metrics[0].stats.median = 4.512 * 3;  // triad TB/s: B/A 3
  b.records[1].metrics[0].stats.median = 518 * 1.2;  // chain=128: +20 %
  a.device["uuid"] = "GPU-aaaa";
  b.device["uuid"] = "GPU-bbbb";
  const std::string md = compare_runs(a, b);
  const auto moved = md.find("## Moved beyond noise, largest first");
  ASSERT_NE(moved, std::string::npos) << md;
  EXPECT_LT(moved, md.find("## Headlines"));
  EXPECT_LT(moved, md.find("## Devices"));
  EXPECT_LT(moved, md.find("## Matched"));
  const std::string list = md.substr(moved, md.find("\n## ", moved + 1) - moved);
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(list);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("| ", 0) == 0 && !contains(line, "| Change ") && line.rfind("| --", 0) != 0) rows.push_back(cells(line));
  ASSERT_EQ(rows.size(), 3u) << list;
  ASSERT_EQ(rows[0].size(), 9u);
  EXPECT_EQ(std::vector<std::string>(rows[0].begin(), rows[0].begin() + 7),
            (std::vector<std::string>{"+200.0% improvement", "memory.bandwidth.dram", "blocks_per_sm=4 op=triad",
                                      "bandwidth/tbps", "4.512 TB/s", "13.54 TB/s", "3"}));
  const Change triad = *assess("bandwidth/tbps", a.records[3], b.records[3], {});
  EXPECT_EQ(rows[0][7], fmt_num(triad.low(), 4) + "–" + fmt_num(triad.high(), 4)) << "B/A's 95 % interval";
  EXPECT_EQ(rows[0][8], "<1e-6 (medians)");
  EXPECT_EQ(rows[1].at(0), "-50.0% changed");
  EXPECT_EQ(rows[1].at(2), "chain=64");
  EXPECT_EQ(rows[2].at(0), "+20.0% changed");
  EXPECT_EQ(rows[2].at(2), "chain=128");
  // The card-to-card note cites a section that exists (it cited "README, Comparing runs").
  EXPECT_TRUE(contains(md, "(docs/method.md, Comparing runs)")) << md;
  std::ifstream doc(std::string(GPUDISSECT_SOURCE_DIR) + "/docs/method.md");
  const std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(contains(text, "\n## Comparing runs\n")) << "the section the note cites";
}

// A point measured beside another process (flagged contended) that moved is shown, never counted:
// the tenant made it move, not the code or the card.
TEST_F(CompareRuns, AContendedPointsMoveIsShownButNotCounted) {
  add_flag(b.records[3], kContendedFlag);  // the triad point that doubled
  const ChangeCounts c = count_changes(a, b, {});
  EXPECT_EQ(c.improvements, 0);
  EXPECT_EQ(c.contended, 1);
  EXPECT_EQ(c.changed, 1) << "chain=64 still counts: it was measured alone";
  const std::string md = compare_runs(a, b);
  EXPECT_TRUE(contains(md, "> ⚠ B has 1 measured points taken while another process used its GPU")) << md;
  EXPECT_TRUE(contains(md, "not counted as regressions or improvements (1 such moves in all)")) << md;
  const std::string tables = md.substr(md.find("## Matched"));
  EXPECT_EQ(cells(line_with(tables, "| bandwidth/tbps ")).at(6), "+100.0% (contended: not counted)");
  const auto list = md.find("## Moved beyond noise");
  ASSERT_NE(list, std::string::npos) << "chain=64 moved";
  const std::string moved = md.substr(list, md.find("\n## ", list + 1) - list);
  EXPECT_FALSE(contains(moved, "memory.bandwidth.dram")) << "the list of moves holds what the code or card did";
  const auto j = compare_runs_json(a, b);
  EXPECT_EQ(j["summary"]["contended_not_counted"], 1);
  EXPECT_EQ(j["summary"]["contended_points"]["b"], 1);
  EXPECT_EQ(j["summary"]["improvements"], 0);
}

TEST_F(CompareRuns, NothingMovedNoList) {
  const std::string md = compare_runs(a, a);
  EXPECT_FALSE(contains(md, "## Moved beyond noise"));
  EXPECT_TRUE(contains(md, "Nothing moved beyond the runs' own noise"));
}

// The comparison opens with the headlines (report/headlines.hpp), each side naming its own record.
TEST_F(CompareRuns, HeadlinesComeFirstWithEachSidesRecord) {
  const std::string md = compare_runs(a, b);
  const auto row = cells(line_with(md, "| DRAM triad bandwidth"));
  ASSERT_GE(row.size(), 7u) << md.substr(0, 2000);
  EXPECT_EQ(row[1], "4.512");
  EXPECT_EQ(row[2], "9.024");
  EXPECT_EQ(row[3], "2");
  EXPECT_NE(row[5].find("memory.bandwidth.dram"), std::string::npos);
  EXPECT_LT(md.find("## Headlines"), md.find("## Devices"));
}

TEST_F(CompareRuns, SassFlagsFollowTheValues) {
  const std::string md = compare_runs(a, b);
  EXPECT_EQ(cells(line_with(md, "|   128 |")).back(), "A **MISMATCH** ⚠, B **MISMATCH** ⚠");
}

TEST_F(CompareRuns, UnmatchedRecordsAreListed) {
  b.records.erase(b.records.begin() + 1);  // chain=128 only in A
  Record peak = test_support::record("compute.peak.fp32", {}, {metric("throughput/tflops", "TFLOP/s", 60, 59, 61, 9)});
  b.records.push_back(peak);
  const std::string md = compare_runs(a, b);
  const auto only_a = md.find("## Only in A");
  const auto only_b = md.find("## Only in B");
  ASSERT_NE(only_a, std::string::npos);
  ASSERT_NE(only_b, std::string::npos);
  EXPECT_TRUE(contains(md.substr(only_a, only_b - only_a), "| latency.alu.ffma | chain=128 | ok"));
  EXPECT_TRUE(contains(md.substr(only_b), "| compute.peak.fp32 |"));
  EXPECT_FALSE(contains(md, "|   128 |")) << "an unmatched record has no comparison row";
  EXPECT_TRUE(contains(md, "3 records matched by probe id and parameters, 4 metrics compared; 2 matched but not compared "
                      "(skipped or failed); 1 only in A; 1 only in B."))
      << line_with(md, "records matched");
}

TEST_F(CompareRuns, MissingMetricZeroBaselineAndUnitMismatch) {
  b.records[3].metrics.pop_back();          // percent only in A
  a.records[0].metrics[0].stats.median = 0;  // ratio over zero
  b.records[1].metrics[0].unit = "ns";
  const std::string md = compare_runs(a, b);
  EXPECT_EQ(cells(line_with(md, "| bandwidth/percent_of_theoretical ")),
            (std::vector<std::string>{"4", "triad", "bandwidth/percent_of_theoretical", "91.75 %", "—", "", ""}));
  EXPECT_EQ(cells(line_with(md, "|    64 |")).at(4), "n/a");
  EXPECT_EQ(cells(line_with(md, "|   128 |")).at(4), "n/a (units differ)");
}

TEST_F(CompareRuns, SkippedOrFailedOnEitherSideIsNotCompared) {
  b.records[3].status = Status::Failed;
  b.records[3].reason = "out of memory";
  const std::string md = compare_runs(a, b);
  const auto section = md.find("## Not compared");
  ASSERT_NE(section, std::string::npos);
  EXPECT_TRUE(contains(md.substr(section), "| memory.bandwidth.dram | blocks_per_sm=4 op=triad | ok "));
  EXPECT_TRUE(contains(md.substr(section), "failed: out of memory"));
  EXPECT_FALSE(contains(md, "| bandwidth/tbps "));
}

TEST_F(CompareRuns, AnalysisAndMeasuredRecordsDoNotMatchEachOther) {
  a.records = {test_support::record("x.y.z", {}, {metric("m", "ns", 1, 1, 1, 1)})};
  b.records = a.records;
  b.records[0].derived = true;
  const std::string md = compare_runs(a, b);
  EXPECT_TRUE(contains(md, "0 records matched"));
  EXPECT_TRUE(contains(md.substr(md.find("## Only in B")), "| x.y.z (analysis) |"));
}

}  // namespace
}  // namespace gd

namespace gd {
namespace {

// A metric whose samples spread +-spread around the median, with a standard deviation of half that.
Metric noisy(const std::string& name, double median, double spread, std::size_t n = 10) {
  return test_support::metric(name, name.rfind("latency", 0) == 0 ? "cycles" : "TB/s", median, median - spread,
                              median + spread, n, spread / 2);
}

TEST(Assess, AMoveBeyondThresholdAndNoiseIsMarkedByItsDirection) {
  const CompareOptions opts;  // 4 %
  EXPECT_EQ(assess("bandwidth/tbps", noisy("bandwidth/tbps", 4.5, 0.01), noisy("bandwidth/tbps", 4.5 * 0.95, 0.01), opts)->kind,
            Change::Kind::Regression);
  EXPECT_EQ(assess("bandwidth/tbps", noisy("bandwidth/tbps", 4.5, 0.01), noisy("bandwidth/tbps", 4.5 * 1.05, 0.01), opts)->kind,
            Change::Kind::Improvement);
  EXPECT_EQ(assess("latency/cycles", noisy("latency/cycles", 100, 0.1), noisy("latency/cycles", 105, 0.1), opts)->kind,
            Change::Kind::Regression) << "latency is better lower";
  EXPECT_EQ(assess("level/first_bytes", noisy("level/first_bytes", 100, 0), noisy("level/first_bytes", 150, 0), opts)->kind,
            Change::Kind::Changed) << "no better direction";
  EXPECT_EQ(assess("bandwidth/tbps", noisy("bandwidth/tbps", 4.5, 0.01), noisy("bandwidth/tbps", 4.5 * 0.97, 0.01), opts)->kind,
            Change::Kind::Same) << "within the threshold";
}

// The noise is that of the two medians, not of their samples' extremes: +-10 % over 4 samples
// leaves a 6 % move inside it; over 1000 samples the same move is beyond it. More samples sharpen
// the test (the half-range rule grew blinder with them).
TEST(Assess, TheEstimatesNoiseRaisesTheBarAndMoreSamplesLowerIt) {
  const auto few = assess("bandwidth/tbps", noisy("bandwidth/tbps", 100, 10, 4), noisy("bandwidth/tbps", 94, 10, 4), {});
  ASSERT_TRUE(few);
  EXPECT_EQ(few->kind, Change::Kind::Same);
  EXPECT_NEAR(few->noise, std::hypot(1.2533 * 5 / 2 / 100, 1.2533 * 5 / 2 / 94), 1e-12);
  EXPECT_NEAR(few->p_value, std::erfc(-std::log(0.94) / few->noise / std::sqrt(2.0)), 1e-12);
  EXPECT_GT(few->p_value, 0.1);
  EXPECT_LT(few->low(), 0.94);
  EXPECT_GT(few->high(), 1.0) << "the interval holds 1";
  const auto many = assess("bandwidth/tbps", noisy("bandwidth/tbps", 100, 10, 1000), noisy("bandwidth/tbps", 94, 10, 1000), {});
  EXPECT_EQ(many->kind, Change::Kind::Regression);
  EXPECT_LT(many->p_value, kCompareAlpha);
  EXPECT_GT(many->low(), 0.9);
  EXPECT_LT(many->high(), 0.98);
  const auto single = assess("bandwidth/tbps", noisy("bandwidth/tbps", 100, 5, 1), noisy("bandwidth/tbps", 94, 0, 1), {});
  EXPECT_EQ(single->kind, Change::Kind::Regression) << "a single value has no spread to hide behind";
  EXPECT_EQ(single->noise, 0);
  EXPECT_TRUE(std::isnan(single->p_value));
  const Metric ns = test_support::metric("latency/ns", "ns", 10, 10, 10, 3);
  EXPECT_FALSE(assess("latency/cycles", noisy("latency/cycles", 100, 0), ns, {})) << "units differ";
}

// A metric measured as `n` samples spread evenly over median * (1 -+ spread), with the quartiles
// and sketch a run now keeps.
Metric sampled(const std::string& name, double median, double spread, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(median * (1 - spread + 2 * spread * (i + 0.5) / n));
  return Metric{name, "TB/s", summarize(v)};
}

// Where both runs kept sketches the rank test decides, and says how far apart the two
// distributions sit; the interval comes from the quartiles (0.9291 IQR / sqrt(n) per median).
TEST(Assess, SketchesOnBothSidesAreRankTested) {
  const Metric a = sampled("bandwidth/tbps", 100, 0.05, 200), b = sampled("bandwidth/tbps", 94, 0.05, 200);
  const auto moved = assess("bandwidth/tbps", a, b, {});
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->test, Change::Test::Rank);
  EXPECT_EQ(moved->kind, Change::Kind::Regression);
  EXPECT_LT(moved->p_value, kCompareAlpha);
  EXPECT_LT(moved->superiority, 0.1) << "most of B's samples lie below A's";
  EXPECT_NEAR(moved->noise, std::hypot(0.9291 * 5 / std::sqrt(200.0) / 100, 0.9291 * 4.7 / std::sqrt(200.0) / 94), 1e-4);
  // Significant but inside the threshold: not a move.
  const auto small = assess("bandwidth/tbps", a, sampled("bandwidth/tbps", 98, 0.05, 200), {});
  EXPECT_LT(small->p_value, kCompareAlpha);
  EXPECT_EQ(small->kind, Change::Kind::Same);
  // Beyond the threshold but five samples each, overlapping: too few for the rank test to reach
  // p < 0.001 at all, so the medians' test decides, and it cannot reject either.
  const auto few = assess("bandwidth/tbps", sampled("bandwidth/tbps", 100, 0.3, 5), sampled("bandwidth/tbps", 94, 0.3, 5), {});
  EXPECT_EQ(few->test, Change::Test::Median);
  EXPECT_GT(few->p_value, kCompareAlpha);
  EXPECT_EQ(few->kind, Change::Kind::Same);
  // Seven quiet samples a side 6 % apart: found by the medians' test (the rank test could not);
  // eight a side: the rank test, whose best p (no overlap) is now below the bar.
  const auto seven = assess("bandwidth/tbps", sampled("bandwidth/tbps", 100, 0.005, 7), sampled("bandwidth/tbps", 94, 0.005, 7), {});
  EXPECT_EQ(seven->test, Change::Test::Median);
  EXPECT_EQ(seven->kind, Change::Kind::Regression);
  const auto eight = assess("bandwidth/tbps", sampled("bandwidth/tbps", 100, 0.005, 8), sampled("bandwidth/tbps", 94, 0.005, 8), {});
  EXPECT_EQ(eight->test, Change::Test::Rank);
  EXPECT_LT(eight->p_value, kCompareAlpha);
  EXPECT_EQ(eight->kind, Change::Kind::Regression);
  // One side without a sketch (an older run file): the medians' test, from its sd.
  Metric old = b;
  old.stats.sketch.clear();
  EXPECT_EQ(assess("bandwidth/tbps", a, old, {})->test, Change::Test::Median);
}

}  // namespace
}  // namespace gd
