// Per-point verification: a point is verified only when every kernel it launched is covered by an
// expectation that holds on the real compiled code; anything launched but unchecked leaves it
// unverified, and a probe without SM kernels is not_applicable rather than unverified.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "sass/isa.hpp"
#include "sass/verify.hpp"
#include "sass_test_util.hpp"

namespace gd::sass {
namespace {

ProbeSpec probe_with(std::vector<SassExpectation> e) {
  ProbeSpec p;
  p.id = "test.point";
  p.sass = std::move(e);
  return p;
}

class VerifyPoint : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    GD_REQUIRE_DISASSEMBLER();
    cubin_ = std::make_unique<Cubin>(testing::compile_cubin(testing::kChainSource, GetParam()));
    code_ = std::make_unique<CodeBase>(cubin_->arch(), std::vector<const Cubin*>{cubin_.get()});
  }
  SassCheck point(const ProbeSpec& p, std::vector<std::string> kernels) const { return check_point(p, *code_, kernels); }
  std::unique_ptr<Cubin> cubin_;
  std::unique_ptr<CodeBase> code_;
};

const SassExpectation kChain = expect_sass("ffma_chain", SassRegion::Clocked, {{"FFMA", 32, 32}});
const SassExpectation kNoClock = expect_sass("no_clock", SassRegion::Whole, {{"FMUL", 1, -1}});

TEST_P(VerifyPoint, EveryLaunchedKernelCheckedIsVerified) {
  const SassCheck c = point(probe_with({kChain, kNoClock}), {"ffma_chain", "no_clock"});
  EXPECT_EQ(c.status, SassStatus::Verified) << c.detail;
  EXPECT_NE(c.detail.find("2 kernel(s) launched and checked"), std::string::npos) << c.detail;
}

// The bug this guards: a probe-level "verified" stamped on a point that also ran a kernel no
// expectation looks at (compute.peak.fp32 checked ilp 1 and 8, and ran 2 and 4 too).
TEST_P(VerifyPoint, LaunchedKernelWithoutExpectationIsUnverified) {
  const SassCheck c = point(probe_with({kChain}), {"ffma_chain", "no_clock"});
  EXPECT_EQ(c.status, SassStatus::Unverified) << c.detail;
  EXPECT_NE(c.detail.find("no_clock has no SASS expectation"), std::string::npos) << c.detail;
}

TEST_P(VerifyPoint, LaunchedKernelMissingFromTheCodeIsUnverified) {
  const SassCheck c = point(probe_with({kChain}), {"_Z9elsewherev"});
  EXPECT_EQ(c.status, SassStatus::Unverified) << c.detail;
  EXPECT_NE(c.detail.find("not in this arch's code"), std::string::npos) << c.detail;
}

// The executor hands each point the probe's whole check made once (Verifier::prepare), so a point
// costs no glob over every kernel of the binary: check_point must take it as given.
TEST_P(VerifyPoint, AWholeCheckMadeBeforeIsTakenAsGiven) {
  const ProbeSpec p = probe_with({kChain, kNoClock});
  const SassCheck whole = check_expectations(p.sass, *code_);
  EXPECT_EQ(check_point(p, *code_, {"ffma_chain"}, &whole).status, SassStatus::Verified);
  const SassCheck failed{SassStatus::Mismatch, "made before: a mismatch"};
  const SassCheck c = check_point(p, *code_, {"ffma_chain"}, &failed);
  EXPECT_EQ(c.status, SassStatus::Mismatch);
  EXPECT_EQ(c.detail, "made before: a mismatch");
}

TEST_P(VerifyPoint, CoveredKernelThatFailsIsAMismatch) {
  // Both globs cover ffma_chain; the second expects twice the chain that is there.
  const auto wrong = expect_sass("ffma_*", SassRegion::Clocked, {{"FFMA", 64, -1}});
  const SassCheck c = point(probe_with({kNoClock, wrong}), {"no_clock"});
  EXPECT_EQ(c.status, SassStatus::Mismatch) << "the probe's own expectations fail: " << c.detail;
}

TEST_P(VerifyPoint, NothingLaunchedIsUnverifiedUnlessTheProbeRunsNoKernel) {
  ProbeSpec p = probe_with({kChain});
  EXPECT_EQ(point(p, {}).status, SassStatus::Unverified);
  p.runs_no_sm_kernel = true;
  const SassCheck c = point(p, {});
  EXPECT_EQ(c.status, SassStatus::NotApplicable) << c.detail;
}

TEST_P(VerifyPoint, MangledTemplateNamesAreMatchedThroughTheirDemangledForm) {
  const auto templ = expect_sass("void templated<int>(int*, int)", SassRegion::Whole, {{"IADD3", 1, -1}});
  const auto* k = code_->match("*templated<int>*").at(0);
  ASSERT_NE(k->name, k->demangled) << "the test needs a mangled name";
  const SassCheck c = point(probe_with({templ}), {k->name});
  EXPECT_EQ(c.status, SassStatus::Verified) << c.detail;
}

// The run's verifier, prepared on a background thread from the device (make_run_verifier),
// answers every point as the one built at the first point does: this binary's own
// sm_90a kernels (the test executable carries them) against an expectation every kernel meets,
// and a kernel the binary lacks.
TEST(MakeVerifier, PreparedInTheBackgroundAnswersAsBuiltAtTheFirstPoint) {
  GD_REQUIRE_DISASSEMBLER();
  const EmbeddedCubins ours = embedded_cubins(own_executable_path());
  std::vector<std::string> kernels;
  for (const auto& c : ours.cubins)
    if (c.arch() == Arch{90, true})
      for (const auto& k : c.kernels()) kernels.push_back(k.name);
  ASSERT_FALSE(kernels.empty()) << "the test executable carries no sm_90a kernel";
  ProbeSpec p = probe_with({expect_sass("*", SassRegion::Whole, {{"EXIT", 1, -1}})});
  DeviceInfo device;
  device.cc_major = 9;
  device.arch_code_loaded = "sm_90a";
  const SassVerifier at_first_point = make_verifier({&p});
  const RunVerifier run = make_run_verifier({&p}, device);
  const SassVerifier& prefetched = run.check;
  for (int i = 0; i < 600 && !run.ready(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(run.ready()) << "the background preparation never finished";
  for (const auto& launched : {kernels, std::vector<std::string>{"no_such_kernel_in_this_binary"}}) {
    const SassCheck want = at_first_point(p, device, launched), got = prefetched(p, device, launched);
    EXPECT_EQ(got.status, want.status) << got.detail << " vs " << want.detail;
    EXPECT_EQ(got.detail, want.detail);
  }
  EXPECT_EQ(prefetched(p, device, kernels).status, SassStatus::Verified) << prefetched(p, device, kernels).detail;
}

// The run's verifier publishes our own binary's code base, and the ISA tables built from it are
// the tables isa.tables built from its own disassembly of the same cubins.
TEST(MakeVerifier, OurOwnCodeBaseIsPublishedAndGivesTheSameIsaTables) {
  GD_REQUIRE_DISASSEMBLER();
  const Arch arch{90, true};
  Verifier own;
  const CodeBase& code = own.code_for(arch);
  const OwnCode shared = own_code_base(arch);
  ASSERT_EQ(shared.code.get(), &code) << "the verifier's code base is the one published";
  EXPECT_FALSE(own_code_base(Arch{80, false}).code) << "an arch nothing disassembled is not published";
  const EmbeddedCubins ours = embedded_cubins(own_executable_path());
  std::vector<const Cubin*> cubins;
  for (const auto& c : ours.cubins)
    if (c.arch() == arch && !c.kernels().empty()) cubins.push_back(&c);
  EXPECT_EQ(shared.cubins, cubins.size());
  IsaTable from_shared, from_disassembly;
  for (const auto& k : shared.code->kernels()) from_shared.add_kernel(k.instructions);
  for (const auto& d : disassemble_all(cubins))
    for (const auto& [_, insts] : d.kernels) from_disassembly.add_kernel(insts);
  ASSERT_GT(from_shared.instructions(), 0u);
  EXPECT_EQ(from_shared.to_json(arch.name()), from_disassembly.to_json(arch.name()));
}

INSTANTIATE_TEST_SUITE_P(Targets, VerifyPoint, ::testing::ValuesIn(testing::target_archs()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gd::sass
