// TMA bulk copies from a CTA's shared memory into its peer's in the cluster (cp.async.bulk
// .shared::cluster.shared::cta): a flow-controlled ring, bandwidth per SM by chunk size and
// depth: how fast a producer CTA can hand tiles to a neighbour.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/event_timing.hpp"
#include "core/launch_ex.cuh"
#include "core/ptx_async.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "async_common.cuh"

namespace gd {
namespace probe_bulk_cluster {

constexpr int kMaxStages = 8;
constexpr unsigned kClusterSize = 2;

__host__ __device__ __forceinline__ unsigned chunk_word0(unsigned seed, unsigned block) { return seed ^ (block * 0x9E3779B1u); }

// Warp 0 lane 0 produces: it copies the CTA's source chunk into slot t % stages of its peer,
// completing on the peer's full[slot], after the peer has freed the slot (empty[slot], arrived
// remotely by the peer's consumer). Warp 1 lane 0 consumes its own ring: expects the bytes,
// waits, reads the slot's first word, frees the slot at its producer.
// The destination is always the other CTA: with the CTA itself as destination (through mapa of
// its own rank, or its own shared::cta address) compute-sanitizer's memcheck reports every copy
// as "Invalid __shared__ write ... not located in remote CTA" (H200, this project's runs), so
// this form is only for a remote destination and the probe measures no own-CTA target.
__global__ void __launch_bounds__(64) bulk_cluster_ring_kernel(int stages, int trips, unsigned chunk, unsigned seed,
                                                               unsigned* sum, RegionTiming* timing) {
  extern __shared__ __align__(128) unsigned char cl_smem[];
  __shared__ alignas(8) unsigned long long full[kMaxStages], empty[kMaxStages];
  const unsigned src = ptx::smem_u32(cl_smem), ring = src + chunk;
  for (unsigned i = threadIdx.x; i < chunk / 4; i += blockDim.x)
    reinterpret_cast<unsigned*>(cl_smem)[i] = i == 0 ? chunk_word0(seed, blockIdx.x) : i;
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) {
      ptx::mbarrier_init(ptx::smem_u32(&full[s]), 1);
      ptx::mbarrier_init(ptx::smem_u32(&empty[s]), 1);
    }
    ptx::fence_mbarrier_init();
  }
  ptx::fence_proxy_async_shared();  // the source chunk, written by threads, is read by the async proxy
  ptx::cluster_sync();
  const unsigned rank = ptx::cluster_ctarank();
  const unsigned target = rank ^ 1u;  // whose ring this CTA fills
  const unsigned source = target;     // who fills this CTA's ring (symmetric pairs)
  BlockClock clock;
  clock.begin();
  if (threadIdx.x == 0) {
    for (int t = 0; t < trips; ++t) {
      const int s = t % stages;
      if (t >= stages) ptx::mbarrier_wait_parity(ptx::smem_u32(&empty[s]), unsigned(t / stages - 1) & 1u);
      ptx::bulk_copy_to_cluster(ptx::mapa_shared(ring + unsigned(s) * chunk, target), src, chunk,
                                ptx::mapa_shared(ptx::smem_u32(&full[s]), target));
    }
  } else if (threadIdx.x == 32) {
    unsigned acc = 0;
    for (int t = 0; t < trips; ++t) {
      const int s = t % stages;
      ptx::mbarrier_arrive_expect_tx(ptx::smem_u32(&full[s]), chunk);
      ptx::mbarrier_wait_parity(ptx::smem_u32(&full[s]), unsigned(t / stages) & 1u);
      acc += ptx::ld_shared_u32(ring + unsigned(s) * chunk);
      ptx::mbarrier_arrive_cluster(ptx::mapa_shared(ptx::smem_u32(&empty[s]), source));
    }
    atomicAdd(sum, acc);
  }
  __syncthreads();
  clock.end(timing);
  ptx::cluster_sync();  // no CTA leaves while its peer may still copy into it or arrive on it
}

void run_bulk_cluster(ProbeContext& ctx) {
  async::require_sm90_code(ctx);
  const DeviceInfo& d = ctx.device();
  const std::string target = ctx.str_param("target");
  if (target != "peer")
    throw UserError("unknown target '" + target + "' (peer only: memcheck rejects the CTA itself as this copy's destination)");
  const long long chunk = ctx.int_param("chunk_bytes");
  const int stages = int(ctx.int_param("stages"));
  if (chunk < 16 || chunk % 16 || chunk > (1 << 20)) throw UserError("chunk_bytes must be a multiple of 16 up to 1 MiB");
  if (stages < 1 || stages > kMaxStages) throw UserError("stages must be in 1.." + std::to_string(kMaxStages));
  const std::size_t smem = std::size_t(chunk) * (stages + 1);
  if ((long long)smem > d.shared_per_block_optin) ctx.skip("source chunk plus ring (" + std::to_string(smem) + " B) exceed shared memory per block");
  const auto kernel = bulk_cluster_ring_kernel;
  allow_cluster_launch(kernel, smem);
  const unsigned per_sm = std::max(1u, unsigned(d.shared_per_sm / (long long)(smem + 1024)));
  // A --functional run: two clusters, and the fewest trips the ring check needs.
  const unsigned blocks = ctx.sized(unsigned(d.sm_count) * std::min(per_sm, 2u) / kClusterSize * kClusterSize, 2 * kClusterSize);
  const LaunchShape shape{blocks, 64, smem};
  if (max_active_clusters(kernel, shape, kClusterSize) < 1) ctx.skip("the driver schedules no cluster of 2 of this kernel");
  // ~2 ms per launch at about 8 bytes per clock per SM.
  const double per_trip = double(blocks) * double(chunk);
  const int trips = ctx.sized(std::max(4 * stages, int(8.0 * d.sm_count * 1.8e9 * 2e-3 / per_trip)), 4 * stages);
  const unsigned seed = unsigned(std::random_device{}());
  DeviceBuffer<unsigned> sum(1);
  DeviceBuffer<RegionTiming> timing(blocks);
  const int check_trips = 2 * stages + 1;
  sum.fill_zero();
  launch_ex(ctx, kernel, shape, LaunchAttrs{kClusterSize}, stages, check_trips, unsigned(chunk), seed, sum.get(),
            timing.get());
  GD_CUDA_CHECK_LAUNCH();
  unsigned want = 0;
  for (unsigned b = 0; b < blocks; ++b) want += unsigned(check_trips) * chunk_word0(seed, b ^ 1u);
  if (sum.to_host()[0] != want) throw Error("the bulk copies delivered other bytes than the source chunks hold");
  const auto stream = [&] {
    launch_ex(ctx, kernel, shape, LaunchAttrs{kClusterSize}, stages, trips, unsigned(chunk), seed, sum.get(),
              timing.get());
  };
  const double bytes = per_trip * trips;
  const Summary tbps =
      measure_event_timed(ctx, stream, [&](double s) { return bytes / s / 1e12; }, async::stream_policy()).summary;
  const double mhz = clock_mhz(timing.to_host());
  ctx.set_observed_sm_clock_mhz(mhz, "clock64 over %globaltimer, read by thread 0 of every block of the last timed launch");
  ctx.metric("bandwidth/tbps", tbps);
  ctx.metric("bandwidth/bytes_per_clk_per_sm", tbps.median * 1e12 / (mhz * 1e6) / double(blocks) * double(blocks) / d.sm_count);
  ctx.metric("inflight/bytes_per_sm", double(stages) * double(chunk) * double(blocks) / d.sm_count);
  ctx.extra()["blocks"] = blocks;
  ctx.extra()["trips"] = trips;
}

ProbeSpec bulk_cluster_spec() {
  ProbeSpec s;
  s.id = "async.bulk.cluster";
  s.description = "TMA bulk copy shared::cta -> the peer CTA's shared::cluster in clusters of 2: flow-controlled ring bandwidth";
  s.needs.min_cc = 90;
  s.needs.features = {Feature::Tma, Feature::Clusters};
  s.axes = {Axis::list("target", std::vector<std::string>{"peer"}),
            std::move(Axis::list("chunk_bytes", {4096, 16384})).quick({16384}),
            std::move(Axis::list("stages", {2, 4})).quick({4})};
  s.sass = {expect_sass("*bulk_cluster_ring_kernel*", SassRegion::Whole,
                        {{"UBLKCP.S.S", 1, -1}, {"SYNCS.PHASECHK", 1, -1}, {"SYNCS.ARRIVE", 1, -1}})};
  s.metrics = {{"bandwidth/tbps", "TB/s", "bytes landed in the target CTAs' shared memory per second (10^12), all SMs"},
               {"bandwidth/bytes_per_clk_per_sm", "B/clk/SM", "the same per SM clock and SM"},
               {"inflight/bytes_per_sm", "B", "ring bytes that may be in flight per SM (stages x chunk x CTAs per SM)"}};
  s.run = run_bulk_cluster;
  s.time_cap_s = 5;
  s.quick_time_cap_s = 1.5;
  return s;
}

GD_REGISTER_PROBE(bulk_cluster_spec());

}  // namespace probe_bulk_cluster
}  // namespace gd
