#include "report/cross_generation.hpp"

#include <gtest/gtest.h>

#include "support/sample_run.hpp"

namespace gd {
namespace {

using test_support::metric;
using test_support::record;

TEST(CrossGeneration, RunsAndReferencesLineUpByItemInTheSeedsUnit) {
  ProbeSpec chase;
  chase.id = "memory.latency.chase";
  chase.covers = {{"memory.dram.latency", "latency/cycles", {{"level", "DRAM"}}}};
  RunDocument run;
  run.device = {{"name", "NVIDIA H200"}};
  run.records = {record("memory.latency.chase", {{"level", std::string("DRAM")}}, {metric("latency/cycles", "cycles", 744, 740, 750, 5)})};
  const std::string refs = std::string(GPUDISSECT_SOURCE_DIR) + "/data/reference/";
  const RunDocument paper = read_run_file(refs + "sm_120-paper-rtx-pro-5000.json");
  const RunDocument hopper = read_run_file(refs + "sm_90-paper-hopper-quoted.json");
  const CrossTable t = cross_generation({run, paper, hopper}, {"h200.json", "a.json", "b.json"}, {&chase});
  ASSERT_EQ(t.chips.size(), 3u);
  EXPECT_EQ(t.chips[1], "NVIDIA RTX PRO 5000 72GB (GB203) (reference)");
  const CrossRow* dram = nullptr;
  for (const auto& r : t.rows)
    if (r.item == "memory.dram.latency") dram = &r;
  ASSERT_NE(dram, nullptr);
  EXPECT_EQ(dram->cells[1].text, "372");
  EXPECT_DOUBLE_EQ(*dram->ratios[0], 372.0 / 744);
  // A row needs two chips: FFMA latency is only in the references here, still two of them.
  for (const auto& r : t.rows) {
    int n = 0;
    for (const auto& c : r.cells) n += !c.text.empty();
    EXPECT_GE(n, 2) << r.item;
  }
  const std::string md = cross_generation_markdown(t);
  EXPECT_NE(md.find("| ratio 2/1 |"), std::string::npos);
  EXPECT_NE(md.find("0.5×"), std::string::npos) << md;
}

TEST(CrossGeneration, OneModelTwiceIsToldApartByFileName) {
  RunDocument a, b;
  a.device = b.device = {{"name", "NVIDIA H200"}};
  const CrossTable t = cross_generation({a, b}, {"runs/first.json", "second.json"}, {});
  EXPECT_EQ(t.chips, (std::vector<std::string>{"NVIDIA H200 [first]", "NVIDIA H200 [second]"}));
  // Two runs without records share only what the driver said about the chip: its name.
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].item, "platform.device.name");
  RunDocument bare;  // no device description either: nothing in common
  EXPECT_NE(cross_generation_markdown(cross_generation({bare, bare}, {"a.json", "b.json"}, {}))
                .find("No quantity is known for two of these chips"),
            std::string::npos);
}

}  // namespace
}  // namespace gd
