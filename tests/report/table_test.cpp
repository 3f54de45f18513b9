#include "report/table.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "support/sample_run.hpp"

namespace gd {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> print_all(const std::vector<Record>& records, std::size_t max_metrics = 3) {
  std::ostringstream os;
  TerminalTable table(os, max_metrics);
  for (const Record& r : records) table.on_record(r);
  return lines_of(os.str());
}

TEST(TerminalTable, OneLinePerRecordAfterOneHeader) {
  const auto doc = test_support::sample_run();
  const auto lines = print_all(doc.records);
  ASSERT_EQ(lines.size(), 1 + doc.records.size());
  EXPECT_EQ(lines[0].rfind("status", 0), 0u);
  EXPECT_EQ(lines[1], "ok        latency.alu.ffma              chain=64                    verified    "
                      "time/cycles 262 cycles (260–270, n=20)");
}

TEST(TerminalTable, StatusSassAndReasons) {
  const auto lines = print_all(test_support::sample_run().records);
  EXPECT_NE(lines[2].find("MISMATCH"), std::string::npos);
  EXPECT_EQ(lines[3].rfind("analysis", 0), 0u);
  EXPECT_NE(lines[3].find("latency/cycles 4 cycles"), std::string::npos);
  EXPECT_EQ(lines[5].rfind("SKIP", 0), 0u);
  EXPECT_NE(lines[5].find("requires tcgen05; this GPU is sm_90"), std::string::npos);
  EXPECT_EQ(lines[6].rfind("FAIL", 0), 0u);
  EXPECT_NE(lines[6].find("cudaErrorIllegalAddress"), std::string::npos);
}

TEST(TerminalTable, ColumnsLineUpAcrossRecords) {
  const auto lines = print_all(test_support::sample_run().records);
  // Every data line has its SASS column starting where the header's does.
  const auto sass_col = lines[0].find("sass");
  for (std::size_t i = 1; i <= 3; ++i) EXPECT_EQ(lines[i][sass_col - 1], ' ') << lines[i];
  EXPECT_EQ(lines[1].find("verified"), sass_col);
  EXPECT_EQ(lines[2].find("MISMATCH"), sass_col);
}

TEST(TerminalTable, ShowsFirstMetricsAndCountsTheRest) {
  Record r = test_support::record("memory.bandwidth.dram", {},
                                  {test_support::metric("a", "x", 1, 1, 1, 1), test_support::metric("b", "x", 2, 2, 2, 1),
                                   test_support::metric("c", "x", 3, 3, 3, 1)});
  const auto lines = print_all({r}, 2);
  EXPECT_NE(lines[1].find("a 1 x  b 2 x  (+1 more)"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[1].find("c 3 x"), std::string::npos);
}

}  // namespace
}  // namespace gd
