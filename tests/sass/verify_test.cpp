// Verification verdicts on real compiled code: a true chain passes, a hollowed-out one (the
// compiler deleted the dead chain) and other broken expectations are mismatches with a reason.
#include <gtest/gtest.h>

#include "sass/verify.hpp"
#include "sass_test_util.hpp"

namespace gd::sass {
namespace {

SassExpectation chain_expectation(const std::string& glob, int n = 32) {
  return SassExpectation{glob, SassRegion::Clocked, {{"FFMA", n, n}}};
}

TEST(OpcodeMatches, BaseOrModifierPrefix) {
  EXPECT_TRUE(opcode_matches("FFMA", "FFMA"));
  EXPECT_TRUE(opcode_matches("FFMA", "FFMA.FTZ"));
  EXPECT_TRUE(opcode_matches("LDG.E", "LDG.E.64"));
  EXPECT_FALSE(opcode_matches("LDG.E", "LDG.EL"));
  EXPECT_FALSE(opcode_matches("FFMA", "FFMA2"));
  EXPECT_FALSE(opcode_matches("LDG.E.64", "LDG.E"));
  EXPECT_TRUE(opcode_matches("STG.E.128", "STG.E.EF.128")) << "extra cache-hint modifiers";
  EXPECT_FALSE(opcode_matches("STG.E.128", "STG.E.64"));
  EXPECT_FALSE(opcode_matches("STG.128.E", "STG.E.128")) << "order matters";
}

TEST(OutsideCcRange, GatesOnlyArchsTheRangeExcludes) {
  Requirements any;
  EXPECT_EQ(outside_cc_range(any, Arch{80, false}), "");
  Requirements hopper_to_sm100;
  hopper_to_sm100.min_cc = 90;
  hopper_to_sm100.max_cc = 119;
  EXPECT_EQ(outside_cc_range(hopper_to_sm100, Arch{90, true}), "");
  EXPECT_EQ(outside_cc_range(hopper_to_sm100, Arch{100, true}), "");
  EXPECT_EQ(outside_cc_range(hopper_to_sm100, Arch{119, true}), "") << "max_cc is inclusive";
  EXPECT_NE(outside_cc_range(hopper_to_sm100, Arch{120, true}).find("sm_120a"), std::string::npos);
  EXPECT_NE(outside_cc_range(hopper_to_sm100, Arch{80, false}), "");
  Requirements from_sm120;
  from_sm120.min_cc = 120;
  EXPECT_NE(outside_cc_range(from_sm120, Arch{100, true}), "");
  EXPECT_EQ(outside_cc_range(from_sm120, Arch{120, true}), "");
}

class VerifyPerArch : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    GD_REQUIRE_DISASSEMBLER();
    cubin_ = std::make_unique<Cubin>(testing::compile_cubin(testing::kChainSource, GetParam()));
    code_ = std::make_unique<CodeBase>(cubin_->arch(), std::vector<const Cubin*>{cubin_.get()});
  }
  SassCheck check(std::vector<SassExpectation> e) const { return check_expectations(e, *code_); }
  std::unique_ptr<Cubin> cubin_;
  std::unique_ptr<CodeBase> code_;
};

TEST_P(VerifyPerArch, TrueChainIsVerified) {
  const SassCheck c = check({chain_expectation("ffma_*")});
  EXPECT_EQ(c.status, SassStatus::Verified) << c.detail;
  EXPECT_NE(c.detail.find("FFMA x32"), std::string::npos) << c.detail;
}

TEST_P(VerifyPerArch, HollowKernelIsRejected) {
  const SassCheck c = check({chain_expectation("hollow_chain")});
  EXPECT_EQ(c.status, SassStatus::Mismatch);
  EXPECT_NE(c.detail.find("FFMA x0"), std::string::npos) << c.detail;
}

TEST_P(VerifyPerArch, WrongCountIsAMismatchThatSaysWhatWasFound) {
  const SassCheck c = check({chain_expectation("ffma_chain", 64)});
  EXPECT_EQ(c.status, SassStatus::Mismatch);
  EXPECT_NE(c.detail.find("need == 64"), std::string::npos) << c.detail;
  EXPECT_NE(c.detail.find("found FFMA x32"), std::string::npos) << c.detail;
}

TEST_P(VerifyPerArch, UnmatchedGlobIsAMismatch) {
  const SassCheck c = check({chain_expectation("*no_such_kernel*")});
  EXPECT_EQ(c.status, SassStatus::Mismatch);
  EXPECT_NE(c.detail.find("no kernel matches"), std::string::npos) << c.detail;
}

TEST_P(VerifyPerArch, ClockedRegionWithoutClockReadsIsAMismatch) {
  const SassCheck c = check({SassExpectation{"no_clock", SassRegion::Clocked, {{"FMUL", 1, -1}}}});
  EXPECT_EQ(c.status, SassStatus::Mismatch);
  EXPECT_NE(c.detail.find("0 clock read"), std::string::npos) << c.detail;
  const SassCheck whole = check({SassExpectation{"no_clock", SassRegion::Whole, {{"FMUL", 1, -1}}}});
  EXPECT_EQ(whole.status, SassStatus::Verified) << whole.detail;
}

TEST_P(VerifyPerArch, LocalMemoryIsForbiddenByDefault) {
  const SassCheck c = check({SassExpectation{"spills", SassRegion::Whole, {}}});
  EXPECT_EQ(c.status, SassStatus::Mismatch) << c.detail;
  EXPECT_NE(c.detail.find("forbidden"), std::string::npos) << c.detail;
}

TEST_P(VerifyPerArch, GlobOverDemangledNames) {
  // Only the demangled name ("void templated<int>(int*, int)") matches this glob; the kernel adds
  // with one IADD3 on every target, so anything short of Verified means the glob missed it.
  const SassCheck c = check({SassExpectation{"void templated<int>*", SassRegion::Whole, {{"IADD3", 1, -1}}}});
  EXPECT_EQ(c.status, SassStatus::Verified) << c.detail;
  EXPECT_EQ(code_->match("*templated<int>*").size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Targets, VerifyPerArch, ::testing::ValuesIn(testing::target_archs()),
                         [](const auto& info) { return info.param; });

TEST(Verify, NoExpectationsIsUnverified) {
  const CodeBase empty(Arch{90, true}, {});
  EXPECT_EQ(check_expectations({}, empty).status, SassStatus::Unverified);
  EXPECT_EQ(check_expectations({chain_expectation("*")}, empty).status, SassStatus::Unverified);
}

TEST(Verify, ArchNotInTheBinaryIsUnverifiedWithTheArchsItHas) {
  const std::string src = std::string(testing::kChainSource) + "\nint main() { return 0; }\n";
  const std::string exe = testing::nvcc_build(src, "--no-compress " + testing::gencode("sm_90a"), ".v");
  Verifier v(exe);
  ProbeSpec p;
  p.id = "test.chain";
  p.sass = {chain_expectation("ffma_chain")};
  const SassCheck c = v.verify(p, Arch{120, true});
  EXPECT_EQ(c.status, SassStatus::Unverified);
  EXPECT_NE(c.detail.find("sm_90a"), std::string::npos) << c.detail;
  if (disassembler_tools().any()) {
    EXPECT_EQ(v.verify(p, Arch{90, true}).status, SassStatus::Verified);
  }

  DeviceInfo d;
  d.cc_major = 9;
  d.cc_minor = 0;
  EXPECT_EQ(v.arch_for(d)->name(), "sm_90a") << "prefers the arch-specific cubin";
  d.arch_code_loaded = "sm_90";
  EXPECT_EQ(v.arch_for(d)->name(), "sm_90") << "what the runtime reports wins";
  d = {};
  d.cc_major = 8;
  d.cc_minor = 9;
  EXPECT_FALSE(v.arch_for(d)) << "no SASS for sm_89: PTX JIT";
}

}  // namespace
}  // namespace gd::sass
