#include "report/markdown.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "core/clock_check.hpp"
#include "support/sample_run.hpp"
#include "support/text.hpp"

namespace gd {
namespace {

class MarkdownReport : public ::testing::Test {
 protected:
  RunDocument doc = test_support::sample_run();
};

TEST_F(MarkdownReport, TitleDeviceAndRun) {
  const std::string md = markdown_report(doc);
  EXPECT_EQ(md.rfind("# gpudissect report: NVIDIA H200\n", 0), 0u);
  EXPECT_TRUE(contains(line_with(md, "| SMs "), "| 132"));
  EXPECT_TRUE(contains(line_with(md, "| L2 "), "50 MiB"));
  EXPECT_TRUE(contains(line_with(md, "| NVML "), "unavailable: libnvidia-ml.so.1 not found"));
  EXPECT_TRUE(contains(line_with(md, "| PCIe "), "unknown"));
  EXPECT_TRUE(contains(line_with(md, "| Tool "), "gpudissect 0.1.0 (git abc123def456)"));
  EXPECT_TRUE(contains(line_with(md, "| State "), "complete"));
  EXPECT_FALSE(contains(md, "INTERRUPTED"));
}

TEST_F(MarkdownReport, InterruptedRunIsFlagged) {
  doc.complete = false;
  doc.finished_at.clear();
  const std::string md = markdown_report(doc);
  EXPECT_TRUE(contains(line_with(md, "| State "), "**INTERRUPTED**"));
  EXPECT_TRUE(contains(line_with(md, "| Finished "), "not finished"));
  EXPECT_TRUE(contains(md, "> **INTERRUPTED**: the run did not finish"));
}

TEST_F(MarkdownReport, SummaryCounts) {
  const std::string md = markdown_report(doc);
  EXPECT_TRUE(contains(md, "| Records | Measured | Analysis | Skipped | Failed |"));
  EXPECT_TRUE(contains(md, "|       6 |        3 |        1 |       1 |      1 |")) << md;
  EXPECT_TRUE(contains(md, "SASS of the records: 2 verified, 1 mismatch, 1 unverified, 0 not applicable.")) << md;
  EXPECT_TRUE(contains(md, "SASS MISMATCH in 1 records: the run failed."));
  EXPECT_TRUE(contains(md, "SASS unverified for 1 records"));
  EXPECT_TRUE(contains(md, "Repetition: 0 of 3 measured points stopped before their confidence target."));
  EXPECT_FALSE(contains(md, "did not converge"));
}

TEST_F(MarkdownReport, UnconvergedPointsAreCountedAndFlaggedInTheirRow) {
  doc.records[0].convergence = {true, false, "time cap", 3, 1};
  const std::string md = markdown_report(doc);
  EXPECT_TRUE(contains(md, "> ⚠ 1 measured points did not converge")) << md;
  EXPECT_TRUE(contains(line_with(md, "|    64 |"), "**time cap** n=3 ⚠")) << md;
  EXPECT_TRUE(contains(line_with(md, "|   128 |"), "n=20 |")) << md;
  EXPECT_FALSE(contains(line_with(md, "|   128 |"), "time cap")) << md;
}

TEST_F(MarkdownReport, ThrottledPointsAreCountedAndFlagged) {
  EXPECT_FALSE(contains(markdown_report(doc), "| Throttle")) << "no column while nothing was throttled";
  doc.records[3].extra["throttle"] = {{"by", {"power_cap"}}, {"ns", {{"power_cap", 5000000}}}};
  doc.records[0].extra["throttle"] = {{"by", nlohmann::json::array()}, {"ns", nlohmann::json::object()}};
  const std::string md = markdown_report(doc);
  EXPECT_TRUE(contains(md, "> ⚠ 1 measured points ran while NVML saw a clock limiter act")) << md;
  EXPECT_TRUE(contains(line_with(md, "| triad"), "**power_cap** ⚠")) << md;
}

// A run that shared its GPU says so before anything else, and counts the points in its summary.
TEST_F(MarkdownReport, AContendedRunSaysSoAtTheTopAndCountsItsPoints) {
  EXPECT_FALSE(contains(markdown_report(doc), "shared its GPU")) << "a run alone says nothing";
  doc.gpu_state = {{"tenancy", {{"before", {{"busy", true}, {"evidence", {"another process has a context on this GPU: pid 554 python3 (compute, 1002 MiB)"}}}}}}};
  add_flag(doc.records[3], kContendedFlag);
  const std::string md = markdown_report(doc);
  const std::string top = md.substr(0, md.find("## Summary"));
  EXPECT_TRUE(contains(top, "> ⚠ **This run shared its GPU with another process.** Before the first probe: another process has a "
                       "context on this GPU: pid 554 python3 (compute, 1002 MiB). 1 measured points ran beside it")) << md;
  EXPECT_TRUE(contains(md, "> ⚠ 1 measured points ran while another process had a context on the GPU")) << md;
  EXPECT_TRUE(contains(line_with(md, "| triad"), "contended")) << "its row's flags";
}

TEST_F(MarkdownReport, ClockSourcesAreTellable) {
  doc.records[3].sm_clock_mhz = 0;
  doc.records[3].sm_clock_source = ClockSource::None;
  doc.records[3].sm_clock_detail = "no SM code runs";
  const std::string md = markdown_report(doc);
  EXPECT_TRUE(contains(line_with(md, "| triad"), " none |")) << md;
  EXPECT_TRUE(contains(line_with(md, "|                       4 |"), "1980 (pts)")) << md;
  EXPECT_TRUE(contains(md, "How to read the tables"));
}

TEST_F(MarkdownReport, OneTablePerProbeWithParamsMetricsAndSass) {
  const std::string md = markdown_report(doc);
  EXPECT_TRUE(contains(md, "## latency\n\n### latency.alu.ffma\n\n| chain | time/cycles [cycles] | SM MHz | Conv. | SASS")) << md;
  const std::string row64 = line_with(md, "|    64 |");
  EXPECT_TRUE(contains(row64, "262 (260–270, n=20)")) << row64;
  EXPECT_TRUE(contains(row64, "| verified")) << row64;
  EXPECT_TRUE(contains(line_with(md, "|   128 |"), "**MISMATCH** ⚠"));
  EXPECT_TRUE(contains(md, "- ⚠ SASS mismatch: expected FFMA >= 64, found FFMA x32, FMUL x32 (chain=128)"));
  const std::string triad = line_with(md, "| triad");
  EXPECT_TRUE(contains(triad, "4.512 (4.498–4.521, n=15)")) << triad;
  EXPECT_TRUE(contains(triad, "91.75 (91.47–91.94, n=15)")) << triad;
  EXPECT_TRUE(contains(md, "bandwidth/tbps [TB/s]"));
  EXPECT_LT(md.find("## latency"), md.find("## memory")) << "categories in run order";
}

TEST_F(MarkdownReport, AnalysisRecordsHaveTheirOwnTable) {
  const std::string md = markdown_report(doc);
  const auto at = md.find("#### latency.alu.ffma: analysis\n\n| latency/cycles [cycles] |");
  ASSERT_NE(at, std::string::npos) << md;
  EXPECT_TRUE(contains(md.substr(at), "|                       4 |"));
  // An analysis row carries the SASS status of the points it came from (the worst of them).
  EXPECT_TRUE(contains(line_with(md, "|                       4 |"), "**unverified** ⚠"));
}

TEST_F(MarkdownReport, SkippedAndFailedWithReasonsLast) {
  const std::string md = markdown_report(doc);
  const auto section = md.find("## Skipped and failed");
  ASSERT_NE(section, std::string::npos);
  EXPECT_GT(section, md.find("## memory"));
  const std::string last = md.substr(section);
  EXPECT_TRUE(contains(line_with(last, "compute.tcgen05.mma"), "| skipped    | requires tcgen05; this GPU is sm_90"));
  EXPECT_TRUE(contains(line_with(last, "memory.latency.chase"), "**failed** | cudaErrorIllegalAddress \\| sticky"))
      << "a pipe in a reason must not break the table";
  EXPECT_FALSE(contains(md, "### compute.tcgen05.mma")) << "a probe that never ran has no value table";
}

TEST_F(MarkdownReport, NothingSkipped) {
  doc.records.resize(4);
  EXPECT_TRUE(contains(markdown_report(doc), "## Skipped and failed\n\nNone: every selected probe ran."));
}

TEST_F(MarkdownReport, UnverifiedSassIsFlagged) {
  doc.records[0].sass = {SassStatus::Unverified, "nvdisasm not found"};
  const std::string md = markdown_report(doc);
  EXPECT_TRUE(contains(line_with(md, "|    64 |"), "**unverified** ⚠"));
  EXPECT_TRUE(contains(md, "- ⚠ SASS unverified: nvdisasm not found (chain=64)"));
}

TEST_F(MarkdownReport, ToleratesAnEmptyDevice) {
  doc.device = nlohmann::json::object();
  const std::string md = markdown_report(doc);
  EXPECT_EQ(md.rfind("# gpudissect report: unknown GPU\n", 0), 0u);
  EXPECT_TRUE(contains(line_with(md, "| SMs "), "unknown"));
  EXPECT_TRUE(contains(line_with(md, "| Compute capability "), "unknown"));
  doc.device = nullptr;
  EXPECT_TRUE(contains(markdown_report(doc), "| NVML "));
}

TEST(MarkdownReportFixture, FullDeviceDescription) {
  const std::string md = markdown_report(read_run_file(test_support::fixture("runs/h200_small.json")));
  EXPECT_TRUE(contains(line_with(md, "| Compute capability "), "9.0 (running sm_90a code)"));
  EXPECT_TRUE(contains(line_with(md, "| SM clock "), "max 1980 MHz, 1980 MHz at start (NVML)"));
  EXPECT_TRUE(contains(line_with(md, "| Memory "), "140.4 GiB, 6144-bit bus, max 3201 MHz, 4.918 TB/s theoretical"));
  EXPECT_TRUE(contains(line_with(md, "| L2 "), "60 MiB"));
  EXPECT_TRUE(contains(line_with(md, "| Driver / runtime "), "driver 570.86.15 (CUDA 12.8), runtime CUDA 12.4"));
  EXPECT_TRUE(contains(line_with(md, "| NVML "), "118.5 W of 700 W limit, 34 °C"));
  EXPECT_TRUE(contains(line_with(md, "| ECC "), "on"));
  EXPECT_TRUE(contains(line_with(md, "| PCIe "), "Gen5 x16"));
  EXPECT_TRUE(contains(line_with(md, "| Features "), "clusters, tma, wgmma, setmaxnreg"));
  EXPECT_TRUE(contains(line_with(md, "| write |"), "**unverified** ⚠"));
  EXPECT_TRUE(contains(line_with(md, "| triad"), "1755 (?)")) << "a version-1 file does not say where its clock came from";
}

}  // namespace
}  // namespace gd
