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
  l1.extra["replacement_hint"] = "not lru: the first footprint past the level still hits on some loads";
  Record ways = record("memory.hierarchy.ways", {{"path", std::string("const")}},
                       {metric("ways/count", "lines", 4, 4, 4, 1)});
  ways.extra["ways_answer"] = "4 ways, sets 512 B apart";
  ways.extra["replacement_policy"] = "fifo";
  Record share = record("memory.hierarchy.sharing", {{"pair", std::string("ca_tex")}}, {});
  share.extra["verdict"] = "shared: the second path's lines evicted the first's (one storage)";
  doc.records.push_back(l1);
  doc.records.push_back(ways);
  doc.records.push_back(share);
  return doc;
}

TEST(HierarchyGlance, RowsReadTheHierarchyRecords) {
  const std::string md = hierarchy_glance_markdown(hierarchy_run());
  ASSERT_NE(md.find("## The memory hierarchy at a glance"), std::string::npos);
  const std::string l1 = line_with(md, "L1 data");
  EXPECT_NE(l1.find("232 KiB"), std::string::npos) << l1;
  EXPECT_NE(l1.find("not lru"), std::string::npos) << l1;
  EXPECT_EQ(l1.find("still hits"), std::string::npos) << "the hint's verdict, without its reason: " << l1;
  EXPECT_NE(l1.find("40.2 cycles"), std::string::npos) << l1;
  EXPECT_NE(l1.find("texture"), std::string::npos) << "the sharing verdict names the other path: " << l1;
  const std::string cl1 = line_with(md, "Constant L1 (LDC)");
  EXPECT_NE(cl1.find("4 ways, sets 512 B apart"), std::string::npos) << cl1;
  EXPECT_NE(cl1.find("fifo"), std::string::npos) << cl1;
  Record l1_ways = record("memory.hierarchy.ways", {{"path", std::string("ca")}}, {});
  l1_ways.extra["ways_answer"] = "undetermined: no distance made lines conflict";
  RunDocument with_undetermined = hierarchy_run();
  with_undetermined.records.push_back(l1_ways);
  const std::string l1_row = line_with(hierarchy_glance_markdown(with_undetermined), "L1 data");
  EXPECT_NE(l1_row.find("undetermined"), std::string::npos) << l1_row;
  EXPECT_EQ(l1_row.find("no distance"), std::string::npos) << "the reason stays in the record: " << l1_row;
  // No record, no number: the read-only row is dashes where the run has nothing.
  const std::string ro = line_with(md, "Read-only");
  EXPECT_EQ(ro.find("KiB"), std::string::npos) << ro;
  EXPECT_NE(line_with(md, "Texture").find("L1"), std::string::npos) << "sharing is symmetric";
}

TEST(HierarchyGlance, ARunWithoutHierarchyRecordsHasNoSection) {
  EXPECT_EQ(hierarchy_glance_markdown(test_support::sample_run()), "");
}

}  // namespace
}  // namespace gd
