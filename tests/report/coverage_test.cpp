#include "report/coverage.hpp"

#include <gtest/gtest.h>

#include "support/sample_run.hpp"

namespace gd {
namespace {

using test_support::metric;
using test_support::not_run;
using test_support::record;

ProbeSpec probe(std::string id, std::vector<SeedCover> covers) {
  ProbeSpec p;
  p.id = std::move(id);
  p.covers = std::move(covers);
  return p;
}

RunDocument h200_run(std::vector<Record> records) {
  RunDocument doc;
  doc.run_id = "r";
  doc.device = {{"name", "NVIDIA H200"}, {"cc_major", 9}, {"cc_minor", 0}, {"gpu_count", 1}};
  doc.records = std::move(records);
  return doc;
}

const ItemCoverage& item(const CoverageReport& c, const std::string& id) {
  for (const auto& i : c.items)
    if (i.id == id) return i;
  throw std::runtime_error("no item " + id);
}

TEST(Coverage, MeasuredItemsCarryOurValueInTheSeedsUnit) {
  const ProbeSpec ffma = probe("latency.alu.ffma", {{"latency.alu.ffma", "latency/cycles", {}}});
  const ProbeSpec dram = probe("memory.bandwidth.dram", {{"memory.dram.bandwidth", "bandwidth/tbps", {{"op", "read"}}}});
  const RunDocument run = h200_run({record("latency.alu.ffma", {}, {metric("latency/cycles", "cycles", 4.05, 4, 4.1, 9)}),
                                    record("memory.bandwidth.dram", {{"op", std::string("write")}},
                                           {metric("bandwidth/tbps", "TB/s", 4.4, 4.4, 4.4, 5)}),
                                    record("memory.bandwidth.dram", {{"op", std::string("read")}},
                                           {metric("bandwidth/tbps", "TB/s", 4.6, 4.6, 4.6, 5)})});
  const CoverageReport c = compute_coverage({&ffma, &dram}, &run);
  EXPECT_EQ(item(c, "latency.alu.ffma").state, CoverageState::Measured);
  EXPECT_EQ(item(c, "latency.alu.ffma").ours, "4.05 cycles");
  EXPECT_EQ(item(c, "latency.alu.ffma").seed, "sm_120 4.22; sm_90 ~4; sm_70 ~4");
  EXPECT_EQ(item(c, "memory.dram.bandwidth").ours, "4600 GB/s") << "the read record, in the seed's GB/s";
  EXPECT_EQ(item(c, "memory.l2.near_latency").state, CoverageState::Planned);
  EXPECT_EQ(item(c, "tensor.tcgen05.bf16.cta1.throughput").state, CoverageState::NotApplicable);
  const CategoryCoverage& total = c.categories.back();
  EXPECT_EQ(total.category, "total");
  EXPECT_EQ(total.items, 415);
  EXPECT_EQ(total.measured, 2);
  EXPECT_EQ(total.measured + total.not_run + total.not_applicable + total.planned, total.items);
}

TEST(Coverage, ACategoricalItemReadsTheRecordsTextAnswer) {
  // "Which pipe": a cover naming extra.<field> takes the derived record's text, not a metric.
  const ProbeSpec pipes =
      probe("pipes.interference.ffma", {{"pipes.map.ffma", "extra.pipe", {{"method", std::string("both")}}}});
  Record raw = record("pipes.interference.ffma", {}, {metric("alone/per_clk_per_sm", "results/clk/SM", 120, 119, 121, 3)});
  raw.extra["pipe"] = "not this one: the raw point";
  Record both = record("pipes.interference.ffma", {{"method", std::string("both")}}, {});
  both.extra["pipe"] = "fma+fmaheavy+fmalite (ncu's busiest pipes); interference: undetermined";
  const RunDocument run = h200_run({raw, both});
  const CoverageReport c = compute_coverage({&pipes}, &run);
  EXPECT_EQ(item(c, "pipes.map.ffma").state, CoverageState::Measured);
  EXPECT_EQ(item(c, "pipes.map.ffma").ours, "fma+fmaheavy+fmalite (ncu's busiest pipes); interference: undetermined");
  both.extra.erase("pipe");  // a record without the field answers nothing
  const RunDocument bare = h200_run({both});
  EXPECT_EQ(item(compute_coverage({&pipes}, &bare), "pipes.map.ffma").state, CoverageState::NotRun);
}

TEST(Coverage, SkippedProbesAreNotApplicableWithTheirReasonAndUnselectedOnesNotRun) {
  const ProbeSpec ffma = probe("latency.alu.ffma", {{"latency.alu.ffma", "latency/cycles", {}}});
  const ProbeSpec chase = probe("memory.latency.chase", {{"memory.l1.latency", "latency/cycles", {{"level", "L1"}}}});
  const RunDocument run = h200_run({not_run("latency.alu.ffma", {}, Status::Skipped, "needs sm_100")});
  const CoverageReport c = compute_coverage({&ffma, &chase}, &run);
  EXPECT_EQ(item(c, "latency.alu.ffma").state, CoverageState::NotApplicable);
  EXPECT_EQ(item(c, "latency.alu.ffma").reason, "needs sm_100");
  EXPECT_EQ(item(c, "memory.l1.latency").state, CoverageState::NotRun);
}

TEST(Coverage, WithoutARunItemsAreCoveredOrPlanned) {
  const ProbeSpec ffma = probe("latency.alu.ffma", {{"latency.alu.ffma", "latency/cycles", {}}});
  const CoverageReport c = compute_coverage({&ffma}, nullptr);
  EXPECT_EQ(item(c, "latency.alu.ffma").state, CoverageState::Covered);
  EXPECT_EQ(c.categories.back().covered, 1);
  const std::string md = coverage_markdown(c, true);
  EXPECT_NE(md.find("| latency "), std::string::npos);
  EXPECT_NE(md.find("`latency.alu.ffma` latency/cycles"), std::string::npos);
}

TEST(Coverage, ACoverNamingNoSeedItemIsReported) {
  const ProbeSpec bad = probe("latency.alu.ffma", {{"latency.alu.fmaa", "latency/cycles", {}}});
  EXPECT_EQ(unknown_covers({&bad}), std::vector<std::string>{"latency.alu.ffma: latency.alu.fmaa"});
  const CoverageReport c = compute_coverage({&bad}, nullptr);
  EXPECT_NE(coverage_markdown(c, false).find("Covers naming no seed item"), std::string::npos);
}

}  // namespace
}  // namespace gd
