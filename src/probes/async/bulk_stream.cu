// TMA bulk-copy (cp.async.bulk, UBLKCP) read streams: one thread per CTA keeps a ring of
// mbarrier-tracked chunks in flight (async_common.cuh), swept over chunk size, stages and CTAs/SM:
// the curve of bandwidth against bytes in flight shows how much a TMA producer must keep queued.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
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
namespace probe_bulk_stream {

// Unit u is the u-th chunk of the source (wrapped inside an L2 region by mask).
struct BulkSource {
  const char* src;
  unsigned long long mask;
  unsigned chunk;
  long long base_offset;  // of src within the filled buffer, for the host's view
  bool evict_first;       // copies carry an L2 evict_first policy (.L2::cache_hint): read-once data
  __host__ __device__ unsigned bytes() const { return chunk; }
  __device__ void issue(unsigned dst, long long u, unsigned bar) const {
    const char* from = src + (((unsigned long long)u * chunk) & mask);
    if (evict_first) ptx::bulk_load_hint(dst, from, chunk, bar, ptx::l2_policy_evict_first());
    else ptx::bulk_load(dst, from, chunk, bar);
  }
  unsigned first_word(long long u, unsigned seed) const {
    return async::source_word((base_offset + (((unsigned long long)u * chunk) & mask)) / 4, seed);
  }
};

void run_bulk_ring(ProbeContext& ctx, const async::RingShape& shape, long long chunk, bool evict_first) {
  async::require_sm90_code(ctx);
  const std::string where = ctx.str_param("source");
  if (chunk < 16 || chunk % 16 || chunk >= (1 << 20)) throw UserError("chunk_bytes must be a multiple of 16 below 1 MiB");
  const async::StreamSource region = async::stream_source(ctx, where);
  const async::SourceBuffer buf = async::make_source(ctx, region.buffer_bytes);
  async::run_ring<BulkSource>(ctx, shape, where, buf, region, [&](const char* from) {
    return BulkSource{from, region.mask, unsigned(chunk), from - buf.bytes(), evict_first};
  });
}

void run_bulk_stream(ProbeContext& ctx, bool evict_first) {
  run_bulk_ring(ctx, {int(ctx.int_param("ctas_per_sm")), int(ctx.int_param("stages"))}, ctx.int_param("chunk_bytes"),
                evict_first);
}

// The number of a point's axis (an integer param), or nullopt.
std::optional<double> int_axis(const Record& r, const char* axis) {
  const ParamValue* v = find_param(r.params, axis);
  if (!v || !std::holds_alternative<std::int64_t>(*v)) return std::nullopt;
  return double(std::get<std::int64_t>(*v));
}

// The curve of `pts` over x(record) (best bandwidth per distinct x, ascending) and its knee at
// `fraction` of the best, as a derived record with `params`: bandwidth/tbps the best,
// `knee_metric` the least x reaching the fraction. Nothing with fewer than two distinct x.
template <class X>
Record* derive_knee_over(SummaryContext& sc, Params params, const std::vector<const Record*>& pts, X&& x,
                         const char* knee_metric, double fraction) {
  std::map<double, double> best;
  std::vector<const Record*> used;
  for (const Record* r : pts) {
    const std::optional<double> at = x(*r);
    if (!at || !r->metric("bandwidth/tbps")) continue;
    const double bw = r->metric("bandwidth/tbps")->value();
    auto [it, fresh] = best.emplace(*at, bw);
    if (!fresh) it->second = std::max(it->second, bw);
    used.push_back(r);
  }
  if (best.size() < 2) return nullptr;
  std::vector<double> xs, ys;
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& [k, v] : best) {
    xs.push_back(k);
    ys.push_back(v);
    curve.push_back({k, v});
  }
  const Knee k = find_knee(xs, ys, fraction);
  Record& d = sc.derive(std::move(params), used);
  sc.add_metric(d, "bandwidth/tbps", single_value(k.peak));
  sc.add_metric(d, knee_metric, single_value(k.x));
  d.extra["curve"] = curve;
  return &d;
}

// The plain ring: per source and chunk size, the TMA copies in flight per SM (CTAs/SM x stages)
// that reach 90 % of that chunk's best bandwidth.
void summarize_bulk_stream(SummaryContext& sc) {
  async::summarize_inflight(sc);
  for (const std::string where : {"dram", "l2"})
    for (const std::int64_t chunk : {2048, 4096, 8192, 16384}) {
      const auto ops = [](const Record& r) -> std::optional<double> {
        const auto ctas = int_axis(r, "ctas_per_sm"), stages = int_axis(r, "stages");
        if (!ctas || !stages) return std::nullopt;
        return *ctas * *stages;
      };
      derive_knee_over(sc, {{"source", where}, {"chunk_bytes", chunk}, {"curve", std::string("ops_for_90pct")}},
                       sc.ok_records({{"source", where}, {"chunk_bytes", chunk}}), ops, "ops/for_90pct_per_sm", 0.9);
    }
}

// The evict_first ring's curve; its points ran the L2::cache_hint form of the bulk copy and each
// delivered the bytes the host expects (run_ring checks), which the knee record says.
void summarize_evict_first(SummaryContext& sc) {
  for (const std::string where : {"dram", "l2"})
    if (Record* k = async::derive_inflight(sc, {{"source", where}, {"curve", std::string("knee")}}, sc.ok_records({{"source", where}})))
      k->extra["l2_cache_hint"] = "yes: every cp.async.bulk carried .L2::cache_hint with a createpolicy evict_first "
                                  "policy and delivered the bytes the host expects";
}

// The plain ring sweeps every shape; the evict_first ring only the DRAM shapes near the knee,
// to tell whether keeping read-once data out of L2's way lifts the plateau.
ProbeSpec bulk_stream_spec(bool evict_first) {
  ProbeSpec s;
  s.id = evict_first ? "async.bulk.load_evict_first" : "async.bulk.load";
  s.description = std::string("TMA bulk copy (cp.async.bulk global->shared) read stream with an mbarrier ring") +
                  (evict_first ? ", L2 evict_first policy on every copy" : "") + ": bandwidth vs bytes in flight per SM";
  s.needs.min_cc = 90;
  s.needs.features = {Feature::Tma};
  if (evict_first)
    s.axes = {Axis::list("source", std::vector<std::string>{"dram"}), Axis::list("ctas_per_sm", std::vector<std::int64_t>{1, 2}),
              std::move(Axis::list("stages", {4, 8})).quick({4}), Axis::list("chunk_bytes", std::vector<std::int64_t>{16384})};
  else
    s.axes = {Axis::list("source", std::vector<std::string>{"dram", "l2"}),
              std::move(Axis::list("ctas_per_sm", {1, 2, 4})).quick({1, 2}),
              std::move(Axis::list("stages", {1, 2, 4, 8})).quick({1, 4}),
              std::move(Axis::list("chunk_bytes", {2048, 4096, 8192, 16384})).quick({4096, 16384})};
  s.sass = {expect_sass("*tma_ring_kernel<*::BulkSource>*", SassRegion::Whole, {{"UBLKCP", 1, -1}, {"SYNCS.ARRIVE", 1, -1}, {"SYNCS.PHASECHK", 1, -1}}),
            async::fill_source_sass()};
  s.metrics = async::inflight_metrics();
  s.run = [evict_first](ProbeContext& ctx) { run_bulk_stream(ctx, evict_first); };
  if (evict_first) {
    s.summarize = summarize_evict_first;
    s.covers = {{"cache_ops.l2_cache_hint", "extra.l2_cache_hint", {{"source", std::string("dram")}, {"curve", std::string("knee")}}}};
  } else {
    s.metrics.push_back({"ops/for_90pct_per_sm", "copies", "derived per chunk size: least copies in flight per SM (CTAs/SM x stages) reaching 90 % of the best"});
    s.summarize = summarize_bulk_stream;
    s.covers = {{"async.tma.outstanding_for_90pct", "ops/for_90pct_per_sm",
                 {{"source", std::string("dram")}, {"chunk_bytes", std::int64_t(4096)}, {"curve", std::string("ops_for_90pct")}}}};
  }
  s.time_cap_s = evict_first ? 4 : 25;
  s.quick_time_cap_s = evict_first ? 1 : 5;
  return s;
}

// The CTA-count sweep: one CTA per SM on `ctas` SMs, each keeping 8 copies of 16 KiB in flight
// (past one SM's knee), so the aggregate grows with the SMs until DRAM or L2 saturates.
constexpr int kCtaStages = 8;
constexpr std::int64_t kCtaChunk = 16384;

// Per source: the best aggregate bandwidth, the least CTAs reaching 95 % of it, and the slope of
// the rise (a line through the points below half the best, through the origin's side).
void summarize_bulk_ctas(SummaryContext& sc) {
  for (const std::string where : {"dram", "l2"}) {
    const std::vector<const Record*> pts = sc.ok_records({{"source", where}});
    Record* d = derive_knee_over(sc, {{"source", where}, {"curve", std::string("over_ctas")}}, pts,
                                 [](const Record& r) { return int_axis(r, "ctas"); }, "ctas/to_saturate", 0.95);
    if (!d) continue;
    const double best = d->metric("bandwidth/tbps")->value();
    std::vector<double> x, y;
    for (const Record* r : pts)
      if (const auto c = int_axis(*r, "ctas"); c && r->metric("bandwidth/tbps") && r->metric("bandwidth/tbps")->value() < 0.5 * best) {
        x.push_back(*c);
        y.push_back(r->metric("bandwidth/tbps")->value() * 1e3);
      }
    if (x.size() >= 2) {
      const LineFit f = fit_line(x, y);
      sc.add_metric(*d, "rise/gbps_per_cta", single_value(f.slope));
      d->extra["rise_fit"] = {{"points", x.size()}, {"intercept_gbps", f.intercept}, {"r2", f.r2}};
    }
  }
}

ProbeSpec bulk_ctas_spec() {
  ProbeSpec s;
  s.id = "async.bulk.ctas";
  s.description = "TMA bulk-copy read stream on 1 to all SMs (one CTA each, 8 x 16 KiB in flight): aggregate "
                  "bandwidth vs CTA count and the CTAs that saturate DRAM or L2";
  s.needs.min_cc = 90;
  s.needs.features = {Feature::Tma};
  // CTA counts past the chip's SM count skip; 110 is the SM_120 study's point.
  s.axes = {Axis::list("source", std::vector<std::string>{"dram", "l2"}),
            std::move(Axis::list("ctas", {1, 2, 4, 8, 16, 24, 32, 48, 64, 76, 96, 110, 128, 132, 144, 160, 188}))
                .quick({1, 16, 64})};
  s.sass = {expect_sass("*tma_ring_kernel<*::BulkSource>*", SassRegion::Whole, {{"UBLKCP", 1, -1}, {"SYNCS.ARRIVE", 1, -1}, {"SYNCS.PHASECHK", 1, -1}}),
            async::fill_source_sass()};
  s.metrics = async::inflight_metrics();
  s.metrics.push_back({"ctas/to_saturate", "CTAs", "derived: least CTAs reaching 95 % of the best aggregate bandwidth"});
  s.metrics.push_back({"rise/gbps_per_cta", "GB/s", "derived: slope of bandwidth over CTAs below half the best (least squares)"});
  s.run = [](ProbeContext& ctx) {
    const int ctas = int(ctx.int_param("ctas"));
    if (ctas < 1) throw UserError("ctas must be positive");
    ctx.extra()["chunk_bytes"] = kCtaChunk;
    run_bulk_ring(ctx, {1, kCtaStages, ctas}, kCtaChunk, false);
  };
  s.summarize = summarize_bulk_ctas;
  const Params dram_curve{{"source", std::string("dram")}, {"curve", std::string("over_ctas")}};
  s.covers = {{"async.tma.bw_vs_ctas", "rise/gbps_per_cta", dram_curve},
              {"async.tma.ctas_to_saturate_dram", "ctas/to_saturate", dram_curve},
              {"async.tma.bw_110_ctas", "bandwidth/tbps", {{"source", std::string("dram")}, {"ctas", std::int64_t(110)}}}};
  s.time_cap_s = 25;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(bulk_stream_spec(false));
GD_REGISTER_PROBE(bulk_stream_spec(true));
GD_REGISTER_PROBE(bulk_ctas_spec());

}  // namespace probe_bulk_stream
}  // namespace gd
