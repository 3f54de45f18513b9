// End to end through the real binary (its registered probes): coverage, guide, the
// cross-generation compare and the probes' declarations in `list --json`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "sass/disasm.hpp"

namespace gd {
namespace {

const std::string kRun = std::string(GPUDISSECT_SOURCE_DIR) + "/data/measured/nvidia-h200-2026-11-29.json";
const std::string kRefs = std::string(GPUDISSECT_SOURCE_DIR) + "/data/reference/";

sass::CommandResult gpudissect(const std::string& args) {
  return sass::run_command(std::string(GPUDISSECT_BINARY) + " " + args + " 2>&1");
}

TEST(CoverageCommand, EveryDeclaredItemIdExistsAndTheH200RunIsMeasuredPerCategory) {
  // Exit 1 would mean a probe covers an item id the seed list lacks: CI fails on it here.
  const auto bare = gpudissect("coverage");
  EXPECT_EQ(bare.status, 0) << bare.output;
  EXPECT_EQ(bare.output.find("naming no seed item"), std::string::npos) << bare.output;
  const auto r = gpudissect("coverage " + sass::shell_quote(kRun));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("| Category"), std::string::npos);
  EXPECT_NE(r.output.find("| **total**"), std::string::npos);
  const auto at = r.output.find("| `memory.dram.latency` ");
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string row = r.output.substr(at, r.output.find('\n', at) - at);
  EXPECT_NE(row.find("| measured "), std::string::npos) << row;
  EXPECT_NE(row.find("sm_120 372"), std::string::npos) << row;
  EXPECT_NE(r.output.find("| not applicable "), std::string::npos);  // padded to the column
}

TEST(GuideCommand, StatesThePrinciplesTheSuiteMeasures) {
  const auto r = gpudissect("guide " + sass::shell_quote(kRun));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("**1. Occupancy per sub-core"), std::string::npos);
  EXPECT_NE(r.output.find("— measured"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Little's law over this chip's DRAM"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("**not measured**"), std::string::npos) << "co-issue has no probe yet";
}

TEST(CompareCommand, CrossGenerationTableWithBothReferences) {
  const auto r = gpudissect("compare " + sass::shell_quote(kRun) + " " + sass::shell_quote(kRefs + "sm_120-paper-rtx-pro-5000.json") +
                            " " + sass::shell_quote(kRefs + "sm_100-study-b200.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("# Cross-generation comparison"), std::string::npos);
  EXPECT_NE(r.output.find("`memory.dram.latency`"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| ratio 3/1 |"), std::string::npos) << r.output;
  EXPECT_EQ(gpudissect("compare " + sass::shell_quote(kRun) + " " + sass::shell_quote(kRefs + "sm_100-study-b200.json") +
                       " --json").status, 2);
}

TEST(ReportCommand, HtmlWithoutPandasSaysWhatToInstall) {
  const auto r = sass::run_command("GPUDISSECT_PYTHON=/nonexistent/python3 " + std::string(GPUDISSECT_BINARY) +
                                   " report " + sass::shell_quote(kRun) + " --format html --out - 2>&1");
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("Python 3, pandas and matplotlib"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("scripts/setup.sh"), std::string::npos) << r.output;
}

TEST(ListCommand, ProbesDeclareTheirViewsAndCovers) {
  const auto r = sass::run_command(std::string(GPUDISSECT_BINARY) + " list --json --filter memory.latency.chase");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  const auto& p = j["probes"][0];
  EXPECT_EQ(p["views"][0]["kind"], "line");
  EXPECT_EQ(p["views"][0]["spans"]["label"], "level");
  EXPECT_EQ(p["covers"][0]["item"], "memory.l1.latency");
}

}  // namespace
}  // namespace gd
