#include "analysis/tensor_rate.hpp"

#include <cmath>
#include <stdexcept>

namespace gd {
namespace {

// Per-clock rates, FLOP (or OP) per clock per SM, dense:
// - sm_80 (A100): the A100 whitepaper gives 256 FP16 FMA per clock per Tensor Core and 4 Tensor
//   Cores per SM: 1024 FMA = 2048 FLOP. TF32 is half that, INT8 twice, INT4 four times, binary 16
//   times, FP64 (DMMA) 128 FLOP (19.5 TFLOPS over 108 SMs at 1410 MHz).
// - sm_90 (H100/H200): the H100 whitepaper states the SM's Tensor Cores deliver twice A100's
//   per-SM, per-clock dense rate for FP16/BF16, TF32, INT8 and FP64, and FP8 at twice FP16
//   (989.4 dense FP16 TFLOPS = 132 SMs x 4096 FLOP x 1830 MHz). It lists no INT4 or binary rate.
// - sm_100 (B200): 8192 FP16 FLOP per clock per SM (the SM_100 study in the seeds, worked tcgen05
//   example); the B200 datasheet's ratios give TF32 at half, FP8 and INT8 at twice that.
struct Row {
  int cc;
  std::string_view type;
  double rate;
  std::string_view source;
};
constexpr std::string_view kA100 = "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 256 FP16 FMA/clk per Tensor Core, 4 per SM; type ratios from its peak table";
constexpr std::string_view kH100 = "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): 2x A100 per SM per clock (FP16/BF16/TF32/INT8/FP64), FP8 2x FP16; 989.4 dense FP16 TFLOPS = 132 SMs x 4096 FLOP x 1830 MHz";
constexpr std::string_view kB200 = "SM_100 study (its tcgen05 worked example: 8192 FP16 FLOP/clk/SM); B200 datasheet ratios for TF32 (1/2) and FP8/INT8 (2x)";
constexpr Row kRows[] = {
    {80, "f16", 2048, kA100},  {80, "bf16", 2048, kA100}, {80, "tf32", 1024, kA100}, {80, "s8", 4096, kA100},
    {80, "u8", 4096, kA100},   {80, "s4", 8192, kA100},   {80, "u4", 8192, kA100},   {80, "b1", 32768, kA100},
    {80, "f64", 128, kA100},
    {90, "f16", 4096, kH100},  {90, "bf16", 4096, kH100}, {90, "tf32", 2048, kH100}, {90, "e4m3", 8192, kH100},
    {90, "e5m2", 8192, kH100}, {90, "s8", 8192, kH100},   {90, "u8", 8192, kH100},   {90, "f64", 256, kH100},
    {100, "f16", 8192, kB200}, {100, "bf16", 8192, kB200}, {100, "tf32", 4096, kB200}, {100, "e4m3", 16384, kB200},
    {100, "e5m2", 16384, kB200}, {100, "s8", 16384, kB200}, {100, "u8", 16384, kB200},
};

// FP32 lanes per SM (one FFMA = 2 FLOP each per clock), from each generation's whitepaper.
struct CoreRow {
  int cc;
  double lanes;
  std::string_view source;
};
constexpr CoreRow kCoreRows[] = {
    {80, 64, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 64 FP32 cores per SM"},
    {90, 128, "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): 128 FP32 cores per SM"},
    {120, 128, "NVIDIA RTX Blackwell GPU Architecture whitepaper (2025): 128 CUDA cores per SM"},
};

void require_finite_nonnegative(double x, const char* what) {
  if (!std::isfinite(x) || x < 0) throw std::invalid_argument(std::string(what) + " must be finite and >= 0");
}

}  // namespace

std::optional<TensorRate> tensor_rate(int cc, std::string_view type, bool sparse) {
  for (const Row& r : kRows)
    if (r.cc == cc && r.type == type) {
      // 2:4 sparsity skips the zero half of A: twice the dense rate (all three whitepapers).
      if (sparse && (type == "f64" || type == "b1")) return std::nullopt;  // no sparse form
      return TensorRate{sparse ? 2 * r.rate : r.rate, std::string(r.source) + (sparse ? "; 2:4 sparse at 2x dense" : "")};
    }
  return std::nullopt;
}

std::optional<TensorRate> core_fp32_rate(int cc) {
  for (const CoreRow& r : kCoreRows)
    if (r.cc == cc) return TensorRate{2 * r.lanes, std::string(r.source) + "; 2 FLOP per FFMA"};
  return std::nullopt;
}

double tensor_tflops(double flops_per_clk_per_sm, int sm_count, double clock_mhz) {
  require_finite_nonnegative(flops_per_clk_per_sm, "rate");
  require_finite_nonnegative(clock_mhz, "clock");
  if (sm_count < 1) throw std::invalid_argument("sm_count must be >= 1");
  return flops_per_clk_per_sm * sm_count * clock_mhz * 1e6 / 1e12;
}

TensorEfficiency tensor_efficiency(double measured, double peak, int sm_count, double clock_mhz) {
  require_finite_nonnegative(measured, "measured rate");
  if (!(peak > 0) || !std::isfinite(peak)) throw std::invalid_argument("peak rate must be positive");
  if (!(clock_mhz > 0) || !std::isfinite(clock_mhz)) throw std::invalid_argument("clock must be positive");
  TensorEfficiency e;
  e.peak_flops_per_clk_per_sm = peak;
  e.peak_tflops_at_clock = tensor_tflops(peak, sm_count, clock_mhz);
  e.measured_tflops = tensor_tflops(measured, sm_count, clock_mhz);
  e.percent_of_peak = measured / peak * 100;
  return e;
}

}  // namespace gd
