// Load bandwidth of each on-chip level (shared memory, L1 hits, L2 via .cg) in bytes per clock
// per SM and TB/s, by access width, and L2 across working sets: what a kernel can feed from each level.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/change_point.hpp"
#include "analysis/ncu_counters.hpp"
#include "analysis/sm_rate.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/ptx_memory.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "memory_common.hpp"
#include "memory_tools.hpp"

namespace gd {
namespace probe_cache_bandwidth {

enum class Path { Shared, L1, L2 };
constexpr int kLevelThreads = 1024;
constexpr int kLevelUnroll = 8;              // independent loads in flight per thread per trip
constexpr int kOnChipBytes = 32 << 10;       // per-block shared array, and the L1-resident buffer
constexpr double kBytesPerBlockOnChip = 16e6;  // per block per launch for shared and L1
constexpr double kBytesPerLaunchL2 = 4e9;      // whole grid per launch for L2

// Shared and L1: warp w reads kLevelUnroll runs of 32 consecutive elements from element
// (w x kLevelUnroll x 32) mod n (immediate offsets from one base), the same on-chip-sized data
// every trip; `delta` (0 at run time) advances the base each trip so ptxas cannot hoist the
// loads out of the loop or merge them. L2 walks its whole working set: each thread's
// kLevelUnroll offsets advance by `step` mod n each trip, with .cg loads that do not allocate
// in L1, so every load is served by L2 (or, past its capacity, by DRAM).
template <Path P, int W>
__global__ void __launch_bounds__(kLevelThreads) level_read_kernel(const ptx::Vec<W>* buf, unsigned n, unsigned step,
                                                                   long long delta, int trips, unsigned* sink,
                                                                   RegionTiming* timing) {
  extern __shared__ uint4 level_smem[];
  auto* smem = reinterpret_cast<ptx::Vec<W>*>(level_smem);
  if constexpr (P == Path::Shared) {
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) smem[i] = buf[i];
  }
  const unsigned first_on_chip = (threadIdx.x / 32 * kLevelUnroll * 32) % n + threadIdx.x % 32;
  unsigned saddr = ptx::shared_addr(smem + first_on_chip);
  const ptx::Vec<W>* q = buf + first_on_chip;
  unsigned j[kLevelUnroll];
  if constexpr (P == Path::L2) {
    const unsigned threads = gridDim.x * blockDim.x;
#pragma unroll
    for (int k = 0; k < kLevelUnroll; ++k)
      j[k] = unsigned((blockIdx.x * blockDim.x + threadIdx.x + (unsigned long long)k * threads) % n);
  }
  __syncthreads();
  RegionClock clock;
  if (threadIdx.x == 0) clock.begin();
  unsigned acc = 0;
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int k = 0; k < kLevelUnroll; ++k) {
      if constexpr (P == Path::Shared) acc ^= ptx::fold<W>(ptx::ldsw<W>(saddr + k * 32 * W));
      else if constexpr (P == Path::L1) acc ^= ptx::fold<W>(ptx::ldw_plain<W>(q + k * 32));
      else acc ^= ptx::fold<W>(ptx::ldw_cg<W>(buf + j[k]));
    }
    if constexpr (P == Path::L2) {
#pragma unroll
      for (int k = 0; k < kLevelUnroll; ++k) {
        j[k] += step;
        if (j[k] >= n) j[k] -= n;
      }
    } else {
      saddr += unsigned(delta);
      q += delta;
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) timing[blockIdx.x] = clock.end();
  if (acc == 0x7fffffffu) sink[0] = acc;  // keeps the loads; practically never taken
}

__global__ void level_seed_kernel(unsigned* a, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    a[i] = unsigned(i) * 2654435761u + seed;
}

Path path_of(const std::string& level) {
  if (level == "shared") return Path::Shared;
  if (level == "l1") return Path::L1;
  if (level == "l2") return Path::L2;
  throw Error("unknown level '" + level + "' (expected shared, l1 or l2)");
}

std::vector<MetricSpec> level_metrics() {
  return {{"bandwidth/bytes_per_clk_per_sm", "B/clk/SM", "bytes loaded per SM clock per SM (median over SMs)"},
          {"bandwidth/tbps", "TB/s", "bytes per clock per SM x SM count x observed clock"},
          {"bandwidth/percent_of_128B_per_clk", "%", "of 128 bytes per clock per SM (one 128-byte wavefront per clock)"}};
}

// Runs one level at one width over a working set of `ws_bytes` (L2) and reports per-SM rates.
void measure_level(ProbeContext& ctx, Path path, int width, long long ws_bytes) {
  const DeviceInfo& d = ctx.device();
  const bool on_chip = path != Path::L2;
  const long long bytes = on_chip ? kOnChipBytes : ws_bytes / 16 * 16;
  const unsigned n = unsigned(bytes / width);
  if (n < unsigned(kLevelUnroll * 32)) ctx.skip("working set below one warp's runs");
  if (on_chip && n % (kLevelUnroll * 32) != 0) throw Error("on-chip working set must be a multiple of a warp's runs");
  DeviceBuffer<unsigned> buf(std::size_t(bytes / 4));
  launch(ctx, level_seed_kernel, {unsigned(d.sm_count * 4), 256}, buf.get(), bytes / 4, 0x9e3779b9u);
  GD_CUDA_CHECK_LAUNCH();
  DeviceBuffer<unsigned> sink(1);

  memory::with_value<4, 8, 16>(width, "width", [&](auto wc) {
    constexpr int W = decltype(wc)::value;
    const auto run_with = [&](auto kernel) {
      const std::size_t smem = path == Path::Shared ? std::size_t(kOnChipBytes) : 0;
      GD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
      GD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                         path == Path::L1 ? int(cudaSharedmemCarveoutMaxL1) : int(cudaSharedmemCarveoutMaxShared)));
      int per_sm = 0;
      GD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kLevelThreads, smem));
      if (per_sm < 1) ctx.skip("the level kernel does not fit on an SM");
      // A --functional run: one SM's worth of blocks, two trips (one for L2).
      const int blocks = ctx.sized(d.sm_count * per_sm, per_sm);
      const double per_trip_block = double(kLevelUnroll) * kLevelThreads * W;
      const int trips = on_chip ? ctx.sized(int(kBytesPerBlockOnChip / per_trip_block), 2)
                                : ctx.sized(std::max(1, int(kBytesPerLaunchL2 / (per_trip_block * blocks))), 1);
      const unsigned step = on_chip ? 0u : unsigned((unsigned long long)kLevelUnroll * blocks * kLevelThreads % n);
      DeviceBuffer<RegionTiming> timing{std::size_t(blocks)};
      const double bytes_per_block = per_trip_block * trips;
      const memory::SmRateResult r = memory::measure_sm_rate(ctx, timing, bytes_per_block, [&] {
        launch(ctx, kernel, {unsigned(blocks), kLevelThreads, smem}, reinterpret_cast<const ptx::Vec<W>*>(buf.get()), n,
               step, 0LL, trips, sink.get(), timing.get());
        GD_CUDA_CHECK_LAUNCH();
      });
      ctx.metric("bandwidth/bytes_per_clk_per_sm", r.bytes_per_clock);
      ctx.metric("bandwidth/tbps", r.bytes_per_clock.median * d.sm_count * r.mhz * 1e6 / 1e12);
      ctx.metric("bandwidth/percent_of_128B_per_clk", r.bytes_per_clock.median / 128 * 100);
      ctx.extra()["blocks_per_sm"] = per_sm;
      ctx.extra()["working_set_bytes"] = on_chip ? double(bytes) : double(n) * W;
      ctx.extra()["bytes_per_block"] = bytes_per_block;
    };
    if (path == Path::Shared) run_with(level_read_kernel<Path::Shared, W>);
    else if (path == Path::L1) run_with(level_read_kernel<Path::L1, W>);
    else run_with(level_read_kernel<Path::L2, W>);
  });
}

// The on-chip levels' working sets, and L2's default of a quarter of L2 (well inside one
// partition's half), where the level probe compares widths.
constexpr int kDefaultL2Percent = 25;

void run_level(ProbeContext& ctx) {
  measure_level(ctx, path_of(ctx.str_param("level")), int(ctx.int_param("width")),
                ctx.device().l2_bytes * kDefaultL2Percent / 100);
}

std::vector<SassExpectation> level_sass() {
  using memory::forbid_wider;
  using memory::width_suffix;
  std::vector<SassExpectation> out;
  for (int w : {4, 8, 16}) {
    const std::string tail = ", " + std::to_string(w) + ">*";
    out.push_back(expect_sass("*level_read_kernel<*)0" + tail, SassRegion::Clocked,
                              {{"LDS" + width_suffix(w), kLevelUnroll, -1}}, forbid_wider("LDS", w, {"LDG"})));
    // L1: the plain weak load (neither .STRONG, which skips L1 for .cg, nor the .CONSTANT path).
    out.push_back(expect_sass("*level_read_kernel<*)1" + tail, SassRegion::Clocked,
                              {{"LDG.E" + width_suffix(w), kLevelUnroll, -1}},
                              forbid_wider("LDG.E", w, {"LDG.E.STRONG", "LDG.E.CONSTANT", "LDS"})));
    out.push_back(expect_sass("*level_read_kernel<*)2" + tail, SassRegion::Clocked,
                              {{"LDG.E" + width_suffix(w) + ".STRONG.GPU", kLevelUnroll, -1}},
                              forbid_wider("LDG.E", w, {"LDG.E.CONSTANT", "LDS"})));
  }
  out.push_back(expect_sass("*level_seed_kernel*", SassRegion::Whole, {{"STG.E", 1, -1}}));
  return out;
}

// The counters that show which level served the .cg loads (run --ncu): L1 lookups of global loads
// and their hits, L2 read sectors from L1/TEX and their hits, DRAM bytes read.
const std::vector<std::string> kServedByCounters = {
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "dram__bytes_read.sum"};

// Per L2 point: with --ncu counters, the share of L1 and L2 hits and the L2 and DRAM bytes per
// byte loaded, as proof that the .cg loads were served by L2; without them, a note saying so.
void summarize_level(SummaryContext& sc) {
  for (const Record* r : sc.ok_records({{"level", std::string("l2")}})) {
    Params p = r->params;
    p.push_back({"check", std::string("served_by")});
    Record& d = sc.derive(p, {r});
    d.metrics = r->metrics;
    const auto c = [&](const std::string& m) { return ncu_counter(r->extra, "level_read_kernel", m); };
    const auto l1 = c(kServedByCounters[0]), l1_hit = c(kServedByCounters[1]), l2 = c(kServedByCounters[2]),
               l2_hit = c(kServedByCounters[3]), dram = c(kServedByCounters[4]);
    const double loaded = r->extra.value("bytes_per_block", 0.0) * r->extra.value("blocks_per_sm", 0) * sc.device().sm_count;
    if (!l1 || !l1_hit || !l2 || !l2_hit || !dram || *l1 <= 0 || *l2 <= 0 || loaded <= 0) {
      d.extra["ncu"] = ncu_absent_note();
      continue;
    }
    sc.add_metric(d, "ncu/l1_hit_percent", single_value(100 * *l1_hit / *l1));
    sc.add_metric(d, "ncu/l2_hit_percent", single_value(100 * *l2_hit / *l2));
    sc.add_metric(d, "ncu/l2_bytes_per_loaded_byte", single_value(*l2 * 32 / loaded));
    sc.add_metric(d, "ncu/dram_bytes_per_loaded_byte", single_value(*dram / loaded));
    d.extra["served_by"] = *l1_hit / *l1 < 0.05 && *l2_hit / *l2 > 0.9 ? "L2 (L1 misses, L2 hits)" : "not L2 alone: see the counters";
  }
}

ProbeSpec level_spec() {
  ProbeSpec s;
  s.id = "memory.bandwidth.level";
  s.description = "load bandwidth per level (shared, L1 hits, L2 via .cg at a quarter of L2) by access width, B/clk/SM and TB/s";
  s.axes = {Axis::list("level", std::vector<std::string>{"shared", "l1", "l2"}),
            std::move(Axis::list("width", {4, 8, 16})).quick({16})};
  s.sass = level_sass();
  s.metrics = level_metrics();
  s.metrics.push_back({"ncu/l1_hit_percent", "%", "--ncu, L2 points: L1 hits of the global-load sectors looked up"});
  s.metrics.push_back({"ncu/l2_hit_percent", "%", "--ncu, L2 points: L2 hits of the read sectors coming from L1"});
  s.metrics.push_back({"ncu/l2_bytes_per_loaded_byte", "B/B", "--ncu, L2 points: L2 read sectors x 32 over bytes loaded"});
  s.metrics.push_back({"ncu/dram_bytes_per_loaded_byte", "B/B", "--ncu, L2 points: DRAM bytes read over bytes loaded"});
  s.ncu_metrics = kServedByCounters;
  // 128-bit LDS, the widest load: every width reaches the same ~128 B/clk/SM on an H200.
  s.covers = {{"smem.bandwidth.local_peak", "bandwidth/bytes_per_clk_per_sm",
               {{"level", std::string("shared")}, {"width", std::int64_t(16)}}}};
  s.run = run_level;
  s.summarize = summarize_level;
  s.time_cap_s = 10;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(level_spec());

// L2 read bandwidth (.cg, 16-byte) as the working set grows through L2 and past it.
void run_l2_sweep(ProbeContext& ctx) {
  const std::int64_t percent = ctx.int_param("l2_percent");
  if (percent <= 0) throw Error("l2_percent must be positive");
  measure_level(ctx, Path::L2, 16, ctx.device().l2_bytes * percent / 100);
  ctx.extra()["l2_percent"] = percent;
}

// The whole L2's capacity as every SM sees it: where the all-SM read bandwidth drops, by the
// change-point test on the time per byte (analysis/change_point), the footprint in bytes. The
// latency chase of one SM sees only its own segment (memory.hierarchy.l2_capacity).
void derive_l2_capacity(SummaryContext& sc, const std::vector<const Record*>& points) {
  std::vector<std::pair<double, double>> curve;  // footprint bytes, TB/s
  for (const Record* r : points) {
    const Metric* m = r->metric("bandwidth/tbps");
    const ParamValue* percent = find_param(r->params, "l2_percent");
    if (m && percent && std::holds_alternative<std::int64_t>(*percent) && m->value() > 0)
      curve.push_back({double(sc.device().l2_bytes) * double(std::get<std::int64_t>(*percent)) / 100, m->value()});
  }
  std::sort(curve.begin(), curve.end());
  std::vector<double> x, tbps;
  for (const auto& [bytes, bw] : curve) x.push_back(bytes), tbps.push_back(bw);
  const ChangePoints drops = find_bandwidth_drops(x, tbps);
  Record& r = sc.derive({{"level", std::string("L2")}, {"quantity", std::string("capacity")}}, points);
  r.extra["method"] = "all-SM .cg read bandwidth over footprint; the first drop of the time per byte by binary "
                      "segmentation and a permutation test (analysis/change_point)";
  if (!drops.found()) {
    r.extra["capacity_answer"] = "undetermined: " + drops.note;
    return;
  }
  const ChangePoint& d = drops.steps.front();
  const auto mib = [](double b) { return std::to_string(int(std::lround(b / 1048576))) + " MiB"; };
  r.extra["capacity_answer"] = mib(d.last_before) + " to " + mib(x[d.index]) + " (confidence " +
                               std::to_string(int(std::lround(d.confidence * 1000))) + "/1000)";
  sc.add_metric(r, "capacity/bytes", single_value(d.last_before));
  sc.add_metric(r, "capacity/upper_bytes", single_value(x[d.index]));
  sc.add_metric(r, "capacity/confidence", single_value(d.confidence));
  sc.add_metric(r, "bandwidth/below_tbps", single_value(d.before));
  sc.add_metric(r, "bandwidth/above_tbps", single_value(d.after));
}

// The best point, the largest working set that still reads at 90 % of it, and the capacity.
void summarize_l2_sweep(SummaryContext& sc) {
  const std::vector<const Record*> points = sc.ok_records();
  Record* best = sc.derive_best({{"l2_percent", std::string("best")}}, points, "bandwidth/tbps");
  if (best == nullptr) return;
  const double top = best->metric("bandwidth/tbps")->value();
  double last_fast = 0;
  for (const Record* r : points)
    if (const Metric* m = r->metric("bandwidth/tbps"); m && m->value() >= 0.9 * top)
      last_fast = std::max(last_fast, double(std::get<std::int64_t>(*find_param(r->params, "l2_percent"))));
  best->extra["largest_l2_percent_within_90pct_of_best"] = last_fast;
  derive_l2_capacity(sc, points);
}

ProbeSpec l2_sweep_spec() {
  ProbeSpec s;
  s.id = "memory.bandwidth.l2_sweep";
  s.description = "L2 read bandwidth (.cg, 16-byte) vs working set as a percentage of L2, through and past its capacity";
  // 5 % steps around the driver's size, where the drop is: the capacity is known to a step.
  s.axes = {std::move(Axis::list("l2_percent", {3, 6, 12, 25, 40, 50, 60, 75, 80, 85, 90, 95, 100, 105, 110, 120, 150, 300}))
                .quick({12, 50, 90, 300})};
  s.sass = level_sass();
  s.metrics = level_metrics();
  s.metrics.insert(s.metrics.end(),
                   {{"capacity/bytes", "bytes", "analysis: the largest footprint before the all-SM bandwidth drops"},
                    {"capacity/upper_bytes", "bytes", "analysis: the first footprint past the drop (the capacity is below it)"},
                    {"capacity/confidence", "", "analysis: 1 - the permutation test's p-value"},
                    {"bandwidth/below_tbps", "TB/s", "analysis: the median bandwidth before the drop"},
                    {"bandwidth/above_tbps", "TB/s", "analysis: the median bandwidth after it"}});
  // hierarchy.l2.size is memory.hierarchy.l2_all_sms's (a latency step with every SM chasing its own
  // lines); this bandwidth drop is the second method beside it.
  s.run = run_l2_sweep;
  s.summarize = summarize_l2_sweep;
  s.time_cap_s = 10;
  s.quick_time_cap_s = 3;
  return s;
}

GD_REGISTER_PROBE(l2_sweep_spec());

}  // namespace probe_cache_bandwidth
}  // namespace gd
