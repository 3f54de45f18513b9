// The control-bit probes' verdict on whether a patch reached the chip (patch_chains.cuh
// require_patch_effect): a patch with no trace fails its point, except in a single-sample run
// (profiler or sanitizer), where the record says the effect was not judged.
#include <gtest/gtest.h>

#include "sass/patch_chains.cuh"

namespace gd::patch_chains {
namespace {

class PatchEffectTest : public ::testing::Test {
 protected:
  PatchEffectTest() { spec_.id = "test.patch"; }
  ProbeContext context(bool single_sample) {
    SamplingOverride sampling;
    sampling.single_sample = single_sample;
    return ProbeContext(spec_, {}, device_, false, 10.0, sampling);
  }
  ProbeSpec spec_;
  DeviceInfo device_;
};

TEST_F(PatchEffectTest, AnEditThatShowedPassesAndNamesItsEvidence) {
  ProbeContext ctx = context(false);
  require_patch_effect(ctx, {true, "stall 1 gave wrong results in 32 lanes"});
  EXPECT_EQ(ctx.extra()["patch_effect"], "stall 1 gave wrong results in 32 lanes");
  EXPECT_FALSE(ctx.extra().contains("patch_effect_not_judged"));
}

TEST_F(PatchEffectTest, AnEditWithNoTraceFailsTheMeasuredPoint) {
  ProbeContext ctx = context(false);
  EXPECT_THROW(require_patch_effect(ctx, {false, "stall 4 -> 15 changed nothing"}), Error);
  EXPECT_EQ(ctx.extra()["patch_effect"], "stall 4 -> 15 changed nothing");
}

TEST_F(PatchEffectTest, ASingleSampleRunRecordsTheEffectAsNotJudged) {
  ProbeContext ctx = context(true);
  EXPECT_NO_THROW(require_patch_effect(ctx, {false, "stall 4 -> 15 changed nothing"}));
  EXPECT_TRUE(ctx.extra().contains("patch_effect_not_judged"));
}

}  // namespace
}  // namespace gd::patch_chains
