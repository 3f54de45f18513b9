// FP32 FFMA throughput per SM per clock and in TFLOPS, over ILP x warps: the arithmetic
// ceiling of the chip and how much independent work it takes to reach it.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "analysis/fit.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/ptx.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"

namespace gd {
namespace {

constexpr int kTripUnroll = 64;  // FFMA groups per loop trip: loop overhead well under 1 % of issue slots

// FP32 lanes per SM: the CUDA C++ Programming Guide's arithmetic-throughput table (results
// per clock per SM for 32-bit FMA). The reference the measured rate is compared with.
int fp32_lanes_per_sm(int cc) {
  switch (cc) {
    case 80: return 64;
    case 86: case 87: case 89: case 90: case 100: case 101: case 103: case 110: case 120: case 121: return 128;
    default: return 0;  // unknown: percent of peak is not reported
  }
}

template <int ILP>
__global__ void ffma_throughput_kernel(float* out, RegionTiming* timing, float a, float b, int trips) {
  float x[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) x[k] = a * float(threadIdx.x + k);
  __syncthreads();
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < trips; ++i) {
#pragma unroll
    for (int j = 0; j < kTripUnroll; ++j) {
#pragma unroll
      for (int k = 0; k < ILP; ++k) x[k] = ptx::ffma(x[k], a, b);
    }
  }
  const RegionTiming t = clock.end();
  float sum = 0;
#pragma unroll
  for (int k = 0; k < ILP; ++k) sum += x[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
  if (threadIdx.x == 0) timing[blockIdx.x] = t;
}

constexpr int kIlps[] = {1, 2, 4, 8};  // the ilp axis; each value is one instantiation

using Kernel = void (*)(float*, RegionTiming*, float, float, int);
Kernel kernel_for(int ilp) {
  switch (ilp) {
    case kIlps[0]: return ffma_throughput_kernel<kIlps[0]>;
    case kIlps[1]: return ffma_throughput_kernel<kIlps[1]>;
    case kIlps[2]: return ffma_throughput_kernel<kIlps[2]>;
    case kIlps[3]: return ffma_throughput_kernel<kIlps[3]>;
    default: return nullptr;
  }
}

// FFMAs per SM per clock: per SM, all FFMAs its blocks executed over the span from the first
// block's start to the last block's end; the median over SMs.
double fma_per_clk_per_sm(const std::vector<RegionTiming>& t, double fma_per_block) {
  std::map<unsigned, std::pair<long long, long long>> span;  // smid -> (first start, last end)
  std::map<unsigned, int> blocks;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const long long begin = t[i].start_cycle, end = t[i].start_cycle + t[i].cycles;
    auto [it, fresh] = span.try_emplace(t[i].smid, begin, end);
    if (!fresh) {
      it->second.first = std::min(it->second.first, begin);
      it->second.second = std::max(it->second.second, end);
    }
    ++blocks[t[i].smid];
  }
  std::vector<double> rates;
  for (const auto& [sm, s] : span) rates.push_back(fma_per_block * blocks[sm] / double(s.second - s.first));
  return summarize(rates).median;
}

void run_fp32_peak(ProbeContext& ctx) {
  const int ilp = int(ctx.int_param("ilp"));
  const int warps = int(ctx.int_param("warps_per_sm"));
  const DeviceInfo& d = ctx.device();
  const Kernel kernel = kernel_for(ilp);
  if (!kernel) throw Error("ilp must be 1, 2, 4 or 8");
  if (warps > d.max_warps_per_sm) ctx.skip("more warps per SM than the device holds");
  // One block per SM (warps_per_sm threads); should the scheduler double up blocks on an SM,
  // the per-SM span accounting still counts that SM's work over its real elapsed cycles.
  const int threads = warps * 32;
  if (threads > d.max_threads_per_block) ctx.skip("block larger than the device allows");
  const int blocks = d.sm_count;
  std::mt19937 rng(std::random_device{}());
  const float a = std::uniform_real_distribution<float>(0.5f, 0.99f)(rng);
  const float b = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
  // About 4 ms per launch at a full-rate clock: long against launch and ramp effects.
  const double fma_per_sm_target = 128.0 * d.max_sm_clock_mhz * 1e6 * 4e-3;
  const int trips = std::max(1, int(fma_per_sm_target / (double(threads) * ilp * kTripUnroll)));
  const double fma_per_block = double(threads) * ilp * kTripUnroll * trips;

  DeviceBuffer<float> out(std::size_t(blocks) * threads);
  DeviceBuffer<RegionTiming> timing(blocks);
  std::vector<RegionTiming> all;
  const auto sample = [&] {
    launch(ctx, kernel, {unsigned(blocks), unsigned(threads)}, out.get(), timing.get(), a, b, trips);
    GD_CUDA_CHECK_LAUNCH();
    const auto t = timing.to_host();
    all.insert(all.end(), t.begin(), t.end());
    return fma_per_clk_per_sm(t, fma_per_block);
  };
  RepeatPolicy policy;
  policy.warmup = 2;
  policy.target_rel_ci = 0.002;
  const Summary rate = ctx.measure(sample, policy).summary;

  // Output check: one thread's chains against the host (exact: fma is correctly rounded).
  const auto h = out.to_host();
  float want = 0;
  for (int k = 0; k < ilp; ++k) {
    float x = a * float(k);
    for (long long i = 0; i < (long long)trips * kTripUnroll; ++i) x = ptx::ffma(x, a, b);
    want += x;
  }
  if (h[0] != want) throw Error("FFMA chain result differs from the host reference");

  const double mhz = clock_mhz(all);
  ctx.set_observed_sm_clock_mhz(mhz);
  ctx.metric("throughput/fma_per_clk_per_sm", rate);
  ctx.metric("throughput/tflops", 2.0 * rate.median * d.sm_count * mhz * 1e6 / 1e12);
  if (const int lanes = fp32_lanes_per_sm(d.cc())) ctx.metric("throughput/percent_of_peak", rate.median / lanes * 100);
  ctx.extra()["trips"] = trips;
}

void summarize_fp32(SummaryContext& sc) {
  sc.derive_best({{"ilp", std::string("best")}, {"warps_per_sm", std::string("best")}}, sc.ok_records(),
                 "throughput/fma_per_clk_per_sm");
}

ProbeSpec fp32_peak_spec() {
  ProbeSpec s;
  s.id = "compute.peak.fp32";
  s.description = "FP32 FFMA throughput per SM per clock and TFLOPS over ILP x warps per SM";
  s.axes = {std::move(Axis::list("ilp", {kIlps[0], kIlps[1], kIlps[2], kIlps[3]})).quick({4, 8}),
            std::move(Axis::list("warps_per_sm", {4, 8, 16, 32})).quick({16, 32})};
  for (int ilp : kIlps)
    s.sass.push_back(expect_sass("*ffma_throughput_kernel<" + std::to_string(ilp) + ">*", SassRegion::Clocked,
                                 {{"FFMA", ilp * kTripUnroll, -1}}));
  s.metrics = {{"throughput/fma_per_clk_per_sm", "FMA/clk/SM", "FFMA results per clock per SM"},
               {"throughput/tflops", "TFLOPS", "2 x FMA rate x SMs x observed clock"},
               {"throughput/percent_of_peak", "%", "of the FP32 lanes per SM (CUDA guide)"}};
  s.views = {grid_view(ReportView::Kind::Heatmap, "ilp", "warps_per_sm", "throughput/fma_per_clk_per_sm")};
  s.covers = {{"throughput.sm_ipc.ffma", "throughput/fma_per_clk_per_sm", {{"ilp", "best"}, {"warps_per_sm", "best"}}}};
  s.run = run_fp32_peak;
  s.summarize = summarize_fp32;
  s.time_cap_s = 12;
  s.quick_time_cap_s = 3;
  return s;
}

GD_REGISTER_PROBE(fp32_peak_spec());

}  // namespace
}  // namespace gd
