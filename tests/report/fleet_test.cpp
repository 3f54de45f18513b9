#include "report/fleet.hpp"

#include <gtest/gtest.h>

#include "cli/commands.hpp"
#include "core/clock_check.hpp"
#include "core/error.hpp"
#include "support/sample_run.hpp"

namespace gd {
namespace {

using test_support::metric;
using test_support::record;
using test_support::user_error_of;

// One fake rank's run file: the same two points, with this GPU's values.
RunDocument rank(int index, double dram_tbps, double ffma_cycles) {
  RunDocument d;
  d.run_id = "run-" + std::to_string(index);
  d.tool_version = "0.1.0";
  d.device = test_support::device("NVIDIA H200", 9, 132);
  d.device["index"] = index;
  d.device["pci_bus_id"] = "0000:0" + std::to_string(index) + ":00.0";
  d.device["uuid"] = "GPU-" + std::to_string(1000 + index) + "-abcd";
  d.options = {{"host", "node" + std::to_string(index / 4)}};
  d.records.push_back(record("memory.bandwidth.dram", {{"op", std::string("read")}}, {metric("bandwidth/tbps", "TB/s", dram_tbps, dram_tbps, dram_tbps, 9)}));
  d.records.push_back(record("latency.alu.ffma", {}, {metric("latency/cycles", "cycles", ffma_cycles, ffma_cycles, ffma_cycles, 9)}));
  d.records.push_back(test_support::not_run("memory.latency.chase", {}, Status::Failed, "boom"));
  return d;
}

TEST(Fleet, TheSlowCardStandsOutFromTheMedian) {
  const std::vector<RunDocument> runs = {rank(0, 4.50, 4.0), rank(1, 4.52, 4.0), rank(2, 3.90, 4.0), rank(5, 4.48, 4.0)};
  const FleetReport r = fleet_report(runs);
  ASSERT_EQ(r.gpus.size(), 4u);
  EXPECT_EQ(r.gpus[3], "node1 NVIDIA H200 #5 0000:05:00.0 GPU-1005-abc");
  ASSERT_EQ(r.metrics.size(), 2u) << "failed records are not in the spread";
  const FleetMetric& dram = r.metrics[0];
  EXPECT_EQ(dram.metric, "bandwidth/tbps");
  EXPECT_DOUBLE_EQ(dram.median, 4.49);
  EXPECT_DOUBLE_EQ(dram.min, 3.90);
  EXPECT_NEAR(dram.spread, (4.52 - 3.90) / 4.49, 1e-12);
  for (const auto& v : dram.values) EXPECT_EQ(v.outlier, v.value == 3.90) << v.gpu;
  EXPECT_FALSE(r.metrics[1].values[0].outlier);
  EXPECT_DOUBLE_EQ(r.metrics[1].spread, 0);
  ASSERT_TRUE(r.outliers_flagged);
  EXPECT_EQ(r.outliers_per_gpu[0].first, r.gpus[2]);
  EXPECT_EQ(r.outliers_per_gpu[0].second, 1);
  const std::string md = fleet_markdown(r);
  EXPECT_NE(md.find("node0 NVIDIA H200 #2 0000:02:00.0 GPU-1002-abc (-13.1 %)"), std::string::npos) << md;
}

// A card measured beside another process is not slow: its contended point is counted and said,
// never used, so it cannot make that card an outlier.
TEST(Fleet, AContendedPointIsLeftOutAndSaid) {
  std::vector<RunDocument> runs = {rank(0, 4.50, 4.0), rank(1, 4.52, 4.0), rank(2, 3.90, 4.0), rank(5, 4.48, 4.0)};
  add_flag(runs[2].records[0], kContendedFlag);
  const FleetReport r = fleet_report(runs);
  EXPECT_EQ(r.contended_per_gpu, (std::vector<int>{0, 0, 1, 0}));
  EXPECT_EQ(r.metrics[0].values.size(), 3u);
  EXPECT_EQ(r.outliers_per_gpu[0].second, 0) << "no outlier left";
  const std::string md = fleet_markdown(r);
  EXPECT_NE(md.find("> ⚠ node0 NVIDIA H200 #2 0000:02:00.0 GPU-1002-abc: 1 measured points ran while another process used "
                    "the GPU (flagged `contended`)"), std::string::npos) << md;
}

// One run file cannot forge the fleet's rows or verdicts: its strings are escaped.
TEST(Fleet, ARunFilesStringsCannotForgeRows) {
  std::vector<RunDocument> runs = {rank(0, 4.50, 4.0), rank(1, 4.52, 4.0), rank(2, 4.51, 4.0)};
  for (RunDocument& run : runs) run.records[0].id = "memory.x | forged | row\n| evil";
  runs[1].options["host"] = "node<script>alert(1)</script>";
  const std::string md = fleet_markdown(fleet_report(runs));
  EXPECT_NE(md.find("| memory.x \\| forged \\| row \\| evil | op=read |"), std::string::npos) << md;
  for (auto at = md.find("<script"); at != std::string::npos; at = md.find("<script", at + 1))
    EXPECT_EQ(md[at - 1], '\\') << "raw HTML: " << md;
}

TEST(Fleet, TwoGpusShowTheSpreadButFlagNoOne) {
  const FleetReport r = fleet_report({rank(0, 4.5, 4.0), rank(1, 3.9, 4.0)});
  EXPECT_FALSE(r.outliers_flagged);
  ASSERT_FALSE(r.metrics.empty());
  EXPECT_GT(r.metrics[0].spread, 0.1);
  for (const auto& m : r.metrics)
    for (const auto& v : m.values) EXPECT_FALSE(v.outlier);
  EXPECT_NE(fleet_markdown(r).find("no outliers are flagged"), std::string::npos);
}

TEST(Fleet, TheSameCardTwiceIsTwoRunsNotOneGpu) {
  RunDocument again = rank(0, 4.4, 4.0);
  again.run_id = "run-again";
  const FleetReport r = fleet_report({rank(0, 4.5, 4.0), again});
  EXPECT_NE(r.gpus[0], r.gpus[1]);
  EXPECT_EQ(r.metrics[0].values.size(), 2u);
}

TEST(DeviceList, AllCommaListsAndWhatIsWrong) {
  EXPECT_EQ(cli::parse_device_list("all", 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(cli::parse_device_list("3,1", 4), (std::vector<int>{3, 1}));
  EXPECT_NE(user_error_of([] { cli::parse_device_list("0,2", 2); }).find("device 2 does not exist; this machine has 2 GPU(s): 0..1"),
            std::string::npos);
  EXPECT_NE(user_error_of([] { cli::parse_device_list("1,1", 2); }).find("listed twice"), std::string::npos);
  EXPECT_NE(user_error_of([] { cli::parse_device_list("0,", 2); }).find("found ''"), std::string::npos);
  EXPECT_NE(user_error_of([] { cli::parse_device_list("-1", 2); }).find("found '-1'"), std::string::npos);
  EXPECT_NE(user_error_of([] { cli::parse_device_list("all", 0); }).find("no GPU"), std::string::npos);
  EXPECT_NE(user_error_of([] { cli::parse_device_list("99999999999", 2); }).find("expected 'all'"), std::string::npos);
}

}  // namespace
}  // namespace gd
