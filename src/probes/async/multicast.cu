// TMA multicast within a cluster: one CTA's tensor load delivered to every CTA of the cluster,
// against each CTA loading the same tile itself and against distinct tiles: what multicast saves
// a GEMM whose CTAs share an operand tile (bandwidth; L2 traffic from --ncu counters when present).
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/ncu_counters.hpp"
#include "core/launch.cuh"
#include "core/ptx_async.cuh"
#include "core/registry.hpp"
#include "core/tensor_map.hpp"
#include "core/timing.cuh"
#include "async_common.cuh"

namespace gd {
namespace probe_multicast {

constexpr int kStages = 8;  // 64 KiB per CTA: two CTAs per SM keep 128 KiB in flight, past the knee
constexpr unsigned kBoxX = 32, kBoxY = 64;  // 8 KiB boxes of 4-byte elements
constexpr unsigned kBoxBytes = kBoxX * kBoxY * 4;
constexpr int kBoxesWide = 4;
enum Mode : int { kDistinct = 0, kSame = 1, kMulticast = 2 };
const char* const kModeNames[] = {"distinct", "same", "multicast"};

// Tile of CTA b at trip t: its own (distinct), or its cluster's (same, multicast).
__host__ __device__ __forceinline__ long long tile_of(int mode, long long t, long long b, long long grid, int n,
                                                      long long first, long long units) {
  const long long u = mode == kDistinct ? t * grid + b : t * (grid / n) + b / n;
  return (u + first) % units;
}

// Each CTA keeps kStages boxes in flight. In multicast mode rank 0 issues every box to all N
// CTAs and reuses a slot only when all N have consumed it (their arrivals on its `empty`).
template <int N>
__global__ void __cluster_dims__(N, 1, 1) __launch_bounds__(32)
    multicast_ring_kernel(const __grid_constant__ CUtensorMap map, int mode, int trips, long long first, long long units,
                          unsigned* sum, RegionTiming* timing) {
  extern __shared__ __align__(1024) char ring[];
  __shared__ alignas(8) unsigned long long full[kStages], empty[kStages];
  BlockClock clock;
  clock.begin();
  const unsigned rank = ptx::cluster_ctarank();
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      ptx::mbarrier_init(ptx::smem_u32(&full[s]), 1);
      ptx::mbarrier_init(ptx::smem_u32(&empty[s]), N);
    }
    ptx::fence_mbarrier_init();
  }
  ptx::cluster_sync();
  if (threadIdx.x == 0) {
    const unsigned base = ptx::smem_u32(ring);
    const bool issuer = mode != kMulticast || rank == 0;
    const auto issue = [&](int t) {
      const int s = t % kStages;
      const long long u = tile_of(mode, t, blockIdx.x, gridDim.x, N, first, units);
      const int x = int(u % kBoxesWide) * int(kBoxX), y = int(u / kBoxesWide) * int(kBoxY);
      const unsigned dst = base + unsigned(s) * kBoxBytes, bar = ptx::smem_u32(&full[s]);
      if (mode == kMulticast) {
        ptx::tensor_load_2d_multicast(dst, &map, x, y, bar, (unsigned short)((1u << N) - 1));
      } else {
        ptx::tensor_load<2>(dst, &map, bar, x, y);
      }
    };
    for (int t = 0; t < kStages && t < trips; ++t) {
      ptx::mbarrier_arrive_expect_tx(ptx::smem_u32(&full[t]), kBoxBytes);
      if (issuer) issue(t);
    }
    unsigned acc = 0;
    for (int t = 0; t < trips; ++t) {
      const int s = t % kStages;
      const unsigned phase = unsigned(t / kStages) & 1u;
      ptx::mbarrier_wait_parity(ptx::smem_u32(&full[s]), phase);
      acc += ptx::ld_shared_u32(base + unsigned(s) * kBoxBytes);
      if (mode == kMulticast) ptx::mbarrier_arrive_cluster(ptx::mapa_shared(ptx::smem_u32(&empty[s]), 0));
      if (t + kStages < trips) {
        ptx::mbarrier_arrive_expect_tx(ptx::smem_u32(&full[s]), kBoxBytes);
        if (issuer) {
          if (mode == kMulticast) ptx::mbarrier_wait_parity(ptx::smem_u32(&empty[s]), phase);
          issue(t + kStages);
        }
      }
    }
    atomicAdd(sum, acc);
  }
  ptx::cluster_sync();  // no CTA leaves while a multicast or a remote arrival may still target it
  clock.end(timing);
}

template <int N>
void run_cluster(ProbeContext& ctx, int mode, const std::string& where) {
  const DeviceInfo& d = ctx.device();
  const async::StreamSource region = async::stream_source(ctx, where);
  const async::SourceBuffer buf = async::make_source(ctx, region.buffer_bytes);
  const long long units = region.buffer_bytes / kBoxBytes / kBoxesWide * kBoxesWide;
  TiledTensorMapSpec spec;
  spec.rank = 2;
  spec.base = const_cast<char*>(buf.bytes());
  spec.dims = {kBoxX * kBoxesWide, std::uint64_t(units / kBoxesWide) * kBoxY, 1, 1, 1};
  spec.strides = {0, kBoxX * kBoxesWide * 4, 0, 0, 0};
  spec.box = {kBoxX, kBoxY, 1, 1, 1};
  const CUtensorMap map = encode_tiled_tensor_map(spec);

  const auto kernel = multicast_ring_kernel<N>;
  const int smem = kStages * int(kBoxBytes);
  GD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  // Two CTAs per SM, whole clusters; two clusters in a --functional run.
  const unsigned blocks = ctx.sized(unsigned(d.sm_count * 2 / N * N), unsigned(2 * N));
  const long long per_trip = (long long)blocks * kBoxBytes;
  const long long bytes = async::launch_bytes(ctx, where, double(per_trip) * kStages, per_trip, 4LL * kStages,
                                              region.buffer_bytes);
  const int trips = int(bytes / per_trip);
  DeviceBuffer<unsigned> sum(1);
  DeviceBuffer<RegionTiming> timing(blocks);
  const LaunchShape shape{blocks, 32, std::size_t(smem)};

  const auto word_of = [&](long long u) {
    return async::source_word((unsigned long long)((u / kBoxesWide) * kBoxY * kBoxX * kBoxesWide + (u % kBoxesWide) * kBoxX),
                              buf.seed);
  };
  // The check launch is as long as a timed one: under --ncu (one sample) the counters are a median
  // over the launches, which a short check launch would otherwise pull down to half.
  const int check_trips = trips;
  sum.fill_zero();
  launch(ctx, kernel, shape, map, mode, check_trips, 0LL, units, sum.get(), timing.get());
  GD_CUDA_CHECK_LAUNCH();
  unsigned want = 0;
  for (long long t = 0; t < check_trips; ++t)
    for (long long b = 0; b < blocks; ++b) want += word_of(tile_of(mode, t, b, blocks, N, 0, units));
  if (sum.to_host()[0] != want) throw Error(std::string(kModeNames[mode]) + " loads delivered other bytes than the tiles hold");

  // Unique tiles per launch, so DRAM launches start where the last one ended.
  const long long launch_tiles = mode == kDistinct ? (long long)trips * blocks : (long long)trips * blocks / N;
  long long first = 0;
  const auto stream = [&] {
    launch(ctx, kernel, shape, map, mode, trips, first, units, sum.get(), timing.get());
    if (where == "dram") first = (first + launch_tiles) % units;
  };
  const Summary delivered =
      measure_event_timed(ctx, stream, [&](double s) { return double(bytes) / s / 1e12; }, async::stream_policy()).summary;
  ctx.set_observed_sm_clock_mhz(clock_mhz(timing.to_host()),
                                "clock64 over %globaltimer, read by thread 0 of every block of the last timed launch");
  ctx.metric("bandwidth/delivered_tbps", delivered);
  ctx.metric("bandwidth/unique_tbps", delivered.median * double(launch_tiles) * kBoxBytes / double(bytes));
  ctx.extra()["bytes_per_launch"] = bytes;
  ctx.extra()["unique_tiles_per_launch"] = launch_tiles;
}

void run_multicast(ProbeContext& ctx) {
  async::require_sm90_code(ctx);
  const std::string& code = ctx.device().arch_code_loaded;
  if (code.empty() || code.back() != 'a')
    ctx.skip("multicast is compiled only into arch-specific code (sm_90a, sm_100a); the loaded code is " + code);
  const std::string m = ctx.str_param("mode");
  int mode = -1;
  for (int i = 0; i < 3; ++i)
    if (m == kModeNames[i]) mode = i;
  if (mode < 0) throw UserError("unknown mode '" + m + "' (distinct, same, multicast)");
  const std::string where = ctx.str_param("source");
  switch (ctx.int_param("cluster")) {
    case 2: run_cluster<2>(ctx, mode, where); break;
    case 4: run_cluster<4>(ctx, mode, where); break;
    default: throw UserError("cluster must be 2 or 4");
  }
}

// L2 read sectors (--ncu) of the ring kernel over the bytes a launch lands in shared memory.
const std::vector<std::string> kL2Counters = {"lts__t_sectors_op_read.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
                                              "dram__sectors_read.sum"};

// Per source and cluster size: multicast against every CTA loading the shared tile itself, and
// per mode the L2 traffic each byte landed in shared memory caused, from the --ncu mode's
// extra.ncu when a run has it (a note says so when it has not).
void summarize_multicast(SummaryContext& sc) {
  for (const std::string where : {"dram", "l2"})
    for (const std::int64_t n : {2, 4}) {
      for (const char* mode : kModeNames)
        for (const Record* r : sc.ok_records({{"source", where}, {"cluster", n}, {"mode", std::string(mode)}})) {
          Record& t = sc.derive({{"source", where}, {"cluster", n}, {"mode", std::string(mode) + "_l2_traffic"}}, {r});
          t.metrics = r->metrics;
          const auto sectors = ncu_counter(r->extra, "multicast_ring_kernel", kL2Counters[0]);
          const auto dram = ncu_counter(r->extra, "multicast_ring_kernel", kL2Counters[2]);
          const double landed = r->extra.value("bytes_per_launch", 0.0);
          if (sectors && landed > 0) {
            sc.add_metric(t, "l2/read_bytes_per_landed_byte", single_value(*sectors * 32 / landed));
            if (dram) sc.add_metric(t, "dram/read_bytes_per_landed_byte", single_value(*dram * 32 / landed));
          } else {
            t.extra["l2_sectors"] = ncu_absent_note();
          }
        }
      const auto mc = sc.ok_records({{"source", where}, {"cluster", n}, {"mode", std::string("multicast")}});
      const auto same = sc.ok_records({{"source", where}, {"cluster", n}, {"mode", std::string("same")}});
      if (mc.empty() || same.empty() || !mc[0]->metric("bandwidth/delivered_tbps") ||
          !same[0]->metric("bandwidth/delivered_tbps"))
        continue;
      Record& r = sc.derive({{"source", where}, {"cluster", n}, {"mode", std::string("multicast_vs_same")}}, {mc[0], same[0]});
      sc.add_metric(r, "speedup/ratio", single_value(mc[0]->metric("bandwidth/delivered_tbps")->value() /
                                                     same[0]->metric("bandwidth/delivered_tbps")->value()));
      const auto mc_l2 = ncu_counter(mc[0]->extra, "multicast_ring_kernel", kL2Counters[0]);
      const auto same_l2 = ncu_counter(same[0]->extra, "multicast_ring_kernel", kL2Counters[0]);
      if (mc_l2 && same_l2 && *same_l2 > 0) {
        // Per landed byte, so launches of different lengths compare.
        const double mc_per = *mc_l2 / mc[0]->extra.value("bytes_per_launch", 1.0);
        const double same_per = *same_l2 / same[0]->extra.value("bytes_per_launch", 1.0);
        sc.add_metric(r, "l2/traffic_ratio", single_value(mc_per / same_per));
      } else {
        r.extra["l2_sectors"] = ncu_absent_note();
      }
    }
  // Per mode, the best fill bandwidth over the sweep: data that fits in L2 (a quarter of it, read
  // over and over) and data far larger (DRAM), by cluster size.
  for (const char* mode : kModeNames)
    if (Record* b = sc.derive_best({{"mode", std::string(mode)}, {"curve", std::string("best")}},
                                   sc.ok_records({{"mode", std::string(mode)}}), "bandwidth/delivered_tbps"))
      b->extra["curve"] = "delivered bandwidth over data size (L2-resident region, DRAM-sized buffer) and cluster size";
}

ProbeSpec multicast_spec() {
  ProbeSpec s;
  s.id = "async.tensor.multicast";
  s.description = "TMA multicast to a cluster vs each CTA loading the same tile vs distinct tiles (8 KiB 2D boxes)";
  s.needs.min_cc = 90;
  s.needs.max_cc = 119;  // multicast is compiled only for sm_90a/sm_100a (ptx_async.cuh says why)
  s.needs.features = {Feature::Tma, Feature::Clusters};
  s.axes = {Axis::list("mode", std::vector<std::string>{"distinct", "same", "multicast"}), Axis::list("cluster", {2, 4}),
            std::move(Axis::list("source", std::vector<std::string>{"dram", "l2"})).quick_list({std::string("l2")})};
  for (const std::string n : {"2", "4"}) s.sass.push_back(expect_sass("*multicast_ring_kernel<" + n + ">*", SassRegion::Whole,
      {{"UTMALDG.2D.MULTICAST", 1, -1}, {"UTMALDG.2D", 2, -1}, {"SYNCS.PHASECHK", 1, -1}}, async::tensor_copy_forbid()));
  s.sass.push_back(async::fill_source_sass());
  s.metrics = {{"bandwidth/delivered_tbps", "TB/s", "bytes landed in shared memory, all CTAs, per second (10^12)"},
               {"bandwidth/unique_tbps", "TB/s", "distinct tile bytes per second (what L2/DRAM must supply once)"},
               {"speedup/ratio", "x", "derived: multicast's delivered bandwidth over every CTA loading the tile"},
               {"l2/read_bytes_per_landed_byte", "B/B", "derived, --ncu: L2 read sectors x 32 over bytes landed in shared memory"},
               {"dram/read_bytes_per_landed_byte", "B/B", "derived, --ncu: DRAM read sectors x 32 over bytes landed"},
               {"l2/traffic_ratio", "x", "derived, --ncu: multicast's L2 read bytes per landed byte over same-tile loads'"}};
  s.ncu_metrics = kL2Counters;
  // The fill bandwidth: each mode's best over the sweep. The L2 traffic (--ncu only): quick mode
  // runs the L2 source only, so those items read the L2 points (clusters of 2).
  const auto at = [](const char* mode) {
    return Params{{"source", std::string("l2")}, {"cluster", std::int64_t(2)}, {"mode", std::string(mode)}};
  };
  const auto best = [](const char* mode) { return Params{{"mode", std::string(mode)}, {"curve", std::string("best")}}; };
  s.covers = {{"async.tma.multicast.fill_bw.distinct", "bandwidth/delivered_tbps", best("distinct")},
              {"async.tma.multicast.fill_bw.explicit", "bandwidth/delivered_tbps", best("multicast")},
              {"async.tma.multicast.fill_bw.implicit", "bandwidth/delivered_tbps", best("same")},
              {"async.tma.multicast.l2_traffic.distinct", "l2/read_bytes_per_landed_byte", at("distinct_l2_traffic")},
              {"async.tma.multicast.l2_traffic.explicit", "l2/read_bytes_per_landed_byte", at("multicast_l2_traffic")},
              {"async.tma.multicast.l2_traffic.implicit", "l2/read_bytes_per_landed_byte", at("same_l2_traffic")}};
  s.run = run_multicast;
  s.summarize = summarize_multicast;
  s.time_cap_s = 8;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(multicast_spec());

}  // namespace probe_multicast
}  // namespace gd
