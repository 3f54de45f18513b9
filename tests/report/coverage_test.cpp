#include "report/coverage.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "report/item_values.hpp"
#include "report/seed_items.hpp"
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
  EXPECT_EQ(item(c, "memory.l2.near_latency").state, CoverageState::Open);
  EXPECT_EQ(item(c, "tensor.tcgen05.bf16.cta1.throughput").state, CoverageState::NotApplicable);
  const CategoryCoverage& total = c.categories.back();
  EXPECT_EQ(total.category, "total");
  EXPECT_EQ(total.items, 446);  // 415 items of the studies, 31 memory-hierarchy items of peers (MT4G, Mei and Chu, Jia et al.)
  // The two covers, and the chain method's precision: the ffma chain's spread is the widest.
  EXPECT_EQ(total.measured, 3);
  EXPECT_EQ(item(c, "platform.method.chain_latency_precision").ours,
            "±0.05 cycles (the widest half-range of 1 repeated latency.alu.* records' latency/cycles)");
  EXPECT_EQ(total.measured + total.reported + total.not_run + total.not_applicable + total.open, total.items);
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

TEST(Coverage, TheDriversTextAndNvmlFieldsAreReported) {
  RunDocument run = h200_run({});
  run.device["global_mem_bytes"] = 150109880320.0;
  run.device["runtime_version"] = 13000;
  run.device["nvml"] = {{"driver_version", "580.159.04"}, {"power_limit_w", 700.0}, {"max_mem_clock_mhz", 3201.0}};
  const CoverageReport c = compute_coverage({}, &run);
  const std::pair<const char*, const char*> expected[] = {{"platform.device.name", "NVIDIA H200"},
                                                          {"platform.device.compute_capability", "9.0"},
                                                          {"platform.env.driver", "580.159.04"},
                                                          {"platform.env.cuda", "CUDA runtime 13.0"},
                                                          {"platform.power_limit", "700 W"},
                                                          {"platform.dram.capacity", "150.1 GB"},
                                                          {"platform.dram.data_rate", "3.201 GHz"}};
  for (const auto& [id, ours] : expected) {
    EXPECT_EQ(item(c, id).state, CoverageState::Reported) << id;
    EXPECT_EQ(item(c, id).ours, ours) << id;
  }
  run.device["nvml"].erase("driver_version");  // NVML did not answer: nothing is reported
  EXPECT_EQ(item(compute_coverage({}, &run), "platform.env.driver").state, CoverageState::Open);
}

TEST(Coverage, TheCheckedSassAnswersLoweringsAsReportedAndFeaturesAsMeasured) {
  const ProbeSpec div = probe("latency.alu.idiv_u64", {{"isa.lowering.div_u64", "sass", {}}});
  const ProbeSpec mma = probe("tensor.mma_sync.f16_f32.m16n8k16", {{"features.mma_sync", "ran", {}}});
  Record d = record("latency.alu.idiv_u64", {}, {});
  d.sass.detail = "sm_90a, 2 kernel(s) launched and checked: void k<32>(int, int): CALL.REL.NOINC x32, MUFU.RCP x1, "
                  "I2F.U64.RP x1; void k<64>(int, int): CALL.REL.NOINC x64, MUFU.RCP x1";
  Record m = record("tensor.mma_sync.f16_f32.m16n8k16", {}, {});
  m.sass.detail = "sm_90a, 1 kernel(s) launched and checked: mma_kernel(float*): HMMA.16816.F32 x64";
  const RunDocument run = h200_run({d, m});
  const CoverageReport c = compute_coverage({&div, &mma}, &run);
  EXPECT_EQ(item(c, "isa.lowering.div_u64").state, CoverageState::Reported);
  EXPECT_EQ(item(c, "isa.lowering.div_u64").ours, "CALL.REL.NOINC, MUFU.RCP, I2F.U64.RP (sm_90a)");
  EXPECT_EQ(item(c, "features.mma_sync").state, CoverageState::Measured);
  EXPECT_EQ(item(c, "features.mma_sync").ours, "yes: ran HMMA.16816.F32 on the chip (sm_90a SASS checked)");
  // Unchecked SASS answers neither: the record carries no opcodes a reader can trust.
  d.sass = {SassStatus::Unverified, "the point recorded no kernel launch"};
  m.sass = {SassStatus::Mismatch, "expected HMMA, found FFMA"};
  const RunDocument unchecked = h200_run({d, m});
  const CoverageReport u = compute_coverage({&div, &mma}, &unchecked);
  EXPECT_EQ(item(u, "isa.lowering.div_u64").state, CoverageState::NotRun);
  EXPECT_EQ(item(u, "features.mma_sync").state, CoverageState::NotRun);
}

TEST(Coverage, CoversDeclaredAsDataJoinTheProbesOwn) {
  // data/coverage/covers.csv names latency.alu.idiv_u64's checked SASS for isa.lowering.div_u64:
  // the probe's code declares no such cover.
  const ProbeSpec div = probe("latency.alu.idiv_u64", {{"latency.alu.div_u64", "latency/cycles", {}}});
  const auto covers = covers_of(div);
  ASSERT_GE(covers.size(), 2u);
  EXPECT_EQ(covers[0]->item, "latency.alu.div_u64");
  EXPECT_TRUE(std::any_of(covers.begin(), covers.end(),
                          [](const SeedCover* c) { return c->item == "isa.lowering.div_u64" && c->metric == "sass"; }));
  Record d = record("latency.alu.idiv_u64", {}, {metric("latency/cycles", "cycles", 311, 311, 311, 5)});
  d.sass.detail = "sm_90a, 1 kernel(s) launched and checked: k(int): CALL.REL.NOINC x32, MUFU.RCP x1";
  const RunDocument run = h200_run({d});
  const CoverageReport c = compute_coverage({&div}, &run);
  EXPECT_EQ(item(c, "isa.lowering.div_u64").state, CoverageState::Reported);
  EXPECT_EQ(item(c, "latency.alu.div_u64").state, CoverageState::Measured);
  for (const TableCover& t : table_covers()) {
    EXPECT_TRUE(is_seed_item(t.item)) << t.item;
    EXPECT_FALSE(t.probe.empty() || t.metric.empty()) << t.item;
  }
}

TEST(Coverage, TheMethodsPrecisionIsTheWidestSpreadOfItsRepeatedRecords) {
  const RunDocument run = h200_run(
      {record("latency.alu.ffma", {}, {metric("latency/cycles", "cycles", 4, 4, 4.02, 5)}),
       record("latency.alu.dfma", {}, {metric("latency/cycles", "cycles", 8, 7.9, 8.3, 5)}),
       record("latency.alu.once", {}, {metric("latency/cycles", "cycles", 9, 5, 13, 1)}),  // one sample: no spread
       record("compute.alu.ffma", {}, {metric("throughput/per_clk_per_sm", "inst/cyc/SM", 126, 125, 127, 3)})});
  const CoverageReport c = compute_coverage({}, &run);
  EXPECT_EQ(item(c, "platform.method.chain_latency_precision").state, CoverageState::Measured);
  EXPECT_EQ(item(c, "platform.method.chain_latency_precision").ours,
            "±0.2 cycles (the widest half-range of 2 repeated latency.alu.* records' latency/cycles)");
  EXPECT_EQ(item(c, "platform.method.ilp_throughput_precision").ours,
            "±0.79 % (the widest half-range of 1 repeated compute.alu.* records' throughput/per_clk_per_sm)");
}

TEST(Coverage, SkippedProbesAreNotApplicableWithTheirReasonAndUnselectedOnesNotRun) {
  const ProbeSpec ffma = probe("latency.alu.ffma", {{"latency.alu.ffma", "latency/cycles", {}}});
  const ProbeSpec chase = probe("memory.latency.chase", {{"memory.l1.latency", "latency/cycles", {{"level", "L1"}}}});
  const RunDocument run = h200_run({not_run("latency.alu.ffma", {}, Status::Skipped, "needs sm_100")});
  const CoverageReport c = compute_coverage({&ffma, &chase}, &run);
  EXPECT_EQ(item(c, "latency.alu.ffma").state, CoverageState::NotApplicable);
  EXPECT_EQ(item(c, "latency.alu.ffma").reason, "needs sm_100");
  EXPECT_EQ(item(c, "memory.l1.latency").state, CoverageState::NotRun);
  // A skip at another point of the probe says nothing about the point the cover names.
  const RunDocument other = h200_run({not_run("memory.latency.chase", {{"level", std::string("DSMEM")}}, Status::Skipped,
                                              "DSMEM reaches only the SMs of one GPC")});
  EXPECT_EQ(item(compute_coverage({&chase}, &other), "memory.l1.latency").state, CoverageState::NotRun);
}

TEST(Coverage, WithoutARunItemsAreCoveredOrStillOpen) {
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
  EXPECT_NE(coverage_markdown(c, false).find("Covers naming no item of the reference studies"), std::string::npos);
}

// The honest count: what the driver says is reported, never measured.
TEST(Coverage, DriverAttributesAreReportedNotMeasured) {
  RunDocument run = h200_run({});
  run.device["sm_count"] = 132;  // item_values answers platform.sm_count from the device description
  const ProbeSpec map = probe("topology.cluster.gpc_map", {{"cluster.max_size", "topology/max_cluster_size", {}},
                                                           {"topology.smid_range", "topology/nsmid", {}}});
  run.records.push_back(record("topology.cluster.gpc_map", {},
                               {metric("topology/max_cluster_size", "blocks", 16, 16, 16, 1),
                                metric("topology/nsmid", "ids", 132, 132, 132, 1)}));
  const CoverageReport c = compute_coverage({&map}, &run);
  EXPECT_EQ(item(c, "platform.sm_count").state, CoverageState::Reported);
  EXPECT_EQ(item(c, "platform.sm_count").probe, "device");
  // A metric data/coverage/reported-values.csv names as the driver's answer, though a probe records it.
  EXPECT_EQ(item(c, "cluster.max_size").state, CoverageState::Reported);
  EXPECT_NE(item(c, "cluster.max_size").reason.find("cudaOccupancyMaxPotentialClusterSize"), std::string::npos);
  EXPECT_EQ(item(c, "topology.smid_range").state, CoverageState::Measured) << "%nsmid read by our kernel";
  const CategoryCoverage& total = c.categories.back();
  EXPECT_EQ(total.measured, 1);
  EXPECT_EQ(total.reported, 4) << "SM count, max cluster size, and the device's name and compute capability";
}

TEST(Coverage, AnUndeterminedAnswerIsStillOpen) {
  const ProbeSpec pipes =
      probe("pipes.interference.ffma", {{"pipes.map.ffma", "extra.pipe", {{"method", std::string("both")}}}});
  Record both = record("pipes.interference.ffma", {{"method", std::string("both")}}, {});
  both.extra["pipe"] = "undetermined (by interference; no ncu counters in this run)";
  const RunDocument run = h200_run({both});
  const CoverageReport report = compute_coverage({&pipes}, &run);  // item() refers into it: keep it alive
  const ItemCoverage& i = item(report, "pipes.map.ffma");
  EXPECT_EQ(i.state, CoverageState::Open);
  EXPECT_NE(i.reason.find("undetermined"), std::string::npos) << i.reason;
  EXPECT_TRUE(is_undetermined(" absent: this run has no extra.ncu"));
  EXPECT_FALSE(is_undetermined("fma+fmaheavy (ncu's busiest pipes); interference: undetermined"));
}

// power.vs_active_sms is a curve: power against active SMs, summarized by a fit record.
RunDocument power_curve_run() {
  std::vector<Record> records;
  for (std::int64_t e : {1, 4, 8})
    records.push_back(record("power.sm_scaling", {{"sm_eighths", e}}, {metric("power/w", "W", 80.0 + 10 * e, 80, 160, 5)}));
  Record fit = record("power.sm_scaling", {{"sm_eighths", std::string("fit")}},
                      {metric("power/w", "W", 160, 160, 160, 1), metric("power/w_per_sm", "W", 0.6, 0.6, 0.6, 1)});
  fit.derived = true;
  records.push_back(fit);
  return h200_run(records);
}

TEST(Coverage, OnePointOfACurveIsNotAMeasurementOfIt) {
  const RunDocument run = power_curve_run();
  // An empty `where` reads the first point: the cover selects four records.
  const ProbeSpec loose = probe("power.sm_scaling", {{"power.vs_active_sms", "power/w", {}}});
  const CoverageReport c = compute_coverage({&loose}, &run);
  EXPECT_EQ(item(c, "power.vs_active_sms").state, CoverageState::Open);
  EXPECT_NE(item(c, "power.vs_active_sms").reason.find("selects 4 records"), std::string::npos)
      << item(c, "power.vs_active_sms").reason;
  // A `where` naming one point selects one record, but the item is the curve (curve-items.csv).
  const ProbeSpec point = probe("power.sm_scaling", {{"power.vs_active_sms", "power/w", {{"sm_eighths", std::int64_t{8}}}}});
  const CoverageReport one_report = compute_coverage({&point}, &run);  // item() refers into it
  const ItemCoverage& one = item(one_report, "power.vs_active_sms");
  EXPECT_EQ(one.state, CoverageState::Open);
  EXPECT_NE(one.reason.find("over active SMs"), std::string::npos) << one.reason;
  // An item about one point of a sweep is answered by that point (the board power at full load).
  const ProbeSpec peak = probe("power.sm_scaling", {{"power.peak_measured", "power/w", {{"sm_eighths", std::int64_t{8}}}}});
  EXPECT_EQ(item(compute_coverage({&peak}, &run), "power.peak_measured").state, CoverageState::Measured);
  const ProbeSpec derived =
      probe("power.sm_scaling", {{"power.vs_active_sms", "power/w", {{"sm_eighths", std::string("fit")}}}});
  EXPECT_EQ(item(compute_coverage({&derived}, &run), "power.vs_active_sms").state, CoverageState::Measured);
  // Two derived records (another fit, say per load) leave the cover as ambiguous as two points.
  RunDocument two_fits = run;
  two_fits.records.push_back(two_fits.records.back());
  two_fits.records.back().params.emplace_back("load", std::string("ffma"));
  EXPECT_EQ(item(compute_coverage({&derived}, &two_fits), "power.vs_active_sms").state, CoverageState::Open);
}

TEST(Coverage, EachCoverSelectsOneRecordOrASkip) {
  const RunDocument run = power_curve_run();
  const ProbeSpec p = probe("power.sm_scaling", {{"power.vs_active_sms", "power/w", {}},
                                                 {"power.model.per_sm", "power/w_per_sm", {{"sm_eighths", std::string("fit")}}},
                                                 {"power.model.static", "power/p0_w", {{"sm_eighths", std::string("fit")}}}});
  RunDocument with_skip = run;
  with_skip.records.push_back(not_run("links.peer.latency", {}, Status::Skipped, "needs 2 GPUs; this machine has 1"));
  const ProbeSpec peer = probe("links.peer.latency", {{"interconnect.p2p.intra_switch", "bandwidth/gbps", {}}});
  const auto sel = cover_selections(with_skip, {&p, &peer});
  ASSERT_EQ(sel.size(), 4u);
  EXPECT_FALSE(sel[0].ok());
  EXPECT_EQ(sel[0].problem(), "power.sm_scaling: power.vs_active_sms (power/w) selects 4 records: [sm_eighths=1] "
                              "[sm_eighths=4] [sm_eighths=8] [sm_eighths=fit]");
  EXPECT_TRUE(sel[1].ok());
  EXPECT_EQ(sel[1].problem(), "");
  EXPECT_FALSE(sel[2].ok()) << "no record carries power/p0_w";
  EXPECT_EQ(sel[2].problem(), "power.sm_scaling: power.model.static (power/p0_w where sm_eighths=fit) selects no record");
  EXPECT_TRUE(sel[3].ok()) << "the probe was skipped on this chip: the skip says why";
  const CoverageReport c = compute_coverage({&p, &peer}, &with_skip);
  EXPECT_EQ(c.cover_problems.size(), 2u);
  EXPECT_NE(coverage_markdown(c, false).find("Covers selecting no record or several"), std::string::npos);
  // A metric only `run --ncu` collects is absent from a run without the profiler; an undeclared one is a typo.
  ProbeSpec multicast = probe("async.tensor.multicast", {{"async.tma.multicast.l2_traffic.distinct", "l2/read_bytes_per_landed_byte",
                                                          {{"mode", std::string("distinct_l2_traffic")}}}});
  const RunDocument plain = h200_run({record("async.tensor.multicast", {{"mode", std::string("distinct_l2_traffic")}},
                                             {metric("bandwidth/delivered_tbps", "TB/s", 4.5, 4.5, 4.5, 5)})});
  EXPECT_FALSE(cover_selections(plain, {&multicast})[0].ok()) << "undeclared metric";
  multicast.metrics = {{"l2/read_bytes_per_landed_byte", "B/B", "L2 read sectors x 32 over bytes landed"}};
  EXPECT_FALSE(cover_selections(plain, {&multicast})[0].ok()) << "a metric every run should carry";
  multicast.metrics = {{"l2/read_bytes_per_landed_byte", "B/B", "derived, --ncu: L2 read sectors x 32 over bytes landed"}};
  EXPECT_TRUE(cover_selections(plain, {&multicast})[0].ok());
  EXPECT_FALSE(cover_selections(h200_run({}), {&multicast})[0].ok()) << "the probe did not run there at all";
  // A failed point explains nothing: the cover is still missing its record.
  RunDocument failed = run;
  failed.records.push_back(not_run("links.peer.latency", {}, Status::Failed, "cudaErrorLaunchFailure"));
  EXPECT_FALSE(cover_selections(failed, {&peer})[0].ok());
}

TEST(Coverage, TheTableCountsMeasuredAndReportedApartAndTheirShareOfApplicableItems) {
  RunDocument run = power_curve_run();
  run.device["sm_count"] = 132;
  const ProbeSpec p = probe("power.sm_scaling", {{"power.model.per_sm", "power/w_per_sm", {{"sm_eighths", std::string("fit")}}}});
  const CoverageReport c = compute_coverage({&p}, &run);
  const std::string md = coverage_markdown(c, false);
  EXPECT_NE(md.find("| Measured | Reported | Not in run | N/A | Still open | Share | Measured share |"), std::string::npos)
      << md;
  const CategoryCoverage& total = c.categories.back();
  EXPECT_EQ(total.measured, 1);
  EXPECT_EQ(total.reported, 3) << "SM count, the device's name and compute capability";
  const int applicable = total.items - total.not_applicable;
  const auto at = md.find("| **total**");
  ASSERT_NE(at, std::string::npos);
  const std::string row = md.substr(at, md.find('\n', at) - at);
  const auto pct = [](int part, int whole) { return std::to_string(int(std::lround(100.0 * part / whole))) + " %"; };
  EXPECT_NE(row.find(pct(4, applicable)), std::string::npos) << row;
  EXPECT_NE(row.find(pct(1, applicable)), std::string::npos) << row;
}

}  // namespace
}  // namespace gd
