#include "report/guide.hpp"

#include <gtest/gtest.h>

#include "support/sample_run.hpp"

namespace gd {
namespace {

using test_support::metric;
using test_support::record;

Record fp32(std::int64_t ilp, std::int64_t warps, double rate) {
  return record("compute.peak.fp32", {{"ilp", ilp}, {"warps_per_sm", warps}},
                {metric("throughput/fma_per_clk_per_sm", "FMA/clk/SM", rate, rate, rate, 5)});
}

RunDocument run_with(std::vector<Record> records) {
  RunDocument doc;
  doc.device = {{"name", "NVIDIA H200"}, {"sm_count", 132}, {"max_warps_per_sm", 64}, {"max_sm_clock_mhz", 1980}};
  doc.records = std::move(records);
  return doc;
}

TEST(Guide, OccupancyIsStatedWithTheMeasuredNumbers) {
  const RunDocument run = run_with({record("latency.alu.ffma", {}, {metric("latency/cycles", "cycles", 4.05, 4, 4.1, 9)}),
                                    fp32(1, 4, 31), fp32(1, 8, 61), fp32(1, 16, 118), fp32(1, 32, 121),
                                    fp32(4, 4, 121), fp32(4, 8, 127)});
  const auto g = derive_guide(run, {});
  ASSERT_EQ(g.size(), 7u);
  EXPECT_TRUE(g[0].measured);
  EXPECT_NE(g[0].statement.find("4.05 cycles"), std::string::npos) << g[0].statement;
  EXPECT_NE(g[0].statement.find("16 warps/SM (4 per sub-core"), std::string::npos) << g[0].statement;
  EXPECT_NE(g[0].statement.find("with ILP 4, 4 warps/SM"), std::string::npos) << g[0].statement;
  EXPECT_FALSE(g[1].measured);  // co-issue: no probe covers it here
  const std::string md = guide_markdown(g, "NVIDIA H200");
  EXPECT_NE(md.find("[latency.alu.ffma latency/cycles](#latency.alu.ffma)"), std::string::npos);
  EXPECT_NE(md.find("not measured (needs study item pipes.coissue.int_fp32)"), std::string::npos);
}

TEST(Guide, LittlesLawFromDramLatencyAndBandwidth) {
  const RunDocument run =
      run_with({record("memory.latency.chase", {{"level", std::string("DRAM")}, {"variant", std::string("cg")}},
                       {metric("latency/ns", "ns", 500, 500, 500, 5)}),
                record("memory.bandwidth.dram", {{"op", std::string("read")}, {"warps_per_sm", std::string("best")}},
                       {metric("bandwidth/tbps", "TB/s", 4, 4, 4, 5)})});
  const auto g = derive_guide(run, {});
  // 500 ns x 4 TB/s = 2 MB in flight; over 132 SMs 15.2 KB; over 64 x 32 threads of 16 B: 0.47 -> 1.
  EXPECT_TRUE(g[4].measured);
  EXPECT_NE(g[4].statement.find("500 ns x 4 TB/s"), std::string::npos) << g[4].statement;
  EXPECT_NE(g[4].statement.find("each thread needs 1 outstanding 16-byte load(s)"), std::string::npos) << g[4].statement;
}

TEST(Guide, AnEmptyRunMeasuresNothing) {
  const auto g = derive_guide(run_with({}), {});
  for (const auto& p : g) EXPECT_FALSE(p.measured) << p.number;
  EXPECT_NE(guide_markdown(g, "x").find("**not measured**"), std::string::npos);
}

}  // namespace
}  // namespace gd
