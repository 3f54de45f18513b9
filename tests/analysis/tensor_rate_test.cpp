#include "analysis/tensor_rate.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

namespace gd {
namespace {

TEST(TensorRate, HopperDenseRatesFollowTheWhitepaper) {
  ASSERT_TRUE(tensor_rate(90, "f16"));
  EXPECT_DOUBLE_EQ(tensor_rate(90, "f16")->flops_per_clk_per_sm, 4096);
  EXPECT_DOUBLE_EQ(tensor_rate(90, "bf16")->flops_per_clk_per_sm, 4096);
  EXPECT_DOUBLE_EQ(tensor_rate(90, "tf32")->flops_per_clk_per_sm, 2048);
  EXPECT_DOUBLE_EQ(tensor_rate(90, "e4m3")->flops_per_clk_per_sm, 8192);
  EXPECT_DOUBLE_EQ(tensor_rate(90, "s8")->flops_per_clk_per_sm, 8192);
  EXPECT_NE(tensor_rate(90, "f16")->source.find("H100"), std::string::npos);
  // The whitepaper's own check: 132 SMs at 1830 MHz give its 989.4 dense FP16 TFLOPS.
  EXPECT_NEAR(tensor_tflops(tensor_rate(90, "f16")->flops_per_clk_per_sm, 132, 1830), 989.4, 0.1);
}

TEST(TensorRate, SparseIsTwiceDenseWhereItExists) {
  EXPECT_DOUBLE_EQ(tensor_rate(90, "f16", true)->flops_per_clk_per_sm, 8192);
  EXPECT_DOUBLE_EQ(tensor_rate(90, "e4m3", true)->flops_per_clk_per_sm, 16384);
  EXPECT_FALSE(tensor_rate(90, "f64", true));
}

TEST(TensorRate, UnstatedTypesAndChipsHaveNoRate) {
  EXPECT_FALSE(tensor_rate(90, "b1"));   // the H100 whitepaper lists no binary rate
  EXPECT_FALSE(tensor_rate(90, "s4"));
  EXPECT_FALSE(tensor_rate(75, "f16"));
  EXPECT_FALSE(tensor_rate(90, "fp16"));  // names are PTX's
  EXPECT_DOUBLE_EQ(tensor_rate(80, "b1")->flops_per_clk_per_sm, 32768);
}

TEST(TensorRate, EfficiencyIsPerClockSoTheClockCancels) {
  const TensorEfficiency e = tensor_efficiency(3686.4, 4096, 132, 1755);
  EXPECT_NEAR(e.percent_of_peak, 90.0, 1e-9);
  EXPECT_NEAR(e.peak_tflops_at_clock, 4096.0 * 132 * 1755e6 / 1e12, 1e-9);
  EXPECT_NEAR(e.measured_tflops / e.peak_tflops_at_clock, 0.9, 1e-12);
  EXPECT_DOUBLE_EQ(tensor_efficiency(3686.4, 4096, 132, 900).percent_of_peak, e.percent_of_peak);
}

TEST(TensorRate, CoreFp32RateIsTwoFlopPerLane) {
  ASSERT_TRUE(core_fp32_rate(90));
  EXPECT_DOUBLE_EQ(core_fp32_rate(90)->flops_per_clk_per_sm, 256) << "H100: 128 FP32 lanes per SM, 2 FLOP per FFMA";
  EXPECT_DOUBLE_EQ(core_fp32_rate(80)->flops_per_clk_per_sm, 128) << "A100 has half Hopper's FP32 lanes";
  EXPECT_FALSE(core_fp32_rate(75)) << "a chip without a listed figure has no rate, not a guess";
}

TEST(TensorRate, BadInputsThrow) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(tensor_efficiency(100, 0, 132, 1500), std::invalid_argument);
  EXPECT_THROW(tensor_efficiency(100, 4096, 132, 0), std::invalid_argument);
  EXPECT_THROW(tensor_efficiency(nan, 4096, 132, 1500), std::invalid_argument);
  EXPECT_THROW(tensor_efficiency(-1, 4096, 132, 1500), std::invalid_argument);
  EXPECT_THROW(tensor_tflops(100, 0, 1500), std::invalid_argument);
  EXPECT_THROW(tensor_tflops(100, 132, nan), std::invalid_argument);
}

}  // namespace
}  // namespace gd
