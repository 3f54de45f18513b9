// The control-bit probes' kernels as they sit in the gpudissect binary, per target (sm_100a and
// sm_120a offline: no such GPU here): each chain is found, patched, re-read and decoded; barrier
// renaming keeps the guard; the FFMA register fields the bank probe rewrites are where it thinks.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "sass/fatbin.hpp"
#include "sass/patch_chains.cuh"
#include "sass/patch_experiment.hpp"
#include "sass_test_util.hpp"

namespace gd::sass {
namespace {

using patch_chains::find_chain;
using patch_chains::kRegions;

std::optional<Cubin> binary_cubin_with(const std::string& arch, const std::string& kernel_part) {
  static const EmbeddedCubins ours = embedded_cubins(GPUDISSECT_BINARY);
  for (const auto& c : ours.cubins) {
    if (c.arch().name() != arch) continue;
    for (const auto& k : c.kernels())
      if (k.demangled.find(kernel_part) != std::string::npos) return c;
  }
  return std::nullopt;
}

struct ChainKernel {
  const char* part;
  int max_period;
};
// Every chain a sass.patch.* probe patches (src/probes/sass/*.cu).
const ChainKernel kChains[] = {
    {"stall_class_kernel<gd::alu_catalog::Ffma>", 8},     {"stall_class_kernel<gd::alu_catalog::Fadd>", 8},
    {"stall_class_kernel<gd::alu_catalog::Iadd3>", 8},    {"stall_class_kernel<gd::alu_catalog::Imad>", 8},
    {"stall_class_kernel<gd::alu_catalog::Hfma2>", 8},    {"stall_class_kernel<gd::alu_catalog::Dfma>", 8},
    {"stall_class_kernel<gd::alu_catalog::Dadd>", 8},     {"stall_class_kernel<gd::alu_catalog::MufuTanh>", 8},
    {"stall_class_kernel<gd::alu_catalog::MufuRcp>", 8},  {"stall_class_kernel<gd::stall_classes::CvtCount>", 8},
    {"lds_chase_kernel", 8},                              {"ldg_chase_stall_kernel", 8},
    {"lds_two_chase_kernel", 2}};

class PatchedChains : public ::testing::TestWithParam<std::string> {};

TEST_P(PatchedChains, EveryChainIsFoundPatchedAndReadBack) {
  int found = 0;
  for (const ChainKernel& c : kChains) {
    const auto cubin = binary_cubin_with(GetParam(), c.part);
    if (!cubin) continue;
    ++found;
    SCOPED_TRACE(c.part);
    const LocatedKernel k = locate_kernel(*cubin, c.part);
    const patch_chains::ChainShape shape = find_chain(k, c.max_period);
    ASSERT_EQ(shape.runs.size(), std::size_t(kRegions));
    for (int r = 1; r < kRegions; ++r)
      EXPECT_NEAR(double(shape.runs[r].count) / double(shape.runs[0].count), double(1 << r), 0.2 * (1 << r))
          << "regions of 1, 2, 4, 8 chains";

    const ControlPatch p = patch_chains::stall_patch(k, shape.runs, 2, true);
    const Cubin patched = p.apply();
    const Cubin reread(std::vector<std::uint8_t>(patched.bytes().begin(), patched.bytes().end()));
    const LocatedKernel back{reread, k.name};
    const InstructionRun& run = shape.runs[1];
    for (std::size_t i = run.first; i + 1 < run.first + run.count; ++i) {
      const ControlWord w = back.control(i);
      EXPECT_EQ(w.stall, 2) << i;
      if (i > run.first) EXPECT_EQ(w.wait_mask, 0) << i;
      EXPECT_EQ(back.word(i).lo, k.word(i).lo) << "only control bits change";
      EXPECT_EQ(back.word(i).hi & ~ControlWord::kMask, k.word(i).hi & ~ControlWord::kMask);
    }
    const auto described = p.describe();
    ASSERT_FALSE(described.empty());
    EXPECT_NE(described.at(0)["new"].get<std::string>().find("S02"), std::string::npos) << described.dump();
    EXPECT_TRUE(self_branch_index(k).has_value()) << "the kernel ends in a branch-to-self the hang patch copies";
  }
  if (found == 0) GTEST_SKIP() << "this build has no " << GetParam() << " code (a one-target dev build)";
  EXPECT_EQ(found, int(std::size(kChains)));
}

TEST_P(PatchedChains, LoadChainsAreGuardedByABarrierAndRenamingKeepsTheGuard) {
  const auto cubin = binary_cubin_with(GetParam(), "lds_chase_kernel");
  if (!cubin) GTEST_SKIP() << "no " << GetParam() << " code in this build";
  const LocatedKernel k = locate_kernel(*cubin, "lds_chase_kernel");
  const auto shape = find_chain(k);
  const InstructionRun& run = shape.runs[2];
  const int b = k.control(run.first).write_barrier;
  ASSERT_LT(b, 6) << "ptxas guards a shared load with a write barrier";
  EXPECT_TRUE(k.control(run.first + 1).wait_mask >> b & 1) << "and the next load waits on it";
  const int to = b == 3 ? 4 : 3;
  ControlPatch p(k);
  p.rename_barrier(b, to);
  const LocatedKernel renamed{p.apply(), k.name};
  for (std::size_t i = 0; i < k.size(); ++i) {
    const ControlWord before = k.control(i), after = renamed.control(i);
    EXPECT_EQ(after.write_barrier, before.write_barrier == b ? to : before.write_barrier);
    EXPECT_FALSE(after.wait_mask >> b & 1 && b != to);
    if (before.wait_mask >> b & 1) EXPECT_TRUE(after.wait_mask >> to & 1);
  }
  ControlPatch none(k);
  none.rename_barrier(b, 7);
  const LocatedKernel unguarded{none.apply(), k.name};
  EXPECT_EQ(unguarded.control(run.first + 1).wait_mask >> b & 1, 0) << "barrier 7 has no wait bit";
}

// sass.patch.scoreboard's barrier experiment renames the chase's barriers only: the slot fill,
// thread and CTA ids and parameter loads before the chase keep theirs (ptxas guards them with the
// same indices), so `to` = 7 leaves the chase unguarded and nothing else.
TEST_P(PatchedChains, ChainBarrierRenameLeavesTheSetUpCodeGuarded) {
  const auto cubin = binary_cubin_with(GetParam(), "lds_chase_kernel");
  if (!cubin) GTEST_SKIP() << "no " << GetParam() << " code in this build";
  const LocatedKernel k = locate_kernel(*cubin, "lds_chase_kernel");
  const auto shape = find_chain(k);
  std::vector<int> compiled;
  for (const auto& r : shape.runs)
    for (std::size_t i = r.first; i < r.first + r.count; ++i)
      if (const int w = k.control(i).write_barrier; w < 6 && std::find(compiled.begin(), compiled.end(), w) == compiled.end())
        compiled.push_back(w);
  ASSERT_FALSE(compiled.empty());
  const std::size_t first = shape.runs.front().first;
  bool setup_uses_them = false;
  for (std::size_t i = 0; i < first; ++i)
    for (int c : compiled)
      if (k.control(i).write_barrier == c || k.control(i).wait_mask >> c & 1) setup_uses_them = true;
  ASSERT_TRUE(setup_uses_them) << "the set-up code shares the chase's barrier indices (else this test shows nothing)";
  for (int to : {7, 5}) {
    SCOPED_TRACE(to);
    const LocatedKernel renamed{patch_chains::rename_chain_barriers(k, shape, compiled, to).apply(), k.name};
    for (std::size_t i = 0; i < first; ++i) EXPECT_TRUE(renamed.control(i) == k.control(i)) << "set-up instruction " << i;
    for (const auto& r : shape.runs)
      for (std::size_t i = r.first; i < r.first + r.count; ++i) {
        const ControlWord w = renamed.control(i);
        EXPECT_EQ(w.write_barrier, to) << i;
        for (int c : compiled)
          if (c != to) EXPECT_EQ(w.wait_mask >> c & 1, 0) << i;
        if (to < 6 && i > r.first) EXPECT_EQ(w.wait_mask >> to & 1, 1) << "the chain waits on its new barrier, " << i;
      }
  }
  EXPECT_THROW(patch_chains::rename_chain_barriers(k, shape, compiled, 8), Error);
}

TEST_P(PatchedChains, FfmaRegisterFieldsAreWhereTheBankProbeWritesThem) {
  const auto cubin = binary_cubin_with(GetParam(), "ffma_bank_kernel");
  if (!cubin) GTEST_SKIP() << "no " << GetParam() << " code in this build";
  const LocatedKernel k = locate_kernel(*cubin, "ffma_bank_kernel");
  const auto runs = periodic_runs(k.cubin, k.kernel(), 1, 4, true);
  std::size_t ffma = 0;
  std::optional<InstructionRun> first;
  for (const auto& r : runs)
    if ((k.word(r.first).lo & 0xfff) == 0x223) {
      ffma += r.count;
      if (!first) first = r;
    }
  EXPECT_EQ(ffma, 128u) << "the loop body, 8 accumulators x 16 steps, in runs around the loop counter";
  ASSERT_TRUE(first.has_value());
  const InstructionRun& run = *first;
  using F = RegisterFields;
  std::vector<int> dst;
  const int c = F::rc(k.word(run.first));
  for (std::size_t i = run.first; i < run.first + run.count; ++i) {
    const Instruction128 w = k.word(i);
    EXPECT_EQ(w.lo & 0xfff, 0x223u) << "FFMA R, R, R, R";
    // acc = acc * a + b: b is the addend throughout, a one of the factors (ptxas swaps the
    // factors to dodge bank conflicts on sm_90 and renames the accumulators on sm_100/sm_120).
    EXPECT_EQ(F::rc(w), c) << i;
    EXPECT_NE(F::rd(w), c) << i;
    if (i < run.first + 8) dst.push_back(F::rd(w));
  }
  std::sort(dst.begin(), dst.end());
  EXPECT_EQ(std::unique(dst.begin(), dst.end()) - dst.begin(), 8) << "eight distinct accumulators";
  // The rewrite touches the source fields only.
  const Instruction128 w = k.word(run.first);
  const Instruction128 r = F::with_sources(w, 2, 4, F::kRZ);
  EXPECT_EQ(F::ra(r), 2);
  EXPECT_EQ(F::rb(r), 4);
  EXPECT_EQ(F::rc(r), 255);
  EXPECT_EQ(F::rd(r), F::rd(w));
  EXPECT_EQ(r.lo & 0xffff, w.lo & 0xffff);
  EXPECT_EQ(r.hi & ~0xffull, w.hi & ~0xffull);
  EXPECT_THROW(F::with_sources(w, 256, 0, 0), Error);
}

INSTANTIATE_TEST_SUITE_P(Targets, PatchedChains, ::testing::ValuesIn(testing::target_archs()),
                         [](const auto& info) { return info.param; });

TEST(PeriodicRuns, FindsRepeatedGroupsAndNothingElse) {
  // A compiled chain of one FFMA (period 1): period 2 sees the same run, period 3 too.
  const Cubin c = testing::compile_cubin(testing::kChainSource, "sm_90a");
  const Kernel& k = *c.find_kernel("ffma_chain");
  const auto one = periodic_runs(c, k, 1, 16);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_GE(one[0].count, 31u);
  EXPECT_EQ(periodic_runs(c, k, 1, 64).size(), 0u) << "min_count";
  EXPECT_THROW(periodic_runs(c, k, 0, 1), Error);
}

}  // namespace
}  // namespace gd::sass
