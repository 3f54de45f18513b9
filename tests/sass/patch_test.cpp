// Patch round trips: edit, re-read from the bytes, decode equals what was written, and nothing
// else in the cubin moved. Launching is GPU work (scripts/patch_demo.sh); its job format is here.
#include <gtest/gtest.h>

#include <optional>

#include "sass/patch.hpp"
#include "sass_test_util.hpp"

namespace gd::sass {
namespace {

class PatchPerArch : public ::testing::TestWithParam<std::string> {
 protected:
  Cubin cubin() const { return testing::compile_cubin(testing::kChainSource, GetParam()); }
};

TEST_P(PatchPerArch, ControlEditRoundTripsThroughTheBytes) {
  const Cubin original = cubin();
  const Kernel& k = *original.find_kernel("ffma_chain");
  const InstructionRun run = longest_identical_run(original, k);
  // The chain is one repeated word, except that the last FFMA may write another register.
  ASSERT_GE(run.count, 31u);
  ASSERT_LE(run.count, 32u);

  ControlWord w = ControlWord::decode(original.instruction(k, run.first + 1).hi);
  w.stall = 1;
  w.yield = !w.yield;
  w.reuse = 0b0010;
  const Cubin patched = apply_patch(original, {{"ffma_chain", run.first + 1, std::nullopt, w}});

  // Re-read from the patched bytes, as the driver will.
  const Cubin reread(std::vector<std::uint8_t>(patched.bytes().begin(), patched.bytes().end()));
  const Kernel& rk = *reread.find_kernel("ffma_chain");
  const Instruction128 before = original.instruction(k, run.first + 1);
  const Instruction128 after = reread.instruction(rk, run.first + 1);
  EXPECT_EQ(ControlWord::decode(after.hi), w);
  EXPECT_EQ(after.lo, before.lo);
  EXPECT_EQ(after.hi & ~ControlWord::kMask, before.hi & ~ControlWord::kMask);

  // Every other byte is unchanged, except the .nv.compat finalization opt-out on Blackwell.
  std::size_t changed = 0;
  for (std::size_t i = 0; i < original.bytes().size(); ++i) changed += original.bytes()[i] != reread.bytes()[i];
  EXPECT_LE(changed, original.has_mercury_sections() ? 9u : 8u);
  EXPECT_GT(changed, 0u);
  EXPECT_EQ(reread.kernels().size(), original.kernels().size());
  EXPECT_EQ(rk.info.exit_offsets, k.info.exit_offsets);
}

TEST_P(PatchPerArch, WholeWordEditThenControl) {
  const Cubin original = cubin();
  const Kernel& k = *original.find_kernel("ffma_chain");
  const std::size_t last = k.instruction_count() - 1;  // padding NOP
  const Instruction128 word = original.instruction(k, 0);
  ControlWord idle = idle_control_word();
  idle.stall = 2;
  const Cubin patched = apply_patch(original, {{"ffma_chain", last, word, idle}});
  const Instruction128 got = patched.instruction(*patched.find_kernel("ffma_chain"), last);
  EXPECT_EQ(got.lo, word.lo);
  EXPECT_EQ(ControlWord::decode(got.hi), idle);
}

// The .nv.compat byte that lets the driver re-finalize from the mercury copy; absent: nullopt.
std::optional<std::uint32_t> finalization_opt_in(const Cubin& c) {
  for (const auto& a : c.compat_attributes())
    if (a.id == nvcompat::kOpportunisticFinalization) return a.scalar();
  return std::nullopt;
}

TEST_P(PatchPerArch, BlackwellCodeIsKeptOnTheEditedText) {
  const Cubin original = cubin();
  const Cubin patched = apply_patch(original, {});
  // Re-read from the bytes, as the driver will: the byte itself must have changed.
  const Cubin reread(std::vector<std::uint8_t>(patched.bytes().begin(), patched.bytes().end()));
  if (original.has_mercury_sections()) {
    // The attribute must be there to be cleared; a reader that lost it would make this vacuous.
    ASSERT_EQ(finalization_opt_in(original), 1u) << "Blackwell cubins opt in to re-finalization";
    EXPECT_EQ(finalization_opt_in(reread), 0u);
  } else {
    EXPECT_EQ(finalization_opt_in(reread), finalization_opt_in(original)) << "no mercury copy: left alone";
  }
  const Cubin untouched = apply_patch(original, {}, PatchOptions{false});
  EXPECT_TRUE(std::equal(untouched.bytes().begin(), untouched.bytes().end(), original.bytes().begin()))
      << "with the switch off, an empty patch changes nothing";
}

TEST_P(PatchPerArch, BadTargetsThrow) {
  const Cubin c = cubin();
  EXPECT_THROW(apply_patch(c, {{"no_such_kernel", 0, std::nullopt, ControlWord{}}}), Error);
  const std::size_t n = c.find_kernel("ffma_chain")->instruction_count();
  EXPECT_THROW(apply_patch(c, {{"ffma_chain", n, std::nullopt, ControlWord{}}}), Error);
  ControlWord bad;
  bad.stall = 99;
  EXPECT_THROW(apply_patch(c, {{"ffma_chain", 0, std::nullopt, bad}}), Error);
}

INSTANTIATE_TEST_SUITE_P(Targets, PatchPerArch, ::testing::ValuesIn(testing::target_archs()),
                         [](const auto& info) { return info.param; });

TEST(LaunchJob, JsonRoundTrip) {
  LaunchJob job;
  job.kernel = "ffma_chain";
  job.device = 1;
  job.block = 64;
  const float a = 1.5f;
  const std::vector<float> buf = {1, 2, 3};
  job.args = {LaunchArg::device_buffer(buf.data(), buf.size() * sizeof(float)), LaunchArg::of(a)};
  const LaunchJob back = launch_job_from_json(nlohmann::json::parse(to_json(job).dump()));
  EXPECT_EQ(back.kernel, job.kernel);
  EXPECT_EQ(back.device, 1);
  EXPECT_EQ(back.block, 64u);
  ASSERT_EQ(back.args.size(), 2u);
  EXPECT_TRUE(back.args[0].buffer);
  EXPECT_EQ(back.args[0].bytes, job.args[0].bytes);
  EXPECT_EQ(back.args[1].bytes, job.args[1].bytes);
  EXPECT_THROW(launch_job_from_json(nlohmann::json{{"kernel", "x"}}), UserError);
}

TEST(LaunchOutcome, JsonRoundTrip) {
  LaunchOutcome o;
  o.kind = LaunchOutcome::Kind::CudaError;
  o.message = "kernel failed: illegal instruction";
  o.buffers = {{1, 2, 255}};
  const LaunchOutcome back = launch_outcome_from_json(to_json(o));
  EXPECT_EQ(back.kind, o.kind);
  EXPECT_EQ(back.message, o.message);
  EXPECT_EQ(back.buffers, o.buffers);
}

}  // namespace
}  // namespace gd::sass
