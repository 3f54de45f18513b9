#include "report/hierarchy_glance.hpp"

#include <string>

#include <gtest/gtest.h>

#include "support/sample_run.hpp"
#include "support/text.hpp"

namespace gd {
namespace {

using test_support::metric;
using test_support::record;

// A run holding a few memory.hierarchy answers, derived records as the probes' summaries make them.
RunDocument hierarchy_run() {
  RunDocument doc = test_support::sample_run();
  Record l1 = record("memory.hierarchy.l1_carveout", {{"carveout", std::int64_t(0)}, {"level", std::string("L1")}},
                     {metric("capacity/bytes", "bytes", 237568, 237568, 237568, 1),
                      metric("latency/below_cycles", "cycles", 40.2, 40.2, 40.2, 1)});
  l1.derived = true;
  l1.extra["replacement_hint"] = "gradual: the first footprint past the level still hits on some loads";
  Record search = record("memory.hierarchy.l1_eviction_set", {{"target", std::int64_t(1365)}}, {});
  search.extra["ways_answer"] = "9 ways (one-set walk; minimal eviction set 9 lines)";
  search.extra["replacement_policy"] = "lru or fifo (a walk one line past the ways misses on every load)";
  Record ways = record("memory.hierarchy.ways", {{"path", std::string("const")}},
                       {metric("ways/count", "lines", 4, 4, 4, 1)});
  ways.extra["ways_answer"] = "4 ways, sets 512 B apart";
  ways.extra["replacement_policy"] = "fifo";
  Record share = record("memory.hierarchy.sharing", {{"pair", std::string("ca_tex")}}, {});
  share.extra["verdict"] = "shared: the second path's lines evicted the first's (one storage)";
  Record tex_line = record("memory.hierarchy.texture_line", {{"level", std::string("texture")}, {"quantity", std::string("line")}}, {});
  tex_line.derived = true;
  tex_line.extra["line_answer"] = "512 B";
  doc.records.push_back(l1);
  doc.records.push_back(search);
  doc.records.push_back(tex_line);
  doc.records.push_back(ways);
  doc.records.push_back(share);
  return doc;
}

TEST(HierarchyGlance, RowsReadTheHierarchyRecords) {
  const std::string md = hierarchy_glance_markdown(hierarchy_run());
  ASSERT_NE(md.find("## The memory hierarchy at a glance"), std::string::npos);
  const std::string l1 = line_with(md, "L1 data");
  EXPECT_NE(l1.find("232 KiB"), std::string::npos) << l1;
  EXPECT_NE(l1.find("9 ways (one-set walk"), std::string::npos) << "the eviction-set search's ways: " << l1;
  EXPECT_NE(l1.find("lru or fifo"), std::string::npos) << l1;
  EXPECT_EQ(l1.find("a walk one line past"), std::string::npos) << "the verdict, without its reason: " << l1;
  EXPECT_EQ(l1.find("gradual"), std::string::npos) << "the capacity curve's shape is no replacement policy: " << l1;
  EXPECT_NE(l1.find("40.2 cycles"), std::string::npos) << l1;
  EXPECT_NE(l1.find("texture"), std::string::npos) << "the sharing verdict names the other path: " << l1;
  const std::string cl1 = line_with(md, "Constant L1 (LDC)");
  EXPECT_NE(cl1.find("4 ways, sets 512 B apart"), std::string::npos) << cl1;
  EXPECT_NE(cl1.find("fifo"), std::string::npos) << cl1;
  Record l1_ways = record("memory.hierarchy.ways", {{"path", std::string("ca")}}, {});
  l1_ways.extra["ways_answer"] = "undetermined: no distance made lines conflict";
  RunDocument with_undetermined = hierarchy_run();
  std::erase_if(with_undetermined.records, [](const Record& r) { return r.id == "memory.hierarchy.l1_eviction_set"; });
  with_undetermined.records.push_back(l1_ways);
  const std::string l1_row = line_with(hierarchy_glance_markdown(with_undetermined), "L1 data");
  EXPECT_NE(l1_row.find("undetermined"), std::string::npos) << l1_row;
  EXPECT_EQ(l1_row.find("no distance"), std::string::npos) << "the reason stays in the record: " << l1_row;
  // No record, no number: the read-only row is dashes where the run has nothing.
  const std::string ro = line_with(md, "Read-only");
  EXPECT_EQ(ro.find("KiB"), std::string::npos) << ro;
  EXPECT_NE(line_with(md, "Texture").find("L1"), std::string::npos) << "sharing is symmetric";
  EXPECT_NE(line_with(md, "Texture").find("512 B"), std::string::npos) << "the texture line from its own slot sweep";
  EXPECT_EQ(md.find("the whole chip"), std::string::npos) << "no all-SM bandwidth drop in this run: no whole-L2 row";
}

// The whole L2's size is where the all-SM bandwidth drops (memory.bandwidth.l2_sweep's analysis),
// shown as the range between the last footprint before the drop and the first past it.
TEST(HierarchyGlance, TheWholeL2IsTheAllSmBandwidthDrop) {
  RunDocument doc = hierarchy_run();
  Record drop = record("memory.bandwidth.l2_sweep", {{"level", std::string("L2")}, {"quantity", std::string("capacity")}},
                       {metric("capacity/bytes", "bytes", 59768832, 59768832, 59768832, 1),
                        metric("capacity/upper_bytes", "bytes", 62914560, 62914560, 62914560, 1)});
  drop.derived = true;
  doc.records.push_back(drop);
  const std::string row = line_with(hierarchy_glance_markdown(doc), "L2, the whole chip");
  EXPECT_NE(row.find("57 MiB to 60 MiB"), std::string::npos) << row;
  bool found = false;
  for (const CacheLevelFacts& l : hierarchy_facts(doc))
    if (l.key == "l2") found = l.capacity && l.capacity->value == 59768832 && l.capacity->record.rfind("memory.bandwidth.l2_sweep", 0) == 0;
  EXPECT_TRUE(found);
}

// The all-SM chase's step, where a run has it, is the whole L2's row (with its latency), over the
// bandwidth drop.
TEST(HierarchyGlance, TheWholeL2IsTheAllSmChaseStepWhereThereIsOne) {
  RunDocument doc = hierarchy_run();
  Record drop = record("memory.bandwidth.l2_sweep", {{"level", std::string("L2")}, {"quantity", std::string("capacity")}},
                       {metric("capacity/bytes", "bytes", 59768832, 59768832, 59768832, 1)});
  drop.derived = true;
  Record chased = record("memory.hierarchy.l2_all_sms", {{"level", std::string("L2")}, {"quantity", std::string("capacity")}},
                         {metric("capacity/bytes", "bytes", 49005978, 49005978, 49005978, 1),
                          metric("capacity/upper_bytes", "bytes", 56719228, 56719228, 56719228, 1)});
  chased.derived = true;
  Record step = record("memory.hierarchy.l2_all_sms", {{"level", std::string("L2")}},
                       {metric("latency/below_cycles", "cycles", 288.5, 288.5, 288.5, 1)});
  step.derived = true;
  doc.records.push_back(drop);
  doc.records.push_back(chased);
  doc.records.push_back(step);
  const std::string row = line_with(hierarchy_glance_markdown(doc), "L2, the whole chip");
  EXPECT_NE(row.find("every SM chasing"), std::string::npos) << row;
  EXPECT_NE(row.find("288.5 cycles"), std::string::npos) << row;
  bool found = false;
  for (const CacheLevelFacts& l : hierarchy_facts(doc))
    if (l.key == "l2") found = l.capacity && l.capacity->value == 49005978;
  EXPECT_TRUE(found);
}

// The constant L1.5's size is a lower bound from one 64 KiB bank until several modules' banks
// walked at once (const_l15_capacity) give its step, and with it its line.
TEST(HierarchyGlance, TheConstantL15SizeIsTheConcurrentBanksStepWhereThereIsOne) {
  RunDocument doc = hierarchy_run();
  const Params cl15 = {{"stride", std::int64_t(64)}, {"level", std::string("constant.L1.5")}};
  Record bound = record("memory.hierarchy.const_capacity", cl15, {metric("capacity/at_least_bytes", "bytes", 65536, 65536, 65536, 1)});
  bound.derived = true;
  doc.records.push_back(bound);
  EXPECT_NE(line_with(hierarchy_glance_markdown(doc), "Constant L1.5").find("≥ 64 KiB"), std::string::npos);
  Record step = record("memory.hierarchy.const_l15_capacity", cl15,
                       {metric("capacity/bytes", "bytes", 126976, 126976, 126976, 1),
                        metric("capacity/upper_bytes", "bytes", 135168, 135168, 135168, 1)});
  step.derived = true;
  Record line = record("memory.hierarchy.const_l15_capacity",
                       {{"level", std::string("constant.L1.5")}, {"quantity", std::string("line")}}, {});
  line.derived = true;
  line.extra["line_answer"] = "256 B";
  doc.records.push_back(step);
  doc.records.push_back(line);
  const std::string row = line_with(hierarchy_glance_markdown(doc), "Constant L1.5");
  EXPECT_NE(row.find("| 124 KiB "), std::string::npos) << row;
  EXPECT_EQ(row.find("132 KiB"), std::string::npos) << "the last footprint at hit latency, not a range: " << row;
  EXPECT_EQ(row.find("≥"), std::string::npos) << "the measured step replaces the bound: " << row;
  EXPECT_NE(row.find("256 B"), std::string::npos) << row;
}

TEST(HierarchyGlance, ARunWithoutHierarchyRecordsHasNoSection) {
  EXPECT_EQ(hierarchy_glance_markdown(test_support::sample_run()), "");
}

}  // namespace
}  // namespace gd
