// The CUTLASS GEMM-ceiling probe's host side: a precision's entry (its SASS glob, the reason a
// build without the headers gives) and a GEMM rate against the chip's per-clock tensor rate.
#include "system/gemm_cutlass.hpp"
#include "system/gemm_measure.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

#include "core/match.hpp"

namespace gd::gemm {
namespace {

TEST(CutlassEntry, GlobNamesOnlyItsOwnPrecisionsWrapper) {
  const CutlassKernel k = cutlass_entry("fp16", "cutlass_sm90_gemm", "CutlassFp16", "HGMMA", CUDA_R_16F, "tile", true);
  EXPECT_TRUE(k.missing.empty());
  EXPECT_EQ(k.mma_opcode, "HGMMA");
  // CUTLASS's kernel names do not demangle: the glob reads the mangled one.
  const std::string rest = "EN7cutlass4gemm6kernel13GemmUniversalIN4cute5tupleIJiiiiEEEEEvNT0_6ParamsE";
  EXPECT_TRUE(glob_match(k.kernel_glob, "_ZN2gd4gemm17cutlass_sm90_gemmINS0_11CutlassFp16" + rest));
  // Another precision's kernel, a tag that only starts the same, or the other wrapper is not this one.
  EXPECT_FALSE(glob_match(k.kernel_glob, "_ZN2gd4gemm17cutlass_sm90_gemmINS0_11CutlassBf16" + rest));
  EXPECT_FALSE(glob_match(k.kernel_glob, "_ZN2gd4gemm17cutlass_sm90_gemmINS0_12CutlassFp16x" + rest));
  EXPECT_FALSE(glob_match(k.kernel_glob, "_ZN2gd4gemm15cutlass_2x_gemmINS0_11CutlassFp16" + rest));
}

// A build without the headers still lists the precision, with the reason its points skip.
TEST(CutlassEntry, WithoutTheHeadersSaysHowToGetThem) {
  const CutlassKernel k =
      cutlass_entry("bf16", "cutlass_sm90_gemm", "CutlassBf16", "HGMMA", CUDA_R_16BF, "tile", false);
  EXPECT_EQ(k.missing, "CUTLASS headers not found: run scripts/setup.sh");
  EXPECT_EQ(k.prepare, nullptr);
}

TEST(GemmEfficiency, PrecisionsMapToTheirTensorOperands) {
  EXPECT_EQ(tensor_operand("bf16"), "bf16");
  EXPECT_EQ(tensor_operand("fp16"), "f16");
  EXPECT_EQ(tensor_operand("fp8_e4m3"), "e4m3");
  EXPECT_EQ(tensor_operand("int8"), "s8");
  EXPECT_EQ(tensor_operand("fp64"), "f64");
  EXPECT_EQ(tensor_operand("tf32"), "tf32");
  EXPECT_EQ(tensor_operand("fp32"), std::nullopt);  // FFMA: no tensor-core rate to compare with
  EXPECT_THROW(tensor_operand("fp4"), Error);
  // Every precision of the GEMM table has an answer.
  for (const auto& t : kTypes) EXPECT_NO_THROW(tensor_operand(t.name)) << t.name;
}

// The rate per SM per clock against the per-clock peak: the clock cancels out of the percentage,
// the peak at that clock is the whole chip's.
TEST(GemmEfficiency, RateAgainstThePerClockPeakAtTheObservedClock) {
  const int sms = 132;
  const double mhz = 1980, tflops = 700;
  const auto e = gemm_efficiency("bf16", 90, sms, mhz, tflops);
  ASSERT_TRUE(e.has_value());
  const double per_clk_per_sm = tflops * 1e12 / (sms * mhz * 1e6);
  const double peak = tensor_rate(90, "bf16")->flops_per_clk_per_sm;
  EXPECT_NEAR(e->percent_of_peak, 100 * per_clk_per_sm / peak, 1e-9);
  EXPECT_NEAR(e->peak_tflops_at_clock, peak * sms * mhz * 1e6 / 1e12, 1e-9);
  EXPECT_NEAR(e->measured_tflops, tflops, 1e-9);
  // Half the clock, the same rate: twice the share of what the chip could do at that clock.
  EXPECT_NEAR(gemm_efficiency("bf16", 90, sms, mhz / 2, tflops)->percent_of_peak, 2 * e->percent_of_peak, 1e-9);
  // FP8 runs at twice the 16-bit rate per clock.
  EXPECT_NEAR(gemm_efficiency("fp8_e4m3", 90, sms, mhz, tflops)->percent_of_peak, e->percent_of_peak / 2, 1e-9);
}

// SGEMM has no tensor-core path: it is held against the CUDA cores' FFMA rate (256 FLOP/clk/SM on sm_90).
TEST(GemmEfficiency, Fp32IsHeldAgainstTheFfmaRate) {
  const auto e = gemm_efficiency("fp32", 90, 132, 1980, 50);
  ASSERT_TRUE(e.has_value());
  EXPECT_NEAR(e->peak_tflops_at_clock, 256.0 * 132 * 1980e6 / 1e12, 1e-9);
  EXPECT_NEAR(e->percent_of_peak, 100 * 50 / e->peak_tflops_at_clock, 1e-9);
}

TEST(GemmEfficiency, NoRateNoFigureAndBadInputsAreErrors) {
  EXPECT_EQ(gemm_efficiency("fp32", 75, 72, 1500, 10), std::nullopt);  // no CUDA-core rate listed for sm_75
  EXPECT_EQ(gemm_efficiency("fp8_e4m3", 80, 108, 1400, 100), std::nullopt);  // no FP8 tensor cores on sm_80
  EXPECT_THROW(gemm_efficiency("bf16", 90, 132, 0, 700), std::invalid_argument);
  EXPECT_THROW(gemm_efficiency("bf16", 90, 0, 1980, 700), std::invalid_argument);
  EXPECT_THROW(gemm_efficiency("bf16", 90, 132, 1980, -1), std::invalid_argument);
  EXPECT_THROW(gemm_efficiency("fp4", 90, 132, 1980, 1), Error);
}

}  // namespace
}  // namespace gd::gemm
