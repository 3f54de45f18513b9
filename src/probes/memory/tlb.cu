// TLB reach: dependent L2-resident loads, one line per stride slot, over spans up to most of
// device memory; where the latency steps up as lines grow is where a TLB level runs out, and
// strides below and above the page size tell the page size apart from the entry count.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "analysis/chain.hpp"
#include "analysis/tlb.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/ptx.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "memory_tools.hpp"

namespace gd {
namespace probe_tlb {

constexpr int kLineBytes = 128;
constexpr int kTlbUnroll = 8;
constexpr long long kFreeMargin = 2LL << 30;  // device memory left free beside a point's span

// Thread 0 walks `warm_steps` untimed, then times `steps` dependent .cg loads. The caller walks
// the whole cycle once before timing (every line then sits in L2) and makes warm + timed steps a
// whole cycle (or more), so each timed load's page was last used a full cycle ago: what grows
// with the lines is translation, not data.
__global__ void __launch_bounds__(32) tlb_chase_kernel(const void* const* start, int warm_steps, int steps,
                                                       RegionTiming* timing, const void** sink) {
  if (threadIdx.x != 0) return;
  const void* const* p = start;
#pragma unroll 1
  for (int i = 0; i < warm_steps; ++i) p = static_cast<const void* const*>(ptx::ld_cg_ptr(p));
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < steps; i += kTlbUnroll) {
#pragma unroll
    for (int k = 0; k < kTlbUnroll; ++k) p = static_cast<const void* const*>(ptx::ld_cg_ptr(p));
  }
  timing[0] = clock.end();
  sink[0] = p;
}

// Line i sits at offset[i]; it holds the address of line next[i].
__global__ void tlb_link_kernel(char* base, const unsigned long long* offset, const std::uint32_t* next, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    *reinterpret_cast<const void**>(base + offset[i]) = base + offset[next[i]];
}

void run_tlb(ProbeContext& ctx) {
  const std::int64_t stride = ctx.int_param("stride");
  const std::int64_t lines = ctx.int_param("lines");
  if (stride < kLineBytes || stride % kLineBytes) throw UserError("stride must be a positive multiple of 128 bytes");
  if (lines < 2 || lines > (1 << 20)) throw UserError("lines must be between 2 and 2^20");
  const DeviceInfo& d = ctx.device();
  // The lines themselves stay a small part of L2, so every timed load is an L2 hit.
  if (lines * kLineBytes > d.l2_bytes / 4)
    ctx.skip(std::to_string(lines) + " lines (" + std::to_string(lines * kLineBytes >> 10) +
             " KiB) exceed a quarter of L2: the chase would measure data misses, not translation");
  std::size_t free_bytes = 0, total_bytes = 0;
  GD_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const long long span_bytes = (long long)lines * stride;
  if (span_bytes > (long long)free_bytes - kFreeMargin)
    ctx.skip("span " + std::to_string(span_bytes >> 20) + " MiB exceeds free device memory (" +
             std::to_string(free_bytes >> 20) + " MiB) less a 2 GiB margin");

  // A fixed seed per point: a rerun walks the same lines in the same order.
  std::mt19937_64 rng(0x7b1ull ^ (std::uint64_t(stride) * 0x9E3779B97F4A7C15ull) ^ std::uint64_t(lines));
  // Each line at a random line-aligned offset inside its stride slot: lines do not share an L2
  // set pattern, and with slots larger than a page the page used inside each slot is random too.
  std::vector<unsigned long long> offset(static_cast<std::size_t>(lines));
  std::uniform_int_distribution<long long> within(0, stride / kLineBytes - 1);
  for (std::int64_t i = 0; i < lines; ++i) offset[std::size_t(i)] = (unsigned long long)(i * stride + within(rng) * kLineBytes);
  const auto t0 = std::chrono::steady_clock::now();
  DeviceBuffer<char> span{static_cast<std::size_t>(span_bytes)};
  const double alloc_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  {
    DeviceBuffer<unsigned long long> off_dev(offset.size());
    DeviceBuffer<std::uint32_t> next(offset.size());
    off_dev.from_host(offset);
    next.from_host(memory::random_cycle(std::size_t(lines), rng));
    launch(ctx, tlb_link_kernel, {unsigned(d.sm_count), 256}, span.get(), off_dev.get(), next.get(), int(lines));
    GD_CUDA_CHECK_LAUNCH();
  }
  DeviceBuffer<const void*> sink(1);
  DeviceBuffer<RegionTiming> scratch(1);
  const auto start = reinterpret_cast<const void* const*>(span.get() + offset[0]);
  // One untimed walk of the whole cycle: every line in L2 before any timing.
  launch(ctx, tlb_chase_kernel, {1, 32}, start, int(lines), kTlbUnroll, scratch.get(), sink.get());
  GD_CUDA_CHECK_LAUNCH();
  const std::vector<std::int64_t> lengths{256, 512, 1024};
  RepeatPolicy policy;
  policy.warmup = 1;
  policy.target_rel_ci = 0.02;
  policy.max_samples = 5;
  emit_chain_latency(ctx, measure_launched_chain(ctx, lengths, [&](std::int64_t steps, RegionTiming* timing) {
    // Warm walk plus timed steps cover at least one whole cycle from the same start.
    const int warm = int(lines > steps ? lines - steps : lines);
    launch(ctx, tlb_chase_kernel, {1, 32}, start, warm, int(steps), timing, sink.get());
    GD_CUDA_CHECK_LAUNCH();
  }, policy));
  ctx.extra()["span_bytes"] = double(span_bytes);
  ctx.extra()["data_bytes"] = double(lines * kLineBytes);
  ctx.extra()["alloc_s"] = alloc_s;
  ctx.extra()["free_bytes_before"] = double(free_bytes);
}

// The steps of every stride, the page size they imply and each level's coverage (analysis/tlb):
// one derived record for the sweep, one per level.
void summarize_tlb(SummaryContext& sc) {
  std::vector<TlbPoint> points;
  const std::vector<const Record*> sources = sc.ok_records();
  for (const Record* r : sources)
    if (const Metric* m = r->metric("latency/cycles"))
      points.push_back({double(std::get<std::int64_t>(*find_param(r->params, "stride"))),
                        double(std::get<std::int64_t>(*find_param(r->params, "lines"))), m->value()});
  if (points.size() < 4) return;
  const TlbReach reach = tlb_reach(points);
  Record& d = sc.derive({{"stride", std::string("all")}, {"lines", std::string("tlb_reach")}}, sources);
  nlohmann::json table = nlohmann::json::array(), reached = nlohmann::json::array();
  double max_span = 0;
  for (std::size_t i = 0; i < reach.strides.size(); ++i) {
    reached.push_back({{"stride_bytes", reach.strides[i]}, {"max_lines", reach.max_entries[i]},
                       {"max_span_bytes", reach.max_span_bytes[i]}, {"steps", reach.steps[i].size()}});
    max_span = std::max(max_span, reach.max_span_bytes[i]);
    for (std::size_t k = 0; k < reach.steps[i].size(); ++k) {
      const TlbStep& s = reach.steps[i][k];
      table.push_back({{"stride_bytes", s.stride_bytes}, {"step", k + 1}, {"last_fast_lines", s.last_fast_entries},
                       {"first_slow_lines", s.first_slow_entries}, {"reach_bytes", s.reach_bytes},
                       {"cycles_before", s.cycles_before}, {"cycles_after", s.cycles_after},
                       {"open_ended", s.open_ended}});
    }
  }
  d.extra["steps"] = table;
  d.extra["reached"] = reached;
  sc.add_metric(d, "tlb/max_span_bytes", single_value(max_span));
  if (reach.implied_page_bytes > 0) sc.add_metric(d, "tlb/implied_page_bytes", single_value(reach.implied_page_bytes));
  if (reach.page_lower_bytes > 0) d.extra["page_above_bytes"] = reach.page_lower_bytes;
  if (reach.page_upper_bytes > 0) d.extra["page_at_most_bytes"] = reach.page_upper_bytes;
  if (!reach.levels.empty() && reach.levels[0].entries > 0) {
    sc.add_metric(d, "tlb/first_level_entries", single_value(reach.levels[0].entries));
    if (reach.levels[0].coverage_bytes > 0)
      sc.add_metric(d, "tlb/first_level_reach_bytes", single_value(reach.levels[0].coverage_bytes));
  }
  if (reach.page_at_most_smallest_stride)
    d.extra["note"] = "every stride steps at the same line count: the page size is at most the smallest stride";
  else if (reach.page_above_largest_stride)
    d.extra["note"] = "every stride that steps does so at the same span in bytes: the translation unit is at least the "
                      "largest of them (page_above_bytes), below page_at_most_bytes when a larger stride spanned past the "
                      "step without stepping; the level's coverage is in bytes";
  if (table.empty())
    d.extra["note"] = "no step: every span of the sweep (up to " + std::to_string((long long)(max_span / double(1LL << 30))) +
                      " GiB) stayed within the TLB reach";
  for (std::size_t k = 0; k < reach.levels.size(); ++k) {
    const TlbLevel& l = reach.levels[k];
    Record& r = sc.derive({{"stride", std::string("all")}, {"lines", "level" + std::to_string(k + 1)}}, sources);
    if (l.entries > 0) sc.add_metric(r, "tlb/level_entries", single_value(l.entries));
    if (l.coverage_bytes > 0) sc.add_metric(r, "tlb/level_coverage_bytes", single_value(l.coverage_bytes));
    sc.add_metric(r, "tlb/level_miss_cycles", single_value(l.cycles_after - l.cycles_before));
    r.extra["cycles_before"] = l.cycles_before;
    r.extra["cycles_after"] = l.cycles_after;
    r.extra["at_stride_bytes"] = l.largest_stride_bytes;
  }
}

// Lines 8..65536 in steps of 1.5x and 1.33x (8, 12, 16, 24, ...).
std::vector<std::int64_t> tlb_lines() {
  std::vector<std::int64_t> v;
  for (std::int64_t n = 8; n <= 65536; n *= 2) {
    v.push_back(n);
    if (n < 65536) v.push_back(n * 3 / 2);
  }
  return v;
}

ProbeSpec tlb_spec() {
  ProbeSpec s;
  s.id = "memory.latency.tlb";
  s.description = "TLB reach: L2-hit pointer chase, one line per stride slot (64 KiB..512 MiB) over spans up to free device memory; "
                  "steps, implied page size, coverage per level";
  // Quick: the two strides that tell most on an H200 (32 MiB steps past ~64 GiB, 512 MiB does not
  // at 256 lines), with few lines each, so no point walks more than 4096 lines.
  s.axes = {std::move(Axis::list("stride", {64LL << 10, 2LL << 20, 32LL << 20, 512LL << 20})).quick({32LL << 20, 512LL << 20}),
            std::move(Axis::list("lines", tlb_lines())).quick({8, 32, 128, 256, 512, 1024, 2048, 3072, 4096})};
  s.sass = {expect_sass("*tlb_chase_kernel*", SassRegion::Clocked, {{"LDG.E.64.STRONG.GPU", kTlbUnroll, -1}},
                        {"LDL", "STL", "IMAD.WIDE", "IADD3.X", "LEA.HI.X"}),
            expect_sass("*tlb_link_kernel*", SassRegion::Whole, {{"STG.E.64", 1, -1}})};
  s.metrics = chain_latency_metrics("latency of one dependent L2-hit load, translation included");
  s.metrics.push_back({"tlb/max_span_bytes", "bytes", "the largest span (lines x stride) the sweep measured"});
  s.metrics.push_back({"tlb/implied_page_bytes", "bytes",
                       "first level's reach in bytes at the last stride below the page over its line count at and above it"});
  s.metrics.push_back({"tlb/first_level_entries", "lines", "lines (pages) before the first step at strides at or above the page"});
  s.metrics.push_back({"tlb/first_level_reach_bytes", "bytes", "those entries times the implied page size"});
  s.metrics.push_back({"tlb/level_entries", "pages", "pages this level holds (line count at its step, strides at or above the page)"});
  s.metrics.push_back({"tlb/level_coverage_bytes", "bytes", "entries x page size: the address span this level translates"});
  s.metrics.push_back({"tlb/level_miss_cycles", "cycles", "added latency per load once the level runs out"});
  ReportView v = line_view("lines", "latency/cycles", "stride");
  v.log_x = true;
  s.views = {v};
  s.run = run_tlb;
  s.summarize = summarize_tlb;
  s.time_cap_s = 25;
  s.quick_time_cap_s = 4;
  return s;
}

GD_REGISTER_PROBE(tlb_spec());

}  // namespace probe_tlb
}  // namespace gd
