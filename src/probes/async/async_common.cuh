// Shared by the async-copy probes (src/probes/async): the gate on Hopper code, source buffers
// filled at run time with words the host can recompute, streaming launches sized to a fixed
// duration, and the bandwidth-versus-bytes-in-flight summary (knee, plateau, Little's law).
#pragma once
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "analysis/inflight.hpp"
#include "core/device_buffer.hpp"
#include "core/event_timing.hpp"
#include "core/launch.cuh"
#include "core/probe.hpp"

namespace gd::async {
namespace {

// Word i of every source buffer, so a probe checks what its copies delivered without reading
// gigabytes back.
__host__ __device__ __forceinline__ unsigned source_word(unsigned long long i, unsigned seed) {
  return (unsigned(i) * 0x9E3779B1u) ^ unsigned(i >> 32) ^ seed;
}

__global__ void fill_source_kernel(unsigned* a, long long words, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < words; i += (long long)gridDim.x * blockDim.x)
    a[i] = source_word((unsigned long long)i, seed);
}

// Declared by every probe that fills a source buffer.
inline SassExpectation fill_source_sass() { return expect_sass("*fill_source_kernel*", SassRegion::Whole, {{"STG.E", 1, -1}}); }

// A device buffer of `bytes` holding source_word(i, seed) at word i, with a fresh random seed.
struct SourceBuffer {
  DeviceBuffer<unsigned> words;
  unsigned seed = 0;
  const char* bytes() const { return reinterpret_cast<const char*>(words.get()); }
};
inline SourceBuffer make_source(ProbeContext& ctx, long long bytes) {
  SourceBuffer s{DeviceBuffer<unsigned>(std::size_t(bytes / 4)), unsigned(std::random_device{}())};
  launch(ctx, fill_source_kernel, {unsigned(ctx.device().sm_count * 4), 256}, s.words.get(), bytes / 4, s.seed);
  GD_CUDA_CHECK_LAUNCH();
  return s;
}

// The Hopper forms (bulk, tensor, mbarrier tx) exist only in sm_90+ code: a binary built
// without it (a generic sm_80 cubin JIT-compiled for the chip) would trap, so it is skipped.
inline void require_sm90_code(ProbeContext& ctx) {
  const std::string& a = ctx.device().arch_code_loaded;
  int n = 0;
  for (std::size_t i = a.rfind('_') == std::string::npos ? 0 : a.rfind('_') + 1; i < a.size() && std::isdigit(a[i]); ++i)
    n = n * 10 + (a[i] - '0');
  if (n < 90)
    ctx.skip("the code loaded for this chip (" + a + ") was built for an architecture before sm_90 and has no "
             "bulk/tensor copies; rebuild with 90a (or newer) in GPUDISSECT_CUDA_ARCHITECTURES");
}

// Where a stream reads from: DRAM (a buffer far larger than L2, each launch a fresh window) or
// L2 (a region of a quarter of L2 read over and over; one launch's first pass warms it).
struct StreamSource {
  long long buffer_bytes = 0;
  unsigned long long mask = ~0ull;  // address wrap within the region (L2); all ones for DRAM
};
inline StreamSource stream_source(const DeviceInfo& d, const std::string& where) {
  if (where == "dram") return {std::min<long long>(std::max<long long>(64 * d.l2_bytes, 4LL << 30), d.global_mem_bytes / 8), ~0ull};
  if (where == "l2") {
    long long r = 1;
    while (2 * r <= d.l2_bytes / 4) r *= 2;
    return {r, (unsigned long long)(r - 1)};
  }
  throw UserError("unknown source '" + where + "' (dram or l2)");
}

// Bytes one launch moves so that it lasts about 2 ms at the expected rate: the chip's DRAM peak
// (three times that from L2), or less when too few bytes are in flight (at ~700 ns each).
// A whole number of `granule`s, at least `min_granules`, and for DRAM within the buffer.
inline long long launch_bytes(const DeviceInfo& d, const std::string& where, double inflight_bytes_total,
                              long long granule, long long min_granules, long long buffer_bytes) {
  const double peak = (d.theoretical_dram_gbps > 0 ? d.theoretical_dram_gbps * 1e9 : 2e12) * (where == "l2" ? 3 : 1);
  const double rate = std::min(peak, inflight_bytes_total / 700e-9);
  long long g = std::max<long long>(min_granules, (long long)(rate * 2e-3 / double(granule)));
  if (where == "dram") g = std::min(g, buffer_bytes / granule);
  if (g < min_granules) throw Error("the source buffer holds fewer than " + std::to_string(min_granules) + " granules");
  return g * granule;
}

// Streaming launches, timed by events: the GPU is under load from the first point on, so a
// short warm-up suffices; +-1 % is far inside the steps of a bytes-in-flight sweep.
inline RepeatPolicy stream_policy() {
  RepeatPolicy p;
  p.warmup = 2;
  p.warmup_s = 0.01;
  p.target_rel_ci = 0.01;
  p.time_cap_s = 0.4;
  return p;
}

inline std::vector<MetricSpec> inflight_metrics() {
  return {{"bandwidth/tbps", "TB/s", "bytes copied into shared memory per second (10^12); derived: the plateau"},
          {"inflight/bytes_per_sm", "B", "bytes requested and not yet landed per SM (CTAs/SM x depth per CTA)"},
          {"latency/littles_ns", "ns", "Little's law: bytes in flight per SM / bandwidth per SM"},
          {"knee/bytes_per_sm", "B", "least bytes in flight per SM reaching 95 % of the plateau"},
          {"latency/littles_unloaded_ns", "ns", "Little's-law latency below half the plateau (median)"},
          {"latency/littles_unloaded_cycles", "cycles", "the same at the observed SM clock"},
          {"latency/littles_knee_ns", "ns", "Little's-law latency at the knee (saturated)"}};
}

// The point's metrics: bandwidth, its depth and the Little's-law latency at that depth.
inline void emit_inflight_point(ProbeContext& ctx, const Summary& tbps, double inflight_per_sm) {
  ctx.metric("bandwidth/tbps", tbps);
  ctx.metric("inflight/bytes_per_sm", inflight_per_sm);
  ctx.metric("latency/littles_ns", littles_latency_ns(inflight_per_sm, tbps.median, ctx.device().sm_count));
}

// Per source: the curve over every configuration of the sweep, as one derived record.
inline void summarize_inflight(SummaryContext& sc) {
  for (const std::string where : {"dram", "l2"}) {
    const std::vector<const Record*> pts = sc.ok_records({{"source", where}});
    std::vector<InflightPoint> curve;
    for (const Record* r : pts)
      if (r->metric("bandwidth/tbps") && r->metric("inflight/bytes_per_sm"))
        curve.push_back({r->metric("inflight/bytes_per_sm")->value(), r->metric("bandwidth/tbps")->value()});
    if (curve.empty()) continue;
    const InflightCurve c = analyze_inflight(curve, sc.device().sm_count);
    Record& d = sc.derive({{"source", where}, {"curve", std::string("knee")}}, pts);
    sc.add_metric(d, "bandwidth/tbps", single_value(c.plateau_tbps));
    sc.add_metric(d, "knee/bytes_per_sm", single_value(c.knee_bytes_per_sm));
    sc.add_metric(d, "latency/littles_knee_ns", single_value(c.knee_latency_ns));
    if (c.unloaded_latency_ns == c.unloaded_latency_ns) {
      sc.add_metric(d, "latency/littles_unloaded_ns", single_value(c.unloaded_latency_ns));
      if (d.sm_clock_mhz > 0)
        sc.add_metric(d, "latency/littles_unloaded_cycles", single_value(c.unloaded_latency_ns * d.sm_clock_mhz * 1e-3));
    }
    nlohmann::json env = nlohmann::json::array();
    for (const InflightPoint& p : c.envelope) env.push_back({p.bytes_per_sm, p.tbps});
    d.extra["envelope_bytes_per_sm_tbps"] = env;
    d.extra["knee_tbps"] = c.knee_tbps;
  }
}

}  // namespace
}  // namespace gd::async
