#include "report/seed_items.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "report/item_values.hpp"

namespace gd {
namespace {

TEST(ParseCsv, QuotedFieldsHoldCommasQuotesAndNewlines) {
  const auto rows = parse_csv("a,b,c\n1,\"x, y\",\"say \"\"hi\"\"\"\r\n2,\"two\nlines\",\n");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][1], "x, y");
  EXPECT_EQ(rows[1][2], "say \"hi\"");
  EXPECT_EQ(rows[2][1], "two\nlines");
  EXPECT_EQ(rows[2][2], "");
}

TEST(ParseCsv, RaggedRowsAndOpenQuotesAreErrors) {
  EXPECT_THROW(parse_csv("a,b\n1\n"), std::invalid_argument);
  EXPECT_THROW(parse_csv("a,b\n1,\"open\n"), std::invalid_argument);
}

TEST(SeedItems, TheCompiledListIsTheSeedList) {
  // data/coverage/seed-items.csv: 497 rows, 446 distinct ids (415 from the studies, 31 hierarchy items from peers), first a platform item.
  EXPECT_EQ(seed_items().size(), 497u);
  EXPECT_EQ(seed_item_ids().size(), 446u);
  EXPECT_EQ(seed_items().front().id, "platform.device.name");
  EXPECT_TRUE(is_seed_item("memory.l2.near_latency"));
  EXPECT_FALSE(is_seed_item("memory.l2.nearlatency"));
  for (const SeedItem& s : seed_items()) EXPECT_EQ(s.id.substr(0, s.id.find('.')), s.category) << s.id;
}

TEST(SeedItems, NumbersAsTheSeedsWriteThem) {
  EXPECT_EQ(seed_number("4.22"), 4.22);
  EXPECT_EQ(seed_number("~419"), 419);
  EXPECT_EQ(seed_number("24-32"), 28);
  EXPECT_EQ(seed_number("≥32"), 32);
  EXPECT_EQ(seed_number("1:39 (Fig. 1)"), std::nullopt);
  EXPECT_EQ(seed_number("yes"), std::nullopt);
  EXPECT_EQ(seed_number(""), std::nullopt);
}

TEST(SeedItems, NotApplicableFollowsTheChip) {
  const std::string tcgen05 = "tensor.tcgen05.bf16.cta1.throughput";
  ASSERT_TRUE(is_seed_item(tcgen05));
  EXPECT_NE(not_applicable_reason(tcgen05, 90, 1), std::nullopt);
  EXPECT_EQ(not_applicable_reason(tcgen05, 100, 1), std::nullopt);
  EXPECT_NE(not_applicable_reason("tensor.mma_sync.fp4.peak", 90, 1), std::nullopt);
  EXPECT_EQ(not_applicable_reason("tensor.mma_sync.fp4.peak", 120, 1), std::nullopt);
  EXPECT_NE(not_applicable_reason("interconnect.p2p.intra_switch", 90, 1), std::nullopt);
  EXPECT_EQ(not_applicable_reason("interconnect.p2p.intra_switch", 90, 2), std::nullopt);
  EXPECT_EQ(not_applicable_reason("memory.dram.latency", 90, 1), std::nullopt);
  for (const auto& rule : not_applicable_rules()) {
    bool names_an_item = false;
    for (const auto& id : seed_item_ids()) names_an_item |= id.rfind(rule.item_prefix, 0) == 0;
    EXPECT_TRUE(names_an_item) << rule.item_prefix << " matches no seed item";
  }
}

TEST(UnitFactor, ConvertsSpellingsOfOneDimensionOnly) {
  EXPECT_DOUBLE_EQ(*unit_factor("TB/s", "GB/s"), 1000);
  EXPECT_DOUBLE_EQ(*unit_factor("bytes", "MB"), 1.0 / 1048576);
  EXPECT_DOUBLE_EQ(*unit_factor("FMA/clk/SM", "inst/cyc/SM"), 1.0 / 32);
  EXPECT_DOUBLE_EQ(*unit_factor("cycles", "cycles"), 1);
  EXPECT_EQ(unit_factor("cycles", "ns"), std::nullopt);
  EXPECT_EQ(unit_factor("cycles", "furlongs"), std::nullopt);
}

}  // namespace
}  // namespace gd
