// The memory rows the pair kernels time (pipes/pipe_rows.cuh): the host's view of the LDG
// chase is the table the device follows, and that chase visits every entry before it repeats (so
// no chain settles on one address the hardware could serve apart from the rest).
#include <gtest/gtest.h>

#include <set>

#include "pipes/pipe_rows.cuh"

namespace gd {
namespace {

TEST(PipeRows, LdgChaseVisitsEveryEntryOnceAPass) {
  const unsigned long long base = 0x7f0000001000ull;
  unsigned long long x = base + 8 * 5;
  std::set<unsigned long long> seen;
  for (unsigned i = 0; i < kChaseEntries; ++i) {
    ASSERT_GE(x, base);
    ASSERT_LT(x, base + 8 * kChaseEntries) << "the chase left the table";
    ASSERT_EQ((x - base) % 8, 0u) << "an address between entries";
    seen.insert(x);
    x = LdgChase::step(x, base, 0);
  }
  EXPECT_EQ(seen.size(), kChaseEntries) << "a pass of 32 steps visits all 32 entries";
  EXPECT_EQ(x, base + 8 * 5) << "and comes back to the start";
}

TEST(PipeRows, LdgChaseStepIsOneLoadOfThe64BitEntry) {
  const auto ops = LdgChase::sass();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_STREQ(ops[0].opcode, "LDG.E.64");
  EXPECT_DOUBLE_EQ(ops[0].per_step, 1);
}

}  // namespace
}  // namespace gd

namespace gd {
namespace {

// B = 0 makes the tensor rows' step the identity on the host and the device; a nonzero B has no
// host model and must not pass the check as if it had one.
TEST(PipeRows, TensorRowsAreTheIdentityOnlyWithAZeroB) {
  EXPECT_EQ(DmmaF64::step(0.75, -0.5, 0.0), 0.75);
  EXPECT_NE(DmmaF64::step(0.75, -0.5, 1.0), 0.75);
  EXPECT_EQ(ImmaS8::step(0x0123456789abcdefull, 42, 0), 0x0123456789abcdefull);
  EXPECT_NE(ImmaS8::step(0x0123456789abcdefull, 42, 1), 0x0123456789abcdefull);
  alu_catalog::Rng rng(3);
  EXPECT_EQ(DmmaF64::inputs(rng)[2], 0.0) << "the rows' set-ups give B = 0";
  EXPECT_EQ(ImmaS8::inputs(rng)[2], 0u);
}

}  // namespace
}  // namespace gd
