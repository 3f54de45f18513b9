#include "async/variant_table.cuh"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

struct Alpha {
  static constexpr const char *name = "alpha", *tag = "Alpha", *sass = "LDGSTS.E.128";
};
struct Beta {
  static constexpr const char *name = "beta", *tag = "Beta", *sass = "UBLKCP.S.G+SYNCS.PHASECHK+LDS";
};
using Table = async::VariantTable<Alpha, Beta>;

TEST(VariantTable, NamesAreTheRowsInOrder) { EXPECT_EQ(Table::names(), (std::vector<std::string>{"alpha", "beta"})); }

TEST(VariantTable, DispatchesToTheNamedRowAndRejectsOthers) {
  std::string got;
  Table::with("beta", [&](auto row) { got = decltype(row)::tag; });
  EXPECT_EQ(got, "Beta");
  EXPECT_THROW(Table::with("gamma", [](auto) {}), UserError);
}

TEST(VariantTable, OneExpectationPerRowWithEachOpcode) {
  const auto e = Table::sass("ring_kernel", SassRegion::Clocked, 4);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].kernel, "*ring_kernel<*::Alpha>*");
  ASSERT_EQ(e[0].require.size(), 1u);
  EXPECT_EQ(e[0].require[0].opcode, "LDGSTS.E.128");
  ASSERT_EQ(e[1].require.size(), 3u);
  EXPECT_EQ(e[1].require[1].opcode, "SYNCS.PHASECHK");
  EXPECT_EQ(e[1].require[2].opcode, "LDS");
  EXPECT_EQ(e[1].require[2].min, 4);
  EXPECT_EQ(e[1].require[2].max, 4) << "exactly one trip's steps: a chain of twice the steps is caught";
  EXPECT_EQ(e[1].region, SassRegion::Clocked);
}

}  // namespace
}  // namespace gd
