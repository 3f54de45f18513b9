// TLB reach: dependent L2-resident loads, one line per stride, over spans up to gigabytes; where
// the latency steps up as lines grow is where a TLB level runs out, and strides below and above
// the page size tell the page size apart from the entry count.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "analysis/chain.hpp"
#include "analysis/tlb.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/ptx.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "memory_tools.hpp"

namespace gd {
namespace {

constexpr int kLineBytes = 128;
constexpr int kTlbUnroll = 8;
constexpr long long kMaxSpan = 16LL << 30;  // at most this many bytes of address space per point

// Thread 0 walks the cycle once untimed (every page's translation and every line loaded into L2),
// then times `steps` dependent .cg loads: L2 hits, so what grows with the lines is translation.
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
  const long long cap = std::min<long long>(kMaxSpan, ctx.device().global_mem_bytes / 4);
  if ((long long)lines * stride > cap)
    ctx.skip("span " + std::to_string((long long)lines * stride >> 20) + " MiB exceeds this probe's cap of " +
             std::to_string(cap >> 20) + " MiB (a quarter of device memory, at most 16 GiB)");

  std::mt19937_64 rng(std::random_device{}());
  // Each line at a random line-aligned offset inside its stride slot, so lines do not share an L2
  // set pattern; pages touched stay lines x stride / page below the page size, lines above it.
  std::vector<unsigned long long> offset(static_cast<std::size_t>(lines));
  std::uniform_int_distribution<long long> within(0, stride / kLineBytes - 1);
  for (std::int64_t i = 0; i < lines; ++i) offset[std::size_t(i)] = (unsigned long long)(i * stride + within(rng) * kLineBytes);
  DeviceBuffer<char> span{static_cast<std::size_t>(lines * stride)};
  {
    DeviceBuffer<unsigned long long> off_dev(offset.size());
    DeviceBuffer<std::uint32_t> next(offset.size());
    off_dev.from_host(offset);
    next.from_host(memory::random_cycle(std::size_t(lines), rng));
    launch(ctx, tlb_link_kernel, {unsigned(ctx.device().sm_count), 256}, span.get(), off_dev.get(), next.get(), int(lines));
    GD_CUDA_CHECK_LAUNCH();
  }
  DeviceBuffer<const void*> sink(1);
  const auto start = reinterpret_cast<const void* const*>(span.get() + offset[0]);
  const std::vector<std::int64_t> lengths = ctx.quick() ? std::vector<std::int64_t>{256, 512, 1024}
                                                        : std::vector<std::int64_t>{512, 1024, 2048};
  RepeatPolicy policy;
  policy.warmup = 1;
  policy.target_rel_ci = 0.02;
  policy.max_samples = 5;
  emit_chain_latency(ctx, measure_launched_chain(ctx, lengths, [&](std::int64_t steps, RegionTiming* timing) {
    launch(ctx, tlb_chase_kernel, {1, 32}, start, int(lines), int(steps), timing, sink.get());
    GD_CUDA_CHECK_LAUNCH();
  }, policy));
  ctx.extra()["span_bytes"] = double(lines * stride);
}

// The steps of every stride and the page size they imply (analysis/tlb), as one derived record.
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
  nlohmann::json table = nlohmann::json::array();
  double first_reach_at_largest = 0, first_entries_at_largest = 0;
  for (std::size_t i = 0; i < reach.strides.size(); ++i)
    for (std::size_t k = 0; k < reach.steps[i].size(); ++k) {
      const TlbStep& s = reach.steps[i][k];
      table.push_back({{"stride_bytes", s.stride_bytes}, {"step", k + 1}, {"last_fast_lines", s.last_fast_entries},
                       {"first_slow_lines", s.first_slow_entries}, {"reach_bytes", s.reach_bytes},
                       {"cycles_before", s.cycles_before}, {"cycles_after", s.cycles_after}});
      if (i + 1 == reach.strides.size() && k == 0) {
        first_reach_at_largest = s.reach_bytes;
        first_entries_at_largest = s.last_fast_entries;
      }
    }
  d.extra["steps"] = table;
  if (reach.implied_page_bytes > 0) sc.add_metric(d, "tlb/implied_page_bytes", single_value(reach.implied_page_bytes));
  if (first_entries_at_largest > 0) {
    sc.add_metric(d, "tlb/first_level_entries", single_value(first_entries_at_largest));
    sc.add_metric(d, "tlb/first_level_reach_bytes", single_value(first_reach_at_largest));
  }
  if (reach.page_at_most_smallest_stride) d.extra["note"] = "every stride steps at the same line count: the page size is at most the smallest stride";
  if (table.empty()) d.extra["note"] = "no step: every span of the sweep stayed within the TLB reach";
}

ProbeSpec tlb_spec() {
  ProbeSpec s;
  s.id = "memory.latency.tlb";
  s.description = "TLB reach: L2-hit pointer chase, one line per stride (256 KiB..32 MiB) over spans up to 16 GiB; steps and implied page size";
  s.axes = {std::move(Axis::list("stride", {256LL << 10, 2LL << 20, 32LL << 20})).quick({256LL << 10, 32LL << 20}),
            std::move(Axis::pow2("lines", 8, 8192)).quick({8, 32, 128, 512, 2048})};
  s.sass = {expect_sass("*tlb_chase_kernel*", SassRegion::Clocked, {{"LDG.E.64.STRONG.GPU", kTlbUnroll, -1}},
                        {"LDL", "STL", "IMAD.WIDE", "IADD3.X", "LEA.HI.X"}),
            expect_sass("*tlb_link_kernel*", SassRegion::Whole, {{"STG.E.64", 1, -1}})};
  s.metrics = chain_latency_metrics("latency of one dependent L2-hit load, translation included");
  s.metrics.push_back({"tlb/implied_page_bytes", "bytes",
                       "first step's reach in bytes at the smallest stride over its line count at the largest"});
  s.metrics.push_back({"tlb/first_level_entries", "lines", "lines still before the first step at the largest stride"});
  s.metrics.push_back({"tlb/first_level_reach_bytes", "bytes", "that line count times the largest stride"});
  ReportView v = line_view("lines", "latency/cycles", "stride");
  v.log_x = true;
  s.views = {v};
  s.run = run_tlb;
  s.summarize = summarize_tlb;
  s.time_cap_s = 12;
  s.quick_time_cap_s = 4;
  return s;
}

GD_REGISTER_PROBE(tlb_spec());

}  // namespace
}  // namespace gd
