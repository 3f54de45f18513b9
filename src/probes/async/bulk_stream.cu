// TMA bulk-copy (cp.async.bulk, UBLKCP) read streams: one thread per CTA keeps a ring of
// mbarrier-tracked chunks in flight (async_common.cuh), swept over chunk size, stages and CTAs/SM:
// the curve of bandwidth against bytes in flight shows how much a TMA producer must keep queued.
#include <cstdint>
#include <string>
#include <vector>

#include "core/launch.cuh"
#include "core/ptx_async.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "async_common.cuh"

namespace gd {
namespace {

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

void run_bulk_stream(ProbeContext& ctx, bool evict_first) {
  async::require_sm90_code(ctx);
  const std::string where = ctx.str_param("source");
  const long long chunk = ctx.int_param("chunk_bytes");
  if (chunk < 16 || chunk % 16 || chunk >= (1 << 20)) throw UserError("chunk_bytes must be a multiple of 16 below 1 MiB");
  const async::StreamSource region = async::stream_source(ctx, where);
  const async::SourceBuffer buf = async::make_source(ctx, region.buffer_bytes);
  const async::RingShape shape{int(ctx.int_param("ctas_per_sm")), int(ctx.int_param("stages"))};
  async::run_ring<BulkSource>(ctx, shape, where, buf, region, [&](const char* from) {
    return BulkSource{from, region.mask, unsigned(chunk), from - buf.bytes(), evict_first};
  });
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
  s.summarize = async::summarize_inflight;
  s.time_cap_s = evict_first ? 4 : 25;
  s.quick_time_cap_s = evict_first ? 1 : 5;
  return s;
}

GD_REGISTER_PROBE(bulk_stream_spec(false));
GD_REGISTER_PROBE(bulk_stream_spec(true));

}  // namespace
}  // namespace gd
