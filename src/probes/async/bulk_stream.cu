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
  __host__ __device__ unsigned bytes() const { return chunk; }
  __device__ void issue(unsigned dst, long long u, unsigned bar) const {
    ptx::bulk_load(dst, src + (((unsigned long long)u * chunk) & mask), chunk, bar);
  }
  unsigned first_word(long long u, unsigned seed) const {
    return async::source_word((base_offset + (((unsigned long long)u * chunk) & mask)) / 4, seed);
  }
};

void run_bulk_stream(ProbeContext& ctx) {
  async::require_sm90_code(ctx);
  const std::string where = ctx.str_param("source");
  const long long chunk = ctx.int_param("chunk_bytes");
  if (chunk < 16 || chunk % 16 || chunk >= (1 << 20)) throw UserError("chunk_bytes must be a multiple of 16 below 1 MiB");
  const async::StreamSource region = async::stream_source(ctx.device(), where);
  const async::SourceBuffer buf = async::make_source(ctx, region.buffer_bytes);
  const async::RingShape shape{int(ctx.int_param("ctas_per_sm")), int(ctx.int_param("stages"))};
  async::run_ring<BulkSource>(ctx, shape, where, buf, region, [&](const char* from) {
    return BulkSource{from, region.mask, unsigned(chunk), from - buf.bytes()};
  });
}

ProbeSpec bulk_stream_spec() {
  ProbeSpec s;
  s.id = "async.bulk.load";
  s.description = "TMA bulk copy (cp.async.bulk global->shared) read stream with an mbarrier ring: bandwidth vs bytes in flight per SM";
  s.needs.min_cc = 90;
  s.needs.features = {Feature::Tma};
  s.axes = {Axis::list("source", std::vector<std::string>{"dram", "l2"}),
            std::move(Axis::list("ctas_per_sm", {1, 2, 4})).quick({1, 2}),
            std::move(Axis::list("stages", {1, 2, 4, 8})).quick({1, 4}),
            std::move(Axis::list("chunk_bytes", {2048, 4096, 8192, 16384})).quick({4096, 16384})};
  s.sass = {expect_sass("*tma_ring_kernel<*::BulkSource>*", SassRegion::Whole, {{"UBLKCP", 1, -1}, {"SYNCS.ARRIVE", 1, -1}, {"SYNCS.PHASECHK", 1, -1}}),
            async::fill_source_sass()};
  s.metrics = async::inflight_metrics();
  s.run = run_bulk_stream;
  s.summarize = async::summarize_inflight;
  s.time_cap_s = 25;
  s.quick_time_cap_s = 5;
  return s;
}

GD_REGISTER_PROBE(bulk_stream_spec());

}  // namespace
}  // namespace gd
