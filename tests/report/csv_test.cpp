#include "report/csv.hpp"
#include "report/seed_items.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "support/sample_run.hpp"

namespace gd {
namespace {

using Row = std::vector<std::string>;

// A strict RFC 4180 reader (report/seed_items.hpp, tested there): if write_csv quoted anything
// wrongly, fields shift or merge and the row widths differ.
std::vector<Row> read_csv(const std::string& text) {
  EXPECT_TRUE(!text.empty() && text.back() == '\n') << "CSV must end with a line break";
  return gd::parse_csv(text);
}

std::string csv_of(const RunDocument& doc) {
  std::ostringstream os;
  write_csv(doc, os);
  return os.str();
}

TEST(CsvField, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(csv_field("plain text"), "plain text");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field(""), "");
}

// OWASP's CSV injection guidance: text a spreadsheet would run as a formula is neutralized with a
// leading apostrophe; numbers, negative ones included, stay numbers.
TEST(CsvField, FormulaTextIsNeutralizedNumbersAreNot) {
  EXPECT_EQ(csv_field("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
  EXPECT_EQ(csv_field("+cmd"), "'+cmd");
  EXPECT_EQ(csv_field("-2+3"), "'-2+3");
  EXPECT_EQ(csv_field("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(csv_field("\tx"), "'\tx");
  EXPECT_EQ(csv_field("-1.5"), "-1.5");
  EXPECT_EQ(csv_field("+2e-3"), "'+2e-3") << "from_chars takes no leading '+': the cell is text, so it is neutralized";
  EXPECT_EQ(csv_field("a=b"), "a=b") << "only the first character makes a formula";
}

TEST(Csv, ARecordsTextCannotBecomeAFormula) {
  RunDocument doc = test_support::sample_run();
  doc.records[0].reason = "=HYPERLINK(\"http://evil\",\"click\")";
  const auto rows = read_csv(csv_of(doc));
  bool seen = false;
  for (const Row& r : rows)
    if (r.size() > 6 && r[6].find("HYPERLINK") != std::string::npos) {
      EXPECT_EQ(r[6].front(), '\'') << r[6];
      seen = true;
    }
  EXPECT_TRUE(seen);
}

TEST(Csv, HeaderAndOneRowPerRecordAndMetric) {
  const auto rows = read_csv(csv_of(test_support::sample_run()));
  ASSERT_EQ(rows.size(), 1u + 7u);  // 5 metrics in 4 records, plus one row each for skipped and failed
  EXPECT_EQ(rows[0], (Row{"run_id", "gpu", "id", "category", "params", "status", "reason", "sass_status", "derived",
                          "metric", "unit", "value", "median", "min", "max", "mean", "stddev", "n", "sm_clock_mhz",
                          "sm_clock_source", "converged", "stop_reason", "sass_detail", "throttled_by",
                          "param.chain", "param.blocks_per_sm", "param.op", "param.bytes"}));
  for (const Row& r : rows) EXPECT_EQ(r.size(), rows[0].size());
}

TEST(Csv, FieldsCarryTheRecordExactly) {
  const auto rows = read_csv(csv_of(test_support::sample_run()));
  const Row& triad = rows[4];
  EXPECT_EQ(triad[0], "2025-11-29T14:00:00Z-5e1a2b3c");
  EXPECT_EQ(triad[1], "NVIDIA H200");
  EXPECT_EQ(triad[2], "memory.bandwidth.dram");
  EXPECT_EQ(triad[4], R"({"blocks_per_sm":4,"op":"triad"})");
  EXPECT_EQ(triad[7], "verified");
  EXPECT_EQ(triad[9], "bandwidth/tbps");
  EXPECT_EQ(triad[10], "TB/s");
  EXPECT_EQ(triad[11], "4.512");
  EXPECT_EQ(triad[16], "0.006");
  EXPECT_EQ(triad[17], "15");
  EXPECT_EQ(triad[18], "1980");
  EXPECT_EQ(rows[5][9], "bandwidth/percent_of_theoretical");
}

TEST(Csv, OneColumnPerAxisAndDerivedRowsShowTheWinningPoint) {
  RunDocument doc = test_support::sample_run();
  Record best = doc.records[3];
  best.derived = true;
  best.params = {{"blocks_per_sm", ParamValue{std::string("best")}}, {"op", ParamValue{std::string("triad")}}};
  best.extra["best_point"] = {{"blocks_per_sm", 8}, {"op", "triad"}};
  doc.records.push_back(best);
  const auto rows = read_csv(csv_of(doc));
  const auto col = [&](const std::string& name) {
    return std::size_t(std::find(rows[0].begin(), rows[0].end(), name) - rows[0].begin());
  };
  EXPECT_EQ(rows[1][col("param.chain")], "64");
  EXPECT_EQ(rows[1][col("param.op")], "") << "an axis the record lacks is empty";
  EXPECT_EQ(rows[4][col("param.blocks_per_sm")], "4");
  EXPECT_EQ(rows.back()[col("param.blocks_per_sm")], "8") << "the winning point, not 'best'";
  EXPECT_EQ(rows.back()[col("param.op")], "triad");
}

TEST(Csv, NaNAndUnknownAreEmpty) {
  const auto rows = read_csv(csv_of(test_support::sample_run()));
  const Row& fit = rows[3];
  EXPECT_EQ(fit[8], "true");
  EXPECT_EQ(fit[9], "latency/cycles");
  EXPECT_EQ(fit[16], "") << "NaN stddev";
  const Row& skipped = rows[6];
  EXPECT_EQ(skipped[5], "skipped");
  EXPECT_EQ(skipped[9], "");
  EXPECT_EQ(skipped[17], "");
  EXPECT_EQ(skipped[18], "") << "no clock observed";
}

TEST(Csv, ReasonsWithCommasQuotesAndNewlinesSurvive) {
  RunDocument doc = test_support::sample_run();
  doc.records[5].reason = "launch failed, code 700:\n\"illegal address\"";
  const std::string text = csv_of(doc);
  EXPECT_NE(text.find("\"launch failed, code 700:\n\"\"illegal address\"\"\""), std::string::npos);
  const auto rows = read_csv(text);
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[7][6], doc.records[5].reason);
}

TEST(Csv, LargeValuesKeepFullPrecision) {
  RunDocument doc = test_support::sample_run();
  doc.records[0].metrics[0].stats.median = 17179869184.0;
  doc.records[0].metrics[0].stats.min = 0.1 + 0.2;
  const auto rows = read_csv(csv_of(doc));
  EXPECT_EQ(std::stod(rows[1][12]), 17179869184.0);
  EXPECT_EQ(std::stod(rows[1][13]), 0.1 + 0.2) << rows[1][13];
}

}  // namespace
}  // namespace gd
