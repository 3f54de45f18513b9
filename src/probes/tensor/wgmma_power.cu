// wgmma at the peak configuration, sustained, with random, repeated-tile and all-zero operands:
// throughput, board power and SM clock recorded together (data-dependent power moves the clock).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/median.hpp"
#include "core/nvml.hpp"
#include "core/registry.hpp"
#include "wgmma_common.cuh"

namespace gd {
namespace probe_wgmma_power {

using namespace wgmma_probe;

constexpr int kN = 256;
constexpr int kWarpgroups = 2;

Fill fill_named(const std::string& inputs) {
  if (inputs == "random") return Fill::Mirrored;
  if (inputs == "repeat") return Fill::Repeat;
  if (inputs == "zero") return Fill::Zero;
  throw UserError("inputs must be random, repeat or zero; got '" + inputs + "'");
}


// Each sample is one long launch (about 0.8 s at the peak clock); NVML's board power (a one-second
// average on Hopper) and SM clock are read every 40 ms over its last third, after the previous
// sample's launch has loaded the averaging window too.
void run_power(ProbeContext& ctx) {
  const OpRow& row = op_named(ctx.str_param("op"));
  const Fill fill = fill_named(ctx.str_param("inputs"));
  const DeviceInfo& dev = ctx.device();
  if (row.name != std::string("f16_f32") && row.name != std::string("e4m3_f32"))
    throw UserError("tensor.wgmma.power has op f16_f32 or e4m3_f32");
  Launcher l(ctx, row, kN, row.throughput(kN, false), Swizzle::B128, unsigned(dev.sm_count), kWarpgroups, true);
  const std::uint64_t seed = std::random_device{}();
  l.check(ctx, make_operands(row, kN, Swizzle::B128, Fill::Random, seed), kSteps);
  l.load(make_operands(row, kN, Swizzle::B128, fill, seed + 1));
  const auto calib = l.run(ctx, 16);
  std::vector<double> cyc;
  for (const auto& t : calib) cyc.push_back(double(t.cycles));
  const double per_iter = std::max(1.0, summarize(cyc).median / 16);
  const double seconds = ctx.quick() ? 0.3 : 0.8;
  const int iters = std::clamp(int(dev.max_sm_clock_mhz * 1e6 * seconds / per_iter), 16, 1 << 26);
  const double work = double(kWarpgroups) * iters * kSteps * 2.0 * 64 * kN * row.k;
  std::vector<double> power, nvml_clock;
  std::vector<RegionTiming> all;
  std::string why = "not read";
  RepeatPolicy policy;
  policy.warmup = 0;  // the check and calibration launches warmed it
  policy.min_samples = policy.max_samples = ctx.quick() ? 1 : 2;  // quick: the second window only confirms
  policy.time_cap_s = 3;
  Rate r;
  r.iters = iters;
  r.per_clk = ctx.measure(
                     [&] {
                       l.enqueue(ctx, iters);
                       std::this_thread::sleep_for(std::chrono::milliseconds(int(seconds * 1000 * 0.6)));
                       for (int i = 0; i < 5; ++i) {
                         if (const auto n = read_nvml(dev.pci_bus_id, why)) {
                           power.push_back(n->power_w);
                           nvml_clock.push_back(n->sm_clock_mhz);
                         }
                         std::this_thread::sleep_for(std::chrono::milliseconds(int(seconds * 1000 * 0.05)));
                       }
                       GD_CUDA_CHECK_LAUNCH();
                       const auto t = l.timing.to_host();
                       all.insert(all.end(), t.begin(), t.end());
                       return per_sm_rate(t, work);
                     },
                     policy)
                  .summary;
  r.clock_mhz = clock_mhz(all);
  emit_rate(ctx, row, r);
  if (power.empty()) {
    ctx.extra()["power"] = "NVML unavailable: " + why;
    return;
  }
  const double watts = power.empty() ? 0 : median_of(power);
  ctx.metric("power/board_w", summarize(power));
  ctx.metric("clock/nvml_sm_mhz", summarize(nvml_clock));
  if (watts > 0)
    ctx.metric("power/tflops_per_w", tensor_tflops(r.per_clk.median, dev.sm_count, r.clock_mhz) / watts);
}

ProbeSpec power_spec() {
  ProbeSpec s;
  s.id = "tensor.wgmma.power";
  s.description = "wgmma m64n256 SS, 2 warpgroups per SM, sustained: random, repeated-tile and zero operands with board power and SM clock";
  s.needs = wgmma_requirements();
  // A quick run keeps FP16 (each point is 0.4 s of sustained load and none feeds a headline).
  s.axes = {std::move(Axis::list("op", std::vector<std::string>{"f16_f32", "e4m3_f32"})).quick_list({std::string("f16_f32")}),
            std::move(Axis::list("inputs", std::vector<std::string>{"random", "repeat", "zero"}))
                .quick_list({std::string("random"), std::string("zero")})};
  for (const char* op : {"f16_f32", "e4m3_f32"}) s.sass.push_back(op_sass(op_named(op), kSteps, 2));
  s.metrics = rate_metrics();
  s.metrics.push_back({"power/board_w", "W", "NVML board power while the kernel runs"});
  s.metrics.push_back({"clock/nvml_sm_mhz", "MHz", "NVML's SM clock while the kernel runs"});
  s.metrics.push_back({"power/tflops_per_w", "TFLOPS/W", "throughput over board power"});
  s.views = {grid_view(ReportView::Kind::Heatmap, "inputs", "op", "power/board_w")};
  s.run = run_power;
  s.time_cap_s = 16;
  s.quick_time_cap_s = 6;
  return s;
}

GD_REGISTER_PROBE(power_spec());

}  // namespace probe_wgmma_power
}  // namespace gd
