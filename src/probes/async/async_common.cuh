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
#include "analysis/latency_rise.hpp"
#include "core/device_buffer.hpp"
#include "core/event_timing.hpp"
#include "core/launch.cuh"
#include "core/probe.hpp"
#include "core/ptx_async.cuh"
#include "core/timing.cuh"

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

// On sm_120a ptxas wraps each tensor copy whose map is a kernel parameter in a check with a cold
// call path (an absolute CALL whose frame is an STL.64), taken only when the map's address is not
// where it must be; it does not run in a timed loop, so tensor-copy kernels forbid LDL only.
inline std::vector<std::string> tensor_copy_forbid() { return {"LDL"}; }

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
// A --functional run (compute-sanitizer) reads a DRAM buffer of 64 MiB: room for a few windows
// of its short launches, without filling gigabytes under the tool.
struct StreamSource {
  long long buffer_bytes = 0;
  unsigned long long mask = ~0ull;  // address wrap within the region (L2); all ones for DRAM
};
inline StreamSource stream_source(const ProbeContext& ctx, const std::string& where) {
  const DeviceInfo& d = ctx.device();
  if (where == "dram")
    return {ctx.sized(std::min<long long>(std::max<long long>(64 * d.l2_bytes, 4LL << 30), d.global_mem_bytes / 8), 64LL << 20),
            ~0ull};
  if (where == "l2") {
    long long r = 1;
    while (2 * r <= d.l2_bytes / 4) r *= 2;
    return {r, (unsigned long long)(r - 1)};
  }
  throw UserError("unknown source '" + where + "' (dram or l2)");
}

// Bytes one launch moves so that it lasts about 2 ms at the expected rate: the chip's DRAM peak
// (three times that from L2), or less when too few bytes are in flight (at ~700 ns each).
// A whole number of `granule`s, at least `min_granules` (exactly that in a --functional run),
// and for DRAM within the buffer.
inline long long launch_bytes(const ProbeContext& ctx, const std::string& where, double inflight_bytes_total,
                              long long granule, long long min_granules, long long buffer_bytes) {
  const DeviceInfo& d = ctx.device();
  const double peak = (d.theoretical_dram_gbps > 0 ? d.theoretical_dram_gbps * 1e9 : 2e12) * (where == "l2" ? 3 : 1);
  const double rate = std::min(peak, inflight_bytes_total / 700e-9);
  long long g = ctx.sized(std::max<long long>(min_granules, (long long)(rate * 2e-3 / double(granule))), min_granules);
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
          {"latency/littles_knee_ns", "ns", "Little's-law latency at the knee (saturated)"},
          {"latency/doubled_at_bytes_per_sm", "B", "least bytes in flight per SM whose Little's-law latency is twice the unloaded"},
          {"latency/doubled_ns", "ns", "Little's-law latency at that depth"}};
}

// The point's metrics: bandwidth, its depth and the Little's-law latency at that depth, over
// `busy_sms` SMs (0: all of them).
inline void emit_inflight_point(ProbeContext& ctx, const Summary& tbps, double inflight_per_sm, int busy_sms = 0) {
  ctx.metric("bandwidth/tbps", tbps);
  ctx.metric("inflight/bytes_per_sm", inflight_per_sm);
  ctx.metric("latency/littles_ns",
             littles_latency_ns(inflight_per_sm, tbps.median, busy_sms > 0 ? busy_sms : ctx.device().sm_count));
}

// The in-flight analysis of `pts` (records with a bandwidth and a depth) as one derived record
// with `params`: plateau, knee, Little's-law latencies, and the least depth at which the latency
// has doubled over the unloaded one (queueing in the copy engine). nullptr when no point has both.
inline Record* derive_inflight(SummaryContext& sc, const Params& params, const std::vector<const Record*>& pts) {
  std::vector<InflightPoint> curve;
  for (const Record* r : pts)
    if (r->metric("bandwidth/tbps") && r->metric("inflight/bytes_per_sm"))
      curve.push_back({r->metric("inflight/bytes_per_sm")->value(), r->metric("bandwidth/tbps")->value()});
  if (curve.empty()) return nullptr;
  const int sms = sc.device().sm_count;
  const InflightCurve c = analyze_inflight(curve, sms);
  Record& d = sc.derive(params, pts);
  sc.add_metric(d, "bandwidth/tbps", single_value(c.plateau_tbps));
  sc.add_metric(d, "knee/bytes_per_sm", single_value(c.knee_bytes_per_sm));
  sc.add_metric(d, "latency/littles_knee_ns", single_value(c.knee_latency_ns));
  if (c.unloaded_latency_ns == c.unloaded_latency_ns) {
    sc.add_metric(d, "latency/littles_unloaded_ns", single_value(c.unloaded_latency_ns));
    if (d.sm_clock_mhz > 0)
      sc.add_metric(d, "latency/littles_unloaded_cycles", single_value(c.unloaded_latency_ns * d.sm_clock_mhz * 1e-3));
    const LatencyRise rise = latency_rise(c.envelope, sms, c.unloaded_latency_ns);
    if (rise.found) {
      sc.add_metric(d, "latency/doubled_at_bytes_per_sm", single_value(rise.bytes_per_sm));
      sc.add_metric(d, "latency/doubled_ns", single_value(rise.latency_ns));
    }
  }
  nlohmann::json env = nlohmann::json::array();
  for (const InflightPoint& p : c.envelope) env.push_back({p.bytes_per_sm, p.tbps});
  d.extra["envelope_bytes_per_sm_tbps"] = env;
  d.extra["knee_tbps"] = c.knee_tbps;
  return &d;
}

// Per source: the curve over every configuration of the sweep, as one derived record.
inline void summarize_inflight(SummaryContext& sc) {
  for (const std::string where : {"dram", "l2"})
    derive_inflight(sc, {{"source", where}, {"curve", std::string("knee")}}, sc.ok_records({{"source", where}}));
}

// --- the TMA ring: one thread per CTA keeps `stages` copies in flight ------------------------
constexpr int kMaxRingStages = 16;

// Copy t of CTA b is the grid's (t * CTAs + b)-th unit of `src` (a Source: bytes(), and
// issue(dst, unit, bar) starting the copy and completing on bar). The producer waits for the
// oldest slot, reads its first word (the data is used) and refills it. Only thread 0 works:
// one TMA instruction moves kilobytes, so one issuing thread is what TMA producers use.
template <class Source>
__global__ void __launch_bounds__(32) tma_ring_kernel(const __grid_constant__ Source src, int stages, int trips,
                                                       unsigned* sum, RegionTiming* timing) {
  extern __shared__ __align__(1024) char ring[];
  __shared__ alignas(8) unsigned long long full[kMaxRingStages];
  BlockClock clock;
  clock.begin();
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) ptx::mbarrier_init(ptx::smem_u32(&full[s]), 1);
    ptx::fence_mbarrier_init();
    const unsigned base = ptx::smem_u32(ring), bytes = src.bytes();
    const auto issue = [&](int t) {
      const int s = t % stages;
      const unsigned bar = ptx::smem_u32(&full[s]);
      ptx::mbarrier_arrive_expect_tx(bar, bytes);
      src.issue(base + unsigned(s) * bytes, (long long)t * gridDim.x + blockIdx.x, bar);
    };
    for (int t = 0; t < stages && t < trips; ++t) issue(t);
    unsigned acc = 0;
    for (int t = 0; t < trips; ++t) {
      const int s = t % stages;
      ptx::mbarrier_wait_parity(ptx::smem_u32(&full[s]), unsigned(t / stages) & 1u);
      acc += ptx::ld_shared_u32(base + unsigned(s) * bytes);
      if (t + stages < trips) issue(t + stages);
    }
    atomicAdd(sum, acc);
  }
  clock.end(timing);
}

// What a ring over `src` sums for `trips` trips of `blocks` CTAs: first_word(unit) is the host's
// view of the first 4 bytes a unit delivers.
template <class Source>
unsigned ring_expected_sum(const Source& src, int trips, unsigned blocks, unsigned seed) {
  unsigned want = 0;
  for (long long u = 0; u < (long long)trips * blocks; ++u) want += src.first_word(u, seed);
  return want;
}

struct RingShape {
  int ctas_per_sm = 1, stages = 1;
  int ctas = 0;  // CTAs in the grid, one per SM (ctas_per_sm must be 1); 0: ctas_per_sm on every SM
};

// Runs one ring point: checks the sum of a short run, then times launches of ~2 ms and emits
// bandwidth, depth and Little's-law latency. `make(window_base)` builds the Source reading
// from a window of the buffer (DRAM: a new window per launch, so L2 holds nothing of it).
template <class Source, class Make>
void run_ring(ProbeContext& ctx, const RingShape& shape, const std::string& where, const SourceBuffer& buf,
              const StreamSource& region, Make&& make) {
  if (shape.stages < 1 || shape.stages > kMaxRingStages)
    throw UserError("stages must be in 1.." + std::to_string(kMaxRingStages));
  const DeviceInfo& d = ctx.device();
  if (shape.ctas < 0 || (shape.ctas > 0 && shape.ctas_per_sm != 1))
    throw UserError("a ring over a CTA count runs one CTA per SM");
  if (shape.ctas > d.sm_count)
    ctx.skip(std::to_string(shape.ctas) + " CTAs requested, the chip has " + std::to_string(d.sm_count) +
             " SMs (one CTA per SM)");
  const Source probe_src = make(buf.bytes());
  const long long unit = probe_src.bytes();
  const int smem = int(unit * shape.stages) + 1024;  // + alignment slack for swizzled boxes
  const auto kernel = tma_ring_kernel<Source>;
  if (smem > d.shared_per_block_optin) ctx.skip("the ring (" + std::to_string(smem) + " B) exceeds shared memory per block");
  GD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int fit = 0;
  GD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, 32, smem));
  if (fit < shape.ctas_per_sm)
    ctx.skip(std::to_string(shape.ctas_per_sm) + " CTAs/SM requested, " + std::to_string(fit) + " fit (" +
             std::to_string(smem) + " B of shared memory each)");
  // A --functional run: two SMs' worth of CTAs, the occupancy of each SM unchanged.
  // A CTA count: that many SMs hold one CTA each (the block scheduler spreads a grid smaller than
  // the chip one block per SM); per SM means per busy SM.
  const int busy_sms = shape.ctas > 0 ? shape.ctas : d.sm_count;
  const unsigned blocks = ctx.sized(unsigned(busy_sms * shape.ctas_per_sm), unsigned(std::min(busy_sms, 2) * shape.ctas_per_sm));
  const long long trip_bytes = (long long)blocks * unit;
  const double inflight_per_sm = double(shape.ctas_per_sm) * shape.stages * unit;
  const long long bytes = launch_bytes(ctx, where, inflight_per_sm * busy_sms, trip_bytes, 4LL * shape.stages, region.buffer_bytes);
  const int trips = int(bytes / trip_bytes);
  DeviceBuffer<unsigned> sum(1);
  DeviceBuffer<RegionTiming> timing(blocks);
  const LaunchShape launch_shape{blocks, 32, std::size_t(smem)};

  const int check_trips = 2 * shape.stages + 1;
  sum.fill_zero();
  launch(ctx, kernel, launch_shape, probe_src, shape.stages, check_trips, sum.get(), timing.get());
  GD_CUDA_CHECK_LAUNCH();
  if (sum.to_host()[0] != ring_expected_sum(probe_src, check_trips, blocks, buf.seed))
    throw Error("the copies delivered other bytes than the source holds: the ring is not copying what it claims");

  const long long windows = where == "dram" ? region.buffer_bytes / bytes : 1;
  std::vector<Source> sources;
  for (long long w = 0; w < windows; ++w) sources.push_back(make(buf.bytes() + w * bytes));
  long long k = 0;
  const auto stream = [&] { launch(ctx, kernel, launch_shape, sources[std::size_t(k++ % windows)], shape.stages, trips, sum.get(), timing.get()); };
  const Summary tbps =
      measure_event_timed(ctx, stream, [&](double s) { return double(bytes) / s / 1e12; }, stream_policy()).summary;
  ctx.set_observed_sm_clock_mhz(clock_mhz(timing.to_host()),
                                "clock64 over %globaltimer, read by thread 0 of every block of the last timed launch");
  emit_inflight_point(ctx, tbps, inflight_per_sm, busy_sms);
  ctx.extra()["bytes_per_launch"] = bytes;
  ctx.extra()["shared_bytes_per_cta"] = smem;
  if (shape.ctas > 0) ctx.extra()["busy_sms"] = busy_sms;
}

}  // namespace
}  // namespace gd::async
