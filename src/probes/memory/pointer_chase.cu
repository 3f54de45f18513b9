// Load-to-use latency of each level of the memory hierarchy, from a pointer chase over random
// cyclic permutations of growing working sets; the plateaus are L1, L2 (and its partitions)
// and DRAM, and where each ends is that level's effective capacity.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "analysis/cache_levels.hpp"
#include "analysis/chain.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/ptx.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "memory_tools.hpp"

namespace gd {
namespace probe_pointer_chase {

constexpr int kLineBytes = 128;       // one pointer per cache line: every step is a new line
constexpr int kChaseUnroll = 16;
constexpr int kWarmThreads = 1024;
constexpr double kColdFactor = 2.0;   // working sets past this many L2s are measured with L2 scrubbed
// The L1 size a chase finds is the L1 share of the SM's unified L1/shared-memory SRAM, which the
// driver splits per kernel from a preferred carveout (the share for shared memory, in percent of
// the most it can have). The chase uses no shared memory, so it asks for the least shared memory
// and so the most L1 (carveout 0): the L1 plateau is then the largest L1 the chip offers, not
// whatever split the driver defaulted to. The bypassing (cg) variant asks for the same, so the
// two variants differ only in their load.
constexpr int kCarveoutPercentShared = cudaSharedmemCarveoutMaxL1;

enum class CacheOp { Ca, Cg };

template <CacheOp Op>
__device__ __forceinline__ const void* const* step(const void* const* p) {
  if constexpr (Op == CacheOp::Ca) return static_cast<const void* const*>(ptx::ld_ptr(p));
  else return static_cast<const void* const*>(ptx::ld_cg_ptr(p));
}

// One block: all threads first touch every line of `warm` with the same cache policy (the
// chase buffer itself, or a scrub buffer that evicts it from L2), then thread 0 chases.
template <CacheOp Op>
__global__ void __launch_bounds__(kWarmThreads) chase_kernel(const void* const* start, const char* warm,
                                                             long long warm_lines, int trips,
                                                             RegionTiming* timing, const void** sink) {
  std::uintptr_t touched = 0;
  for (long long i = threadIdx.x; i < warm_lines; i += blockDim.x)
    touched ^= reinterpret_cast<std::uintptr_t>(step<Op>(reinterpret_cast<const void* const*>(warm + i * kLineBytes)));
  __syncthreads();
  if (threadIdx.x != 0) {
    if (touched == 1) sink[1] = reinterpret_cast<const void*>(touched);  // keeps the warm loads alive
    return;
  }
  const void* const* p = start;
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < trips; ++i) {
#pragma unroll
    for (int j = 0; j < kChaseUnroll; ++j) p = step<Op>(p);
  }
  const RegionTiming t = clock.end();
  sink[0] = p;
  timing[0] = t;
}

// Writes line i's pointer to line next[i]: the chase follows a single cycle through all lines.
__global__ void link_lines_kernel(char* base, const std::uint32_t* next, long long lines) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < lines; i += (long long)gridDim.x * blockDim.x)
    *reinterpret_cast<const void**>(base + i * kLineBytes) = base + std::uint64_t(next[i]) * kLineBytes;
}

// Sets the chase kernel's carveout and records what was asked, what the driver reports back for
// the kernel, and the SM's shared-memory total: the driver does not say which split it used, so
// these are what a reader has to tell which L1 size the plateau measured.
template <CacheOp Op>
void set_and_record_carveout(ProbeContext& ctx) {
  GD_CUDA_CHECK(cudaFuncSetAttribute(chase_kernel<Op>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     kCarveoutPercentShared));
  cudaFuncAttributes attr{};
  GD_CUDA_CHECK(cudaFuncGetAttributes(&attr, chase_kernel<Op>));
  ctx.extra()["shared_carveout"] = {
      {"requested_percent", kCarveoutPercentShared},
      {"reported_preferred_percent", attr.preferredShmemCarveout},
      {"reported_max_dynamic_shared_bytes", attr.maxDynamicSharedSizeBytes},
      {"kernel_static_shared_bytes", attr.sharedSizeBytes},
      {"device_shared_per_sm_bytes", ctx.device().shared_per_sm}};
}

template <CacheOp Op>
void run_chase_for(ProbeContext& ctx, std::int64_t bytes) {
  const std::int64_t lines = bytes / kLineBytes;
  if (lines < 2) ctx.skip("working set smaller than two lines");
  if (bytes > ctx.device().global_mem_bytes / 4) ctx.skip("working set exceeds a quarter of device memory");

  std::random_device seed_source;
  const std::uint64_t seed = (std::uint64_t(seed_source()) << 32) | seed_source();
  std::mt19937_64 rng(seed);
  ctx.extra()["seed"] = seed;

  DeviceBuffer<char> chase(std::size_t(lines) * kLineBytes);
  {
    DeviceBuffer<std::uint32_t> next{std::size_t(lines)};
    next.from_host(memory::random_cycle(std::size_t(lines), rng));
    launch(ctx, link_lines_kernel, {unsigned(ctx.device().sm_count * 4), 256}, chase.get(), next.get(), lines);
    GD_CUDA_CHECK_LAUNCH();
  }
  // Past a couple of L2s the steady state is mostly misses anyway; scrubbing makes every
  // timed load an L2 miss, so the plateau is DRAM latency rather than a hit/miss blend.
  const bool cold = double(bytes) > kColdFactor * double(ctx.device().l2_bytes);
  DeviceBuffer<char> scrub(cold ? std::size_t(kColdFactor * double(ctx.device().l2_bytes)) : 0);
  const char* warm = cold ? scrub.get() : chase.get();
  const long long warm_lines = cold ? (long long)(scrub.bytes() / kLineBytes) : lines;
  if (cold) scrub.fill_zero();
  ctx.extra()["l2_state"] = cold ? "scrubbed" : "warm";

  set_and_record_carveout<Op>(ctx);
  DeviceBuffer<RegionTiming> timing(1);
  DeviceBuffer<const void*> sink(2);
  const auto start = reinterpret_cast<const void* const*>(chase.get());
  const auto run_chain = [&](std::int64_t steps) {
    launch(ctx, chase_kernel<Op>, {1, kWarmThreads}, start, warm, warm_lines, int(steps / kChaseUnroll), timing.get(),
           sink.get());
    GD_CUDA_CHECK_LAUNCH();
    return timing.to_host()[0];
  };
  // In a scrubbed (cold) run every step must be a first touch, so chains stay far shorter than
  // the cycle; warm runs wrap around the cycle freely.
  // Quick mode still fits over three lengths, so its worst r2 is a real check of the line.
  const std::vector<std::int64_t> lengths = ctx.quick() ? std::vector<std::int64_t>{512, 1024, 2048}
                                                        : std::vector<std::int64_t>{512, 1024, 2048, 4096};
  if (cold && lengths.back() * 4 > lines) ctx.skip("cold working set too small for the chain lengths");
  // +-1 % is well inside the steps between levels, and a DRAM sample costs milliseconds.
  RepeatPolicy policy;
  policy.target_rel_ci = 0.01;
  policy.max_samples = 15;
  emit_chain_latency(ctx, measure_chain_latency(ctx, lengths, run_chain, policy));
}

void run_chase(ProbeContext& ctx) {
  const std::string variant = ctx.str_param("variant");
  const std::int64_t bytes = ctx.int_param("bytes");
  if (variant == "ca") run_chase_for<CacheOp::Ca>(ctx, bytes);
  else if (variant == "cg") run_chase_for<CacheOp::Cg>(ctx, bytes);
  else throw Error("unknown chase variant '" + variant + "' (expected ca or cg)");
}

// The points a level was computed from: those whose working set lies on it (and matches its
// L2 state: a DRAM level is made of the scrubbed points).
std::vector<const Record*> level_sources(const std::vector<const Record*>& points, const CacheLevel& level) {
  std::vector<const Record*> out;
  const bool dram = level.name.rfind("DRAM", 0) == 0;
  for (const Record* r : points) {
    const double bytes = double(std::get<std::int64_t>(*find_param(r->params, "bytes")));
    const bool scrubbed = r->extra.value("l2_state", "") == "scrubbed";
    if (bytes >= level.first_bytes && bytes <= level.last_bytes && scrubbed == dram) out.push_back(r);
  }
  return out;
}

// One cache level as a derived record: honest statistics of its points, the boundaries the
// data shows, and for DRAM where the probe began scrubbing L2 (analysis/cache_levels says why
// that is kept apart from the boundary).
void derive_level(SummaryContext& sc, const std::string& variant, const CacheLevel& level,
                  const std::vector<const Record*>& sources, const nlohmann::json& carveout) {
  Record& r = sc.derive({{"variant", variant}, {"level", level.name}}, sources);
  sc.add_metric(r, "latency/cycles", summarize(level.samples));
  if (r.sm_clock_mhz > 0) sc.add_metric(r, "latency/ns", single_value(level.cycles / r.sm_clock_mhz * 1e3));
  if (level.first_bytes > 0) sc.add_metric(r, "level/first_bytes", single_value(level.first_bytes));
  sc.add_metric(r, "level/last_bytes", single_value(level.last_bytes));
  r.extra["next_bytes"] = level.next_bytes;
  r.extra["points"] = level.samples.size();
  if (!carveout.is_null()) r.extra["shared_carveout"] = carveout;
  if (level.name == "L2.far_blend") {
    sc.add_metric(r, "latency/cycles_at_last_bytes", single_value(level.cycles_at_last_bytes));
    r.extra["note"] = "latency climbs before L2 is full: a growing share of lines homed in the far L2 partition";
  }
  if (level.l2_scrubbed_from_bytes > 0) {
    r.extra["measured_with_l2_scrubbed_from_bytes"] = level.l2_scrubbed_from_bytes;
    r.extra["note"] = level.first_bytes > 0
        ? "first_bytes is where the warm curve leaves the last L2 level; the latency comes from points measured "
          "with L2 scrubbed, from measured_with_l2_scrubbed_from_bytes on (a choice of the probe, not a boundary)"
        : "the warm sweep never left L2, so the data shows no DRAM boundary; the latency comes from points "
          "measured with L2 scrubbed, from measured_with_l2_scrubbed_from_bytes on";
  }
}

// Per variant: the cache levels (analysis/cache_levels) as derived records.
void summarize_chase(SummaryContext& sc) {
  for (const std::string variant : {"ca", "cg"}) {
    std::vector<ChasePoint> points;
    nlohmann::json carveout;  // the same kernel attributes at every point of a variant
    const std::vector<const Record*> sources = sc.ok_records({{"variant", variant}});
    for (const Record* r : sources) {
      const Metric* cycles = r->metric("latency/cycles");
      if (!cycles) continue;  // a point without its latency (a damaged run file) draws no level
      points.push_back({double(std::get<std::int64_t>(*find_param(r->params, "bytes"))), cycles->value(),
                        r->extra.value("l2_state", "") == "scrubbed"});
      if (carveout.is_null() && r->extra.contains("shared_carveout")) carveout = r->extra["shared_carveout"];
    }
    if (points.size() < 2) continue;
    for (const CacheLevel& level : cache_levels(points, variant == "ca", double(sc.device().l2_bytes)))
      derive_level(sc, variant, level, level_sources(sources, level), carveout);
  }
}

ProbeSpec chase_spec() {
  ProbeSpec s;
  s.id = "memory.latency.chase";
  s.description = "pointer-chase load-to-use latency vs working set (L1-cached ca, L1-bypassing cg); finds cache levels";
  s.axes = {Axis::list("variant", std::vector<std::string>{"ca", "cg"}),
            std::move(Axis::log_spaced("bytes", 4 << 10, std::int64_t(1) << 29, 69))
                .quick_list(Axis::log_spaced("bytes", 4 << 10, std::int64_t(1) << 29, 18).values)};
  // 64-bit address arithmetic would show as a carry add or a wide multiply-add between loads;
  // the loop counter's 32-bit add is allowed.
  const std::vector<std::string> no_arith = {"LDL", "STL", "IADD3.X", "IMAD.X", "IMAD.WIDE", "LEA.HI.X"};
  auto plain_only = no_arith;
  plain_only.push_back("LDG.E.64.STRONG");  // the cached variant must be the ordinary weak load
  s.sass = {expect_sass("*chase_kernel<*)0>*", SassRegion::Clocked, {{"LDG.E.64", kChaseUnroll, -1}}, plain_only),
            expect_sass("*chase_kernel<*)1>*", SassRegion::Clocked, {{"LDG.E.64.STRONG.GPU", kChaseUnroll, -1}}, no_arith),
            // Set-up: links the lines into the cycle the chase follows (one 64-bit store per line).
            expect_sass("*link_lines_kernel*", SassRegion::Whole, {{"STG.E.64", 1, -1}})};
  s.metrics = chain_latency_metrics("load-to-use latency of one dependent load");
  s.metrics.push_back({"level/first_bytes", "bytes",
                       "smallest working set on this level's plateau; for DRAM, the first warm working set past "
                       "the last L2 level (where the data shows loads leave L2)"});
  s.metrics.push_back({"level/last_bytes", "bytes", "largest working set on this level's plateau"});
  s.metrics.push_back({"latency/cycles_at_last_bytes", "cycles",
                       "L2.far_blend only: latency at its largest working set, the worst case inside L2 "
                       "(latency/cycles is the median over the blend's points)"});
  ReportView ladder = line_view("bytes", "latency/cycles", "variant");  // the latency ladder with its levels
  ladder.log_x = true;
  ladder.span_first = "level/first_bytes";
  ladder.span_last = "level/last_bytes";
  ladder.span_label = "level";
  s.views = {ladder};
  s.covers = {{"memory.l1.latency", "latency/cycles", {{"level", "L1"}, {"variant", "ca"}}},
              {"memory.l1.capacity", "level/last_bytes", {{"level", "L1"}, {"variant", "ca"}}},
              {"memory.l2.near_latency", "latency/cycles", {{"level", "L2"}, {"variant", "cg"}}},
              {"memory.l2.far_latency", "latency/cycles_at_last_bytes", {{"level", "L2.far_blend"}, {"variant", "cg"}}},
              {"memory.dram.latency", "latency/cycles", {{"level", "DRAM"}, {"variant", "cg"}}}};
  s.run = run_chase;
  s.summarize = summarize_chase;
  s.time_cap_s = 18;
  s.quick_time_cap_s = 5;
  return s;
}

GD_REGISTER_PROBE(chase_spec());

}  // namespace probe_pointer_chase
}  // namespace gd
