// The chip's dense tensor-core rate per SM per clock, by operand type, and a measured rate's
// efficiency against it at the clock the measurement ran at. The per-clock rates come from
// NVIDIA's architecture whitepapers (see tensor_rate.cpp for each figure's derivation); a type
// a whitepaper does not state has no rate, and its efficiency is not reported.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace gd {

struct TensorRate {
  double flops_per_clk_per_sm = 0;  // dense; FLOP = 2 per multiply-add (integer: OP)
  std::string source;              // where the figure comes from
};

// Dense rate for compute capability `cc` (major * 10 + minor) and an operand type named as PTX
// spells it: "f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "s4", "u4", "b1", "f64".
// 2:4 sparse MMA is rated at twice the dense figure (sparse = true). nullopt when not known.
std::optional<TensorRate> tensor_rate(int cc, std::string_view type, bool sparse = false);

// The FP32 rate of the CUDA cores (FFMA, no tensor core), FLOP per clock per SM: what an SGEMM is
// held against. nullopt for a chip whose whitepaper figure is not listed.
std::optional<TensorRate> core_fp32_rate(int cc);

// FLOP/clk/SM x SMs x MHz, in TFLOPS. Throws std::invalid_argument on a negative or non-finite
// input or sm_count < 1.
double tensor_tflops(double flops_per_clk_per_sm, int sm_count, double clock_mhz);

struct TensorEfficiency {
  double peak_flops_per_clk_per_sm = 0;
  double peak_tflops_at_clock = 0;  // the per-clock peak at the observed clock, whole chip
  double measured_tflops = 0;
  double percent_of_peak = 0;       // measured / peak per clock (the clock cancels)
};
// Throws std::invalid_argument on a non-positive peak or clock, a negative or non-finite rate.
TensorEfficiency tensor_efficiency(double measured_flops_per_clk_per_sm, double peak_flops_per_clk_per_sm,
                                   int sm_count, double clock_mhz);

}  // namespace gd
