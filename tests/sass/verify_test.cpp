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

// A marked region is counted alone: the reference loop before it, with twice the FFMAs, is not
// in it (the pipes' pair kernel times the row beside references of the same opcode).
TEST_P(VerifyPerArch, MarkedRegionCountsOnlyTheRegionAfterTheMarker) {
  const Cubin cubin = testing::compile_cubin(testing::kRegionSource, GetParam());
  const CodeBase code(cubin.arch(), {&cubin});
  const auto marked = [&](int n) {
    return check_expectations({expect_sass("two_regions", SassRegion::Marked, {{"FFMA", n, n}})}, code);
  };
  EXPECT_EQ(marked(8).status, SassStatus::Verified) << marked(8).detail;
  EXPECT_EQ(marked(24).status, SassStatus::Mismatch) << "the reference's FFMAs are not the row's";
  const SassCheck whole_span = check_expectations({expect_sass("two_regions", SassRegion::Clocked, {{"FFMA", 24, 24}})}, code);
  EXPECT_EQ(whole_span.status, SassStatus::Verified) << whole_span.detail;
  const SassCheck unmarked = check({expect_sass("ffma_chain", SassRegion::Marked, {{"FFMA", 32, 32}})});
  EXPECT_EQ(unmarked.status, SassStatus::Mismatch);
  EXPECT_NE(unmarked.detail.find("no region marker"), std::string::npos) << unmarked.detail;
}

// A step that is a CALL (64-bit division) runs a routine listed after the kernel's EXIT: with
// callees its instructions count, once however many steps call it; without them only the loop's
// (the inline 32-bit fast path's MUFU.RCP per step, no I2F.U64.RP) are seen.
TEST_P(VerifyPerArch, CalleesCountTheRoutineACallStepRuns) {
  const Cubin cubin = testing::compile_cubin(testing::kRegionSource, GetParam());
  const CodeBase code(cubin.arch(), {&cubin});
  auto e = expect_sass("u64_div", SassRegion::Clocked,
                       {{"CALL.REL.NOINC", 4, 4}, {"MUFU.RCP", 5, 5}, {"I2F.U64.RP", 1, 1}});
  const SassCheck loop_only = check_expectations({e}, code);
  EXPECT_EQ(loop_only.status, SassStatus::Mismatch);
  EXPECT_NE(loop_only.detail.find("MUFU.RCP x4"), std::string::npos) << loop_only.detail;
  e.callees = true;
  const SassCheck with_routine = check_expectations({e}, code);
  EXPECT_EQ(with_routine.status, SassStatus::Verified) << "the routine is counted once: " << with_routine.detail;
}

INSTANTIATE_TEST_SUITE_P(Targets, VerifyPerArch, ::testing::ValuesIn(testing::target_archs()),
                         [](const auto& info) { return info.param; });

// A hand-written listing: statements in order, one per 16 bytes.
KernelCode listing(const std::string& name, const std::vector<std::string>& statements) {
  KernelCode k{name, name, {}};
  for (const auto& s : statements) {
    k.instructions.push_back(*parse_statement(s));
    k.instructions.back().address = 16 * (k.instructions.size() - 1);
  }
  return k;
}

// Counts per occurrence of another opcode: a loop ptxas unrolls as it likes still has exactly
// one MMA per group and a wait per group (plus the one after the loop).
TEST(Verify, CountsPerOccurrenceOfAnotherOpcode) {
  const std::vector<OpcodeExpectation> per_group = {{"HGMMA", 1, 1, "WARPGROUP.ARRIVE"},
                                                    {"WARPGROUP.DEPBAR", 1, 2, "WARPGROUP.ARRIVE"}};
  const auto check = [&](const std::vector<std::string>& loop) {
    std::vector<std::string> all = {"CS2R R2, SR_CLOCKLO"};
    all.insert(all.end(), loop.begin(), loop.end());
    all.push_back("CS2R R4, SR_CLOCKLO");
    const auto code = CodeBase::of_kernels(Arch{90, true}, {listing("k", all)});
    return check_expectations({expect_sass("k", SassRegion::Clocked, per_group)}, code);
  };
  const std::string arrive = "WARPGROUP.ARRIVE", mma = "HGMMA.64x64x16.F32 R24, gdesc[UR4], R24, gsb0",
                    wait = "WARPGROUP.DEPBAR.LE gsb0, 0x0";
  EXPECT_EQ(check({arrive, mma, wait, arrive, mma, wait, wait}).status, SassStatus::Verified);
  EXPECT_EQ(check({arrive, mma, arrive, mma, arrive, mma, wait}).status, SassStatus::Mismatch) << "waits dropped";
  const SassCheck two = check({arrive, mma, mma, wait, arrive, mma, mma, wait});
  EXPECT_EQ(two.status, SassStatus::Mismatch);
  EXPECT_NE(two.detail.find("HGMMA x4 for WARPGROUP.ARRIVE x2"), std::string::npos) << two.detail;
  EXPECT_NE(two.detail.find("== 1 per WARPGROUP.ARRIVE"), std::string::npos) << two.detail;
}

// ptxas pads an LDGSTS with never-run loads (@!PT LDS RZ, [RZ]): they are not the step's LDS,
// which a count of one per step must see exactly.
TEST(Verify, InstructionsPredicatedOffAreNotCounted) {
  const auto code = CodeBase::of_kernels(
      Arch{90, true}, {listing("k", {"CS2R R2, SR_CLOCKLO", "@!PT LDS RZ, [RZ]", "@!PT LDS RZ, [RZ]",
                                     "LDGSTS.E.BYPASS.128 [R17], desc[UR6][R8.64]", "LDS R11, [R17]",
                                     "@P0 LDS R12, [R17]", "CS2R R4, SR_CLOCKLO"})});
  const SassCheck c = check_expectations({expect_sass("k", SassRegion::Clocked, {{"LDS", 2, 2}})}, code);
  EXPECT_EQ(c.status, SassStatus::Verified) << "a real predicate (@P0) still counts: " << c.detail;
}

// A CALL whose target the listing names by label (ELF mode) cannot be followed: a mismatch that
// says so, not a silent pass on the loop alone.
TEST(Verify, CalleeWithoutAnAddressIsAMismatchThatSaysSo) {
  const auto code = CodeBase::of_kernels(
      Arch{90, true}, {listing("k", {"CS2R R2, SR_CLOCKLO", "CALL.REL.NOINC `($__internal_0_$__cuda_sm20_div_u64)",
                                     "CS2R R4, SR_CLOCKLO", "EXIT"})});
  auto e = expect_sass("k", SassRegion::Clocked, {{"CALL.REL.NOINC", 1, 1}});
  EXPECT_EQ(check_expectations({e}, code).status, SassStatus::Verified);
  e.callees = true;
  const SassCheck c = check_expectations({e}, code);
  EXPECT_EQ(c.status, SassStatus::Mismatch);
  EXPECT_NE(c.detail.find("whose address the listing does not give"), std::string::npos) << c.detail;
}

// sm_80's chains leave their loop through `@P2 CALL.REL.NOINC` to the code after it: that walk
// reaches EXIT, not RET, so it is no routine, and the real routine's I2F.U64.RP counts once.
TEST(Verify, ACallIntoTheKernelsTailIsNoRoutine) {
  const auto code = CodeBase::of_kernels(
      Arch{80, false}, {listing("k", {"CS2R R2, SR_CLOCKLO", "CALL.REL.NOINC 0x60", "@P2 CALL.REL.NOINC 0x30",
                                      "CS2R R4, SR_CLOCKLO", "STG.E.64 [R8.64], R6", "EXIT",
                                      "I2F.U64.RP R13, R14", "MUFU.RCP R13, R13", "RET.REL.NODEC R6 0x0"})});
  auto e = expect_sass("k", SassRegion::Clocked, {{"CALL.REL.NOINC", 2, 2}, {"I2F.U64.RP", 1, 1}});
  e.callees = true;
  const SassCheck c = check_expectations({e}, code);
  EXPECT_EQ(c.status, SassStatus::Verified) << c.detail;
}

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
