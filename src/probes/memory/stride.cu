// Global-load stride sweep: a warp's 32 four-byte loads spread s bytes apart (4..256), from L1 and
// from L2; the useful bandwidth falls as the loads touch more transfer units, and the unit that
// explains the fall (analysis/granularity) is the level's access granularity (a sector or a line).
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/granularity.hpp"
#include "analysis/sm_rate.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/ptx_memory.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "memory_tools.hpp"

namespace gd {
namespace probe_stride {

constexpr int kStrideThreads = 1024;
constexpr int kStrideUnroll = 8;
constexpr unsigned kL1RegionBytes = 64 << 10;  // L1 (plain loads): every SM rereads one 64 KiB region

// Request q of a warp reads lane x stride bytes past (q x 32 x stride) mod region; the warp's
// requests are warp_id + k x warps + t x warps x kStrideUnroll. L2 = .cg (no L1 allocation).
template <bool L2>
__global__ void __launch_bounds__(kStrideThreads) stride_read_kernel(const char* buf, unsigned region_mask, unsigned stride,
                                                                     int trips, unsigned* sink, RegionTiming* timing) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned warps = gridDim.x * (blockDim.x / 32);
  const unsigned warp = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const unsigned span = 32 * stride;
  unsigned q = warp;
  __syncthreads();
  BlockClock clock;
  clock.begin();
  unsigned acc = 0;
#pragma unroll 1
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int k = 0; k < kStrideUnroll; ++k) {
      const unsigned* p = reinterpret_cast<const unsigned*>(buf + (((q + k * warps) * span) & region_mask) + lane * stride);
      acc ^= L2 ? ptx::ldw_cg<4>(p) : ptx::ldw_plain<4>(p);
    }
    q += kStrideUnroll * warps;
  }
  __syncthreads();
  clock.end(timing);
  if (acc == 0x7fffffffu) sink[0] = acc;
}

void run_stride(ProbeContext& ctx) {
  const DeviceInfo& d = ctx.device();
  const std::string level = ctx.str_param("level");
  const std::int64_t stride = ctx.int_param("stride");
  if (stride < 4 || stride > 1024 || (stride & (stride - 1))) throw UserError("stride must be a power of two from 4 to 1024 bytes");
  if (level != "l1" && level != "l2") throw UserError("unknown level '" + level + "' (l1 or l2)");
  const bool l2 = level == "l2";
  // L2: a power-of-two region of at most a quarter of L2 (inside one partition's half).
  unsigned region = kL1RegionBytes;
  if (l2) {
    region = 1u << 20;
    while (2ull * region <= (unsigned long long)d.l2_bytes / 4) region *= 2;
  }
  DeviceBuffer<char> buf(std::size_t(region) + std::size_t(32 * stride));
  buf.fill_zero();
  DeviceBuffer<unsigned> sink(1);
  const auto kernel = l2 ? stride_read_kernel<true> : stride_read_kernel<false>;
  GD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, int(cudaSharedmemCarveoutMaxL1)));
  int per_sm = 0;
  GD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kStrideThreads, 0));
  if (per_sm < 1) ctx.skip("the stride kernel does not fit on an SM");
  const unsigned blocks = unsigned(d.sm_count * per_sm);
  // About 1 GB of useful bytes per launch from L2 and 4 GB from L1, fewer at wide strides.
  const double useful_per_trip_block = double(kStrideUnroll) * kStrideThreads * 4;
  const int trips = std::max(1, int((l2 ? 1e9 : 4e9) / double(std::max<std::int64_t>(1, stride / 16)) /
                                    (useful_per_trip_block * blocks)));
  DeviceBuffer<RegionTiming> timing(blocks);
  const memory::SmRateResult r = memory::measure_sm_rate(ctx, timing, useful_per_trip_block * trips, [&] {
    launch(ctx, kernel, {blocks, kStrideThreads}, buf.get(), region - 1, unsigned(stride), trips, sink.get(), timing.get());
    GD_CUDA_CHECK_LAUNCH();
  });
  ctx.metric("bandwidth/useful_bytes_per_clk_per_sm", r.bytes_per_clock);
  ctx.metric("bandwidth/useful_tbps", r.bytes_per_clock.median * d.sm_count * r.mhz * 1e6 / 1e12);
  ctx.extra()["region_bytes"] = region;
  ctx.extra()["blocks_per_sm"] = per_sm;
}

// Per level: the transfer unit whose model explains the curve best.
void summarize_stride(SummaryContext& sc) {
  for (const std::string level : {"l1", "l2"}) {
    const std::vector<const Record*> pts = sc.ok_records({{"level", level}});
    std::vector<StridePoint> curve;
    for (const Record* r : pts)
      if (const Metric* m = r->metric("bandwidth/useful_bytes_per_clk_per_sm"))
        curve.push_back({double(std::get<std::int64_t>(*find_param(r->params, "stride"))), m->value()});
    if (curve.size() < 3) continue;
    const std::vector<double> candidates{32, 64, 128};
    const Granularity g = access_granularity(curve, candidates);
    Record& d = sc.derive({{"level", level}, {"stride", std::string("granularity")}}, pts);
    sc.add_metric(d, "granularity/bytes", single_value(g.unit_bytes));
    sc.add_metric(d, "bandwidth/moved_bytes_per_clk_per_sm", single_value(g.transfer_rate));
    nlohmann::json fit = nlohmann::json::object();
    for (std::size_t i = 0; i < g.candidates.size(); ++i) fit[std::to_string(int(g.candidates[i]))] = g.rms_log_error[i];
    d.extra["rms_log_error_by_unit"] = fit;
  }
}

ProbeSpec stride_spec() {
  ProbeSpec s;
  s.id = "memory.bandwidth.stride";
  s.description = "useful load bandwidth vs lane stride (4..256 B) from L1 and L2; the access granularity that explains it";
  s.axes = {Axis::list("level", std::vector<std::string>{"l1", "l2"}),
            std::move(Axis::list("stride", {4, 8, 16, 32, 64, 128, 256})).quick({4, 16, 32, 64, 128})};
  s.sass = {expect_sass("*stride_read_kernel<false>*", SassRegion::Clocked, {{"LDG.E", kStrideUnroll, -1}},
                        {"LDG.E.STRONG", "LDG.E.CONSTANT", "LDG.E.64", "LDG.E.128", "LDL", "STL"}),
            expect_sass("*stride_read_kernel<true>*", SassRegion::Clocked, {{"LDG.E.STRONG.GPU", kStrideUnroll, -1}},
                        {"LDG.E.CONSTANT", "LDG.E.64", "LDG.E.128", "LDL", "STL"})};
  s.metrics = {{"bandwidth/useful_bytes_per_clk_per_sm", "B/clk/SM", "requested bytes (4 per lane per load) per SM clock"},
               {"bandwidth/useful_tbps", "TB/s", "the same over the chip at the observed clock"},
               {"granularity/bytes", "B", "derived: the transfer unit (32, 64, 128) whose model fits the curve best"},
               {"bandwidth/moved_bytes_per_clk_per_sm", "B/clk/SM", "derived: fitted bytes moved per clock in those units"}};
  s.views = {line_view("stride", "bandwidth/useful_bytes_per_clk_per_sm", "level")};
  s.run = run_stride;
  s.summarize = summarize_stride;
  s.time_cap_s = 6;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(stride_spec());

}  // namespace probe_stride
}  // namespace gd
