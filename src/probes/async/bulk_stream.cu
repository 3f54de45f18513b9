// TMA bulk-copy (cp.async.bulk, UBLKCP) read streams: one thread per CTA keeps a ring of
// mbarrier-tracked chunks in flight, swept over chunk size, stages and CTAs/SM, so the curve of
// bandwidth against bytes in flight shows how much a TMA producer must keep queued.
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

constexpr int kMaxStages = 16;

// Chunk t of CTA b is the grid's t-th stripe; the producer waits for the oldest chunk, reads a
// word of it (the data is used) and refills that slot. Only thread 0 works: a bulk copy moves
// kilobytes per instruction, so one issuing thread is what TMA producers use.
__global__ void __launch_bounds__(32) bulk_stream_kernel(const char* src, unsigned long long mask, unsigned chunk,
                                                          int stages, int trips, unsigned* sum, RegionTiming* timing) {
  extern __shared__ __align__(128) char ring[];
  __shared__ alignas(8) unsigned long long full[kMaxStages];
  BlockClock clock;
  clock.begin();
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) ptx::mbarrier_init(ptx::smem_u32(&full[s]), 1);
    ptx::fence_mbarrier_init();
    const unsigned base = ptx::smem_u32(ring);
    const unsigned long long trip_stride = (unsigned long long)gridDim.x * chunk;
    const unsigned long long first = (unsigned long long)blockIdx.x * chunk;
    const auto issue = [&](int t) {
      const int s = t % stages;
      const unsigned bar = ptx::smem_u32(&full[s]);
      ptx::mbarrier_arrive_expect_tx(bar, chunk);
      ptx::bulk_load(base + unsigned(s) * chunk, src + ((first + (unsigned long long)t * trip_stride) & mask), chunk, bar);
    };
    for (int t = 0; t < stages && t < trips; ++t) issue(t);
    unsigned acc = 0;
    for (int t = 0; t < trips; ++t) {
      const int s = t % stages;
      ptx::mbarrier_wait_parity(ptx::smem_u32(&full[s]), unsigned(t / stages) & 1u);
      acc += ptx::ld_shared_u32(base + unsigned(s) * chunk);
      if (t + stages < trips) issue(t + stages);
    }
    atomicAdd(sum, acc);
  }
  clock.end(timing);
}

unsigned expected_sum(const async::SourceBuffer& s, unsigned long long mask, unsigned chunk, int trips, unsigned blocks) {
  unsigned want = 0;
  for (int t = 0; t < trips; ++t)
    for (unsigned b = 0; b < blocks; ++b)
      want += async::source_word((((unsigned long long)b * chunk + (unsigned long long)t * blocks * chunk) & mask) / 4, s.seed);
  return want;
}

void run_bulk_stream(ProbeContext& ctx) {
  async::require_sm90_code(ctx);
  const DeviceInfo& d = ctx.device();
  const std::string where = ctx.str_param("source");
  const int ctas = int(ctx.int_param("ctas_per_sm"));
  const int stages = int(ctx.int_param("stages"));
  const long long chunk = ctx.int_param("chunk_bytes");
  if (stages < 1 || stages > kMaxStages) throw UserError("stages must be in 1.." + std::to_string(kMaxStages));
  if (chunk < 16 || chunk % 16 || chunk >= (1 << 20)) throw UserError("chunk_bytes must be a multiple of 16 below 1 MiB");
  const int smem = int(chunk * stages);
  if (smem > d.shared_per_block_optin) ctx.skip("the ring (" + std::to_string(smem) + " B) exceeds shared memory per block");
  GD_CUDA_CHECK(cudaFuncSetAttribute(bulk_stream_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int fit = 0;
  GD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, bulk_stream_kernel, 32, smem));
  if (fit < ctas)
    ctx.skip(std::to_string(ctas) + " CTAs/SM requested, " + std::to_string(fit) + " fit (" + std::to_string(smem) +
             " B of shared memory each)");

  const async::StreamSource src = async::stream_source(d, where);
  const async::SourceBuffer buf = async::make_source(ctx, src.buffer_bytes);
  const unsigned blocks = unsigned(d.sm_count * ctas);
  const long long trip_bytes = (long long)blocks * chunk;
  const double inflight_per_sm = double(ctas) * stages * chunk;
  const long long bytes = async::launch_bytes(d, where, inflight_per_sm * d.sm_count, trip_bytes, 4LL * stages, src.buffer_bytes);
  const int trips = int(bytes / trip_bytes);
  DeviceBuffer<unsigned> sum(1);
  DeviceBuffer<RegionTiming> timing(blocks);
  const LaunchShape shape{blocks, 32, std::size_t(smem)};

  const int check_trips = 2 * stages + 1;
  sum.fill_zero();
  launch(ctx, bulk_stream_kernel, shape, buf.bytes(), src.mask, unsigned(chunk), stages, check_trips, sum.get(), timing.get());
  GD_CUDA_CHECK_LAUNCH();
  if (sum.to_host()[0] != expected_sum(buf, src.mask, unsigned(chunk), check_trips, blocks))
    throw Error("the bulk copies delivered other bytes than the source holds");

  const long long windows = where == "dram" ? src.buffer_bytes / bytes : 1;
  long long k = 0;
  const auto stream = [&] {
    const char* from = buf.bytes() + (k++ % windows) * bytes;
    launch(ctx, bulk_stream_kernel, shape, from, src.mask, unsigned(chunk), stages, trips, sum.get(), timing.get());
  };
  const Summary tbps =
      measure_event_timed(ctx, stream, [&](double s) { return double(bytes) / s / 1e12; }, async::stream_policy()).summary;
  ctx.set_observed_sm_clock_mhz(clock_mhz(timing.to_host()),
                                "clock64 over %globaltimer, read by thread 0 of every block of the last timed launch");
  async::emit_inflight_point(ctx, tbps, inflight_per_sm);
  ctx.extra()["bytes_per_launch"] = bytes;
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
  s.sass = {expect_sass("*bulk_stream_kernel*", SassRegion::Whole, {{"UBLKCP", 1, -1}, {"SYNCS.ARRIVE", 1, -1}, {"SYNCS.PHASECHK", 1, -1}}),
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
