// cp.async (LDGSTS) read streams into a shared-memory ring, swept over bytes in flight per SM
// (CTAs/SM x threads x stages x copy size): where the knee lies tells a kernel author how deep a
// cp.async pipeline must be to reach DRAM or L2 bandwidth, and Little's law gives the latency.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "analysis/fit.hpp"
#include "core/launch.cuh"
#include "core/ptx_async.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "async_common.cuh"

namespace gd {
namespace probe_cp_async {

using ptx::CpAsyncCache;

// The variants: copy size, cache operator, zero-fill; `full` rows sweep every axis value, the
// others a slice of it (one thread count, two CTA counts) to keep the run short.
template <int Bytes, CpAsyncCache Cache, bool Zfill, bool Full, bool L2Fetch256 = false>
struct CpRow {
  static constexpr int bytes = Bytes;
  static constexpr CpAsyncCache cache = Cache;
  static constexpr bool zfill = Zfill;
  static constexpr bool full = Full;
  static constexpr bool l2_fetch_256 = L2Fetch256;
};
struct Cg16 : CpRow<16, CpAsyncCache::Cg, false, true> {
  static constexpr const char* name = "cg16";
  static constexpr const char* tag = "Cg16";
  static constexpr const char* sass = "LDGSTS.E.BYPASS.128";
};
struct Ca16 : CpRow<16, CpAsyncCache::Ca, false, false> {
  static constexpr const char* name = "ca16";
  static constexpr const char* tag = "Ca16";
  static constexpr const char* sass = "LDGSTS.E.128";
};
struct Ca8 : CpRow<8, CpAsyncCache::Ca, false, false> {
  static constexpr const char* name = "ca8";
  static constexpr const char* tag = "Ca8";
  static constexpr const char* sass = "LDGSTS.E.64";
};
struct Ca4 : CpRow<4, CpAsyncCache::Ca, false, false> {
  static constexpr const char* name = "ca4";
  static constexpr const char* tag = "Ca4";
  static constexpr const char* sass = "LDGSTS.E";
};
// 8 of the 16 bytes from global, the rest zero-filled (the predicated-tail idiom).
struct Cg16Zfill : CpRow<16, CpAsyncCache::Cg, true, false> {
  static constexpr const char* name = "cg16_zfill";
  static constexpr const char* tag = "Cg16Zfill";
  static constexpr const char* sass = "LDGSTS.E.BYPASS.128.ZFILL";
};

// 16 bytes .cg with the .L2::256B prefetch size: whether asking L2 for whole 256-byte blocks
// lifts the DRAM stream (each warp already reads 512 contiguous bytes per instruction).
struct Cg16L2Fetch256 : CpRow<16, CpAsyncCache::Cg, false, false, true> {
  static constexpr const char* name = "cg16_l2_256";
  static constexpr const char* tag = "Cg16L2Fetch256";
  static constexpr const char* sass = "LDGSTS.E.BYPASS.LTC256B.128";
};

// 12: the SM_100 study's MLA kernel setting (2 warps, 12 stages); the full rows sweep it.
constexpr int kStages[] = {1, 2, 4, 8, 12, 16};
constexpr int kMaxThreads = 256;

// Each thread keeps `Stages` copies of its own slot in flight and consumes only what it copied
// itself, so wait_group alone orders the data (no block barrier in the loop). Trip t of CTA b
// reads the grid's t-th stripe; `mask` wraps addresses inside an L2-resident region.
template <class Row, int Stages>
__global__ void __launch_bounds__(kMaxThreads) cp_async_stream_kernel(const char* src, unsigned long long mask, int trips,
                                                                     unsigned* sum, RegionTiming* timing) {
  extern __shared__ __align__(16) char ring[];
  BlockClock clock;
  clock.begin();
  const unsigned slot_stride = blockDim.x * Row::bytes;
  const unsigned mine = ptx::smem_u32(ring) + threadIdx.x * Row::bytes;
  const unsigned long long first = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) * Row::bytes;
  const unsigned long long trip_stride = (unsigned long long)gridDim.x * slot_stride;
  const auto issue = [&](int t) {
    if (t < trips) {
      const unsigned dst = mine + unsigned(t % Stages) * slot_stride;
      const char* from = src + ((first + (unsigned long long)t * trip_stride) & mask);
      if constexpr (Row::zfill) ptx::cp_async_cg16_zfill(dst, from, 8);
      else if constexpr (Row::l2_fetch_256) ptx::cp_async_cg16_l2_256(dst, from);
      else ptx::cp_async<Row::bytes, Row::cache>(dst, from);
    }
    ptx::cp_async_commit();  // empty groups past the end keep the wait count uniform
  };
  unsigned acc = 0;
#pragma unroll
  for (int s = 0; s < Stages - 1; ++s) issue(s);
#pragma unroll 1
  for (int t = 0; t < trips; ++t) {
    issue(t + Stages - 1);
    ptx::cp_async_wait<Stages - 1>();
    const unsigned at = mine + unsigned(t % Stages) * slot_stride;
    acc += ptx::ld_shared_u32(at);
    if constexpr (Row::zfill) acc += ptx::ld_shared_u32(at + 12);  // must be the filled zero
  }
  atomicAdd(sum, acc);
  clock.end(timing);
}

template <class Row>
using StreamKernel = void (*)(const char*, unsigned long long, int, unsigned*, RegionTiming*);

template <class Row>
StreamKernel<Row> stream_kernel(int stages) {
  switch (stages) {
    case 1: return cp_async_stream_kernel<Row, 1>;
    case 2: return cp_async_stream_kernel<Row, 2>;
    case 4: return cp_async_stream_kernel<Row, 4>;
    case 8: return cp_async_stream_kernel<Row, 8>;
    case 12: return cp_async_stream_kernel<Row, 12>;
    case 16: return cp_async_stream_kernel<Row, 16>;
    default: throw UserError("no cp.async ring with " + std::to_string(stages) + " stages (1, 2, 4, 8, 12, 16)");
  }
}

// What the kernel's sum must be for `trips` trips over the source (mod 2^32).
template <class Row>
unsigned expected_sum(const async::SourceBuffer& s, unsigned long long offset, unsigned long long mask, int trips,
                      unsigned blocks, unsigned threads) {
  unsigned want = 0;
  const unsigned long long trip_stride = (unsigned long long)blocks * threads * Row::bytes;
  for (int t = 0; t < trips; ++t)
    for (unsigned long long i = 0; i < (unsigned long long)blocks * threads; ++i)
      want += async::source_word((offset + ((i * Row::bytes + t * trip_stride) & mask)) / 4, s.seed);
  return want;
}

template <class Row>
void run_cp_async_stream(ProbeContext& ctx) {
  const DeviceInfo& d = ctx.device();
  const std::string where = ctx.str_param("source");
  const int ctas = int(ctx.int_param("ctas_per_sm"));
  const int stages = int(ctx.int_param("stages"));
  const int threads = int(ctx.int_param("threads"));
  if (threads < 32 || threads > kMaxThreads || threads % 32) throw UserError("threads must be a multiple of 32 in 32..256");
  const StreamKernel<Row> kernel = stream_kernel<Row>(stages);
  const int smem = threads * stages * Row::bytes;
  if (smem > d.shared_per_block_optin) ctx.skip("the ring (" + std::to_string(smem) + " B) exceeds shared memory per block");
  GD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int fit = 0;
  GD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, threads, smem));
  if (fit < ctas)
    ctx.skip(std::to_string(ctas) + " CTAs/SM requested, " + std::to_string(fit) + " fit (" + std::to_string(smem) +
             " B of shared memory each)");

  const async::StreamSource src = async::stream_source(ctx, where);
  const async::SourceBuffer buf = async::make_source(ctx, src.buffer_bytes);
  const unsigned blocks = ctx.sized(unsigned(d.sm_count * ctas), unsigned(2 * ctas));  // --functional: two SMs' worth
  const long long trip_bytes = (long long)blocks * threads * Row::bytes;
  const double inflight_per_sm = double(ctas) * threads * stages * Row::bytes;
  const long long bytes = async::launch_bytes(ctx, where, inflight_per_sm * d.sm_count, trip_bytes, 4LL * stages, src.buffer_bytes);
  const int trips = int(bytes / trip_bytes);
  DeviceBuffer<unsigned> sum(1);
  DeviceBuffer<RegionTiming> timing(blocks);
  const LaunchShape shape{blocks, unsigned(threads), std::size_t(smem)};

  // Reference first: a short run must deliver exactly the words the host expects.
  const int check_trips = stages + 2;
  sum.fill_zero();
  launch(ctx, kernel, shape, buf.bytes(), src.mask, check_trips, sum.get(), timing.get());
  GD_CUDA_CHECK_LAUNCH();
  if (sum.to_host()[0] != expected_sum<Row>(buf, 0, src.mask, check_trips, blocks, unsigned(threads)))
    throw Error("cp.async delivered other bytes than the source holds: the ring is not copying what it claims");

  // DRAM launches each read a new window of the buffer, so nothing is left in L2 from the last.
  const long long windows = where == "dram" ? src.buffer_bytes / bytes : 1;
  long long k = 0;
  const auto stream = [&] {
    const char* from = buf.bytes() + (k++ % windows) * bytes;
    launch(ctx, kernel, shape, from, src.mask, trips, sum.get(), timing.get());
  };
  const Summary tbps =
      measure_event_timed(ctx, stream, [&](double s) { return double(bytes) / s / 1e12; }, async::stream_policy()).summary;
  ctx.set_observed_sm_clock_mhz(clock_mhz(timing.to_host()),
                                "clock64 over %globaltimer, read by thread 0 of every block of the last timed launch");
  async::emit_inflight_point(ctx, tbps, inflight_per_sm);
  ctx.extra()["bytes_per_launch"] = bytes;
  ctx.extra()["shared_bytes_per_cta"] = smem;
}

// Per source, CTAs/SM and thread count: the curve over stages, its best and the least stages
// reaching 95 % of it (the depth a pipeline of that shape needs).
void summarize_over_stages(SummaryContext& sc) {
  std::vector<Params> shapes;
  for (const Record* r : sc.ok_records()) {
    Params g;
    for (const char* axis : {"source", "ctas_per_sm", "threads"})
      if (const ParamValue* v = find_param(r->params, axis)) g.emplace_back(axis, *v);
    if (g.size() == 3 && find_param(r->params, "stages") && std::find(shapes.begin(), shapes.end(), g) == shapes.end()) shapes.push_back(g);
  }
  for (const Params& g : shapes) {
    std::vector<std::pair<double, const Record*>> by_stages;
    for (const Record* r : sc.ok_records(g))
      if (const ParamValue* st = find_param(r->params, "stages");
          st && std::holds_alternative<std::int64_t>(*st) && r->metric("bandwidth/tbps"))
        by_stages.push_back({double(std::get<std::int64_t>(*st)), r});
    if (by_stages.size() < 2) continue;  // one point is no curve
    std::sort(by_stages.begin(), by_stages.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<double> x, y;
    std::vector<const Record*> srcs;
    for (const auto& [st, r] : by_stages) {
      x.push_back(st);
      y.push_back(r->metric("bandwidth/tbps")->value());
      srcs.push_back(r);
    }
    const Knee k = find_knee(x, y);
    Params p = g;
    p.emplace_back("curve", std::string("over_stages"));
    Record& d = sc.derive(p, srcs);
    sc.add_metric(d, "bandwidth/tbps", single_value(k.peak));
    sc.add_metric(d, "knee/stages", single_value(k.x));
    nlohmann::json curve = nlohmann::json::array();
    for (std::size_t i = 0; i < x.size(); ++i) curve.push_back({x[i], y[i]});
    d.extra["stages_tbps"] = curve;
  }
}

void summarize_cp_async(SummaryContext& sc) {
  async::summarize_inflight(sc);
  summarize_over_stages(sc);
}

// The seed items each row measures (gpudissect coverage): the knee record of the DRAM curve, and
// for 16-byte .cg the SM_100 study's MLA configurations (1 CTA/SM, 64/128/256 threads): their
// curves over stages, and the MLA kernel's own point (2 warps, 12 stages).
std::vector<SeedCover> cp_async_covers(const std::string& row) {
  const Params knee{{"source", std::string("dram")}, {"curve", std::string("knee")}};
  if (row == "ca8") return {{"async.cp_async.bw_vs_inflight.8b", "bandwidth/tbps", knee}};
  if (row == "ca4") return {{"async.cp_async.bw_vs_inflight.4b", "bandwidth/tbps", knee}};
  if (row != "cg16") return {};
  const auto mla = [](std::int64_t threads) {
    return Params{{"source", std::string("dram")}, {"ctas_per_sm", std::int64_t(1)}, {"threads", threads},
                  {"curve", std::string("over_stages")}};
  };
  const Params mla_kernel{{"source", std::string("dram")}, {"ctas_per_sm", std::int64_t(1)}, {"threads", std::int64_t(64)},
                          {"stages", std::int64_t(12)}};
  return {{"async.cp_async.bw_vs_inflight.16b", "bandwidth/tbps", knee},
          {"async.cp_async.saturation_inflight", "knee/bytes_per_sm", knee},
          {"async.cp_async.peak_bw", "bandwidth/tbps", knee},
          {"async.cp_async.latency_base", "latency/littles_unloaded_ns", knee},
          {"async.cp_async.latency_vs_inflight", "latency/littles_knee_ns", knee},
          {"async.cp_async.latency_knee", "latency/doubled_at_bytes_per_sm", knee},
          {"async.cp_async.mla.bw_2warps_12stages", "bandwidth/tbps", mla_kernel},
          {"async.cp_async.mla.bw_vs_stages.t64", "bandwidth/tbps", mla(64)},
          {"async.cp_async.mla.bw_vs_stages.t128", "bandwidth/tbps", mla(128)},
          {"async.cp_async.mla.bw_vs_stages.t256", "bandwidth/tbps", mla(256)}};
}

template <class Row>
ProbeSpec cp_async_spec() {
  ProbeSpec s;
  s.id = std::string("async.cp_async.") + Row::name;
  s.description = std::string("cp.async ") + Row::name + " read stream into a shared-memory ring: bandwidth vs bytes in flight per SM";
  s.axes = {Axis::list("source", std::vector<std::string>{"dram", "l2"}),
            Row::full ? std::move(Axis::list("ctas_per_sm", {1, 2, 3, 4})).quick({1, 4}) : Axis::list("ctas_per_sm", std::vector<std::int64_t>{1, 4}),
            Row::full ? std::move(Axis::list("stages", {1, 2, 4, 8, 12, 16})).quick({1, 4, 16})
                      : std::move(Axis::list("stages", {1, 2, 4, 8, 16})).quick({1, 4, 16}),
            Row::full ? std::move(Axis::list("threads", {64, 128, 256})).quick({256}) : Axis::list("threads", std::vector<std::int64_t>{256})};
  for (int st : kStages) {
    const std::string tmpl = std::string("*cp_async_stream_kernel<*::") + Row::tag + ", " + std::to_string(st) + ">*";
    // The prologue and the loop each hold the copy: the loop's is the one timed.
    s.sass.push_back(expect_sass(tmpl, SassRegion::Whole, {{Row::sass, 1, -1}, {"LDGDEPBAR", 1, -1}, {"DEPBAR", 1, -1}}));
  }
  s.sass.push_back(async::fill_source_sass());
  s.metrics = async::inflight_metrics();
  s.metrics.push_back({"knee/stages", "stages", "derived per CTAs/SM and threads: least stages reaching 95 % of the best"});
  s.run = run_cp_async_stream<Row>;
  s.summarize = summarize_cp_async;
  s.covers = cp_async_covers(Row::name);
  s.time_cap_s = Row::full ? 30 : 8;
  s.quick_time_cap_s = Row::full ? 5 : 2;
  return s;
}

template <class... Rows>
bool register_rows() {
  (ProbeRegistration{cp_async_spec<Rows>()}, ...);
  return true;
}
[[maybe_unused]] const bool registered = register_rows<Cg16, Ca16, Ca8, Ca4, Cg16Zfill, Cg16L2Fetch256>();

}  // namespace probe_cp_async
}  // namespace gd
