// Which SMs form each GPC (and TPC), recovered from where maximal thread-block clusters land, and
// how many clusters of each size run at once: a cluster kernel loses the SMs its size strands.
#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "analysis/topology.hpp"
#include "core/device_buffer.hpp"
#include "core/launch_ex.cuh"
#include "core/ptx_cluster.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"

namespace gd {
namespace probe_cluster_map {

struct BlockPlace {
  unsigned smid, rank, cluster, nsmid;
  unsigned long long t0, t1;  // %globaltimer at the block's start and end
  long long cycles;           // clock64 over the same span (the SM clock)
};

// One thread per block records where and when the block ran, then holds its SM for spin_ns plus
// a per-cluster jitter (so later waves of clusters land on varied SMs). The launch asks for the
// most shared memory a block may have, so each SM holds one block.
__global__ void cluster_place_kernel(BlockPlace* out, unsigned spin_ns, unsigned jitter_ns) {
  if (threadIdx.x != 0) return;
  RegionClock clock;
  clock.begin();
  const unsigned cluster = ptx::cluster_id_linear();
  const unsigned long long hold = spin_ns + (cluster * 2654435761u >> 8) % (jitter_ns + 1);
  while (ptx::globaltimer_ns() - clock.g0 < hold) {
  }
  const RegionTiming t = clock.end();
  out[blockIdx.x] = BlockPlace{t.smid, ptx::cluster_ctarank(), cluster, ptx::nsmid(), clock.g0, clock.g0 + t.ns, t.cycles};
}

std::size_t place_shared_bytes(const DeviceInfo& d) {
  return one_block_per_sm_shared_bytes(cluster_place_kernel, d.shared_per_block_optin);
}

struct PlacementRun {
  std::vector<ClusterPlacement> clusters;  // SM ids per cluster, by rank
  std::vector<Interval> spans;             // per cluster: first block start to last block end
  std::vector<RegionTiming> timings;       // per block, for the SM clock
  unsigned nsmid = 0;
};

// Launches enough clusters of `size` for at least two waves and reads back where each ran.
PlacementRun run_placement(ProbeContext& ctx, unsigned size, unsigned spin_ns, unsigned jitter_ns) {
  const DeviceInfo& d = ctx.device();
  const LaunchShape shape{1, 32, place_shared_bytes(d)};
  const unsigned clusters = 2 * ((d.sm_count + size - 1) / size) + 2;
  DeviceBuffer<BlockPlace> out(clusters * size);
  launch_ex(ctx, cluster_place_kernel, LaunchShape{clusters * size, 32, shape.shared_bytes}, LaunchAttrs{size},
            out.get(), spin_ns, jitter_ns);
  GD_CUDA_CHECK(cudaDeviceSynchronize());
  PlacementRun run;
  run.clusters.assign(clusters, ClusterPlacement(size, -1));
  run.spans.assign(clusters, Interval{~0ull, 0});
  for (const BlockPlace& b : out.to_host()) {
    if (b.cluster >= clusters || b.rank >= size) throw Error("cluster placement: block reported cluster/rank out of range");
    if (int(b.smid) >= d.sm_count)
      throw Error("cluster placement: %smid " + std::to_string(b.smid) + " >= the device's SM count " + std::to_string(d.sm_count));
    run.clusters[b.cluster][b.rank] = int(b.smid);
    run.spans[b.cluster].start = std::min<std::uint64_t>(run.spans[b.cluster].start, b.t0);
    run.spans[b.cluster].end = std::max<std::uint64_t>(run.spans[b.cluster].end, b.t1);
    run.timings.push_back(RegionTiming{0, b.cycles, b.t1 - b.t0, b.smid, 0});
    run.nsmid = b.nsmid;
  }
  return run;
}

void prepare(const DeviceInfo& d) { allow_cluster_launch(cluster_place_kernel, place_shared_bytes(d)); }

int largest_cluster(const DeviceInfo& d) {
  return max_cluster_size(cluster_place_kernel, LaunchShape{1, 32, place_shared_bytes(d)});
}

struct MapResult {
  GpcMap map;
  TpcInference tpc;
  int largest = 0;
  unsigned nsmid = 0;
  std::size_t clusters_observed = 0;
  double clock_mhz = 0;
};

// Rounds over every cluster size from the largest down to 2, each adding placements, until a
// round adds no SM and merges no GPC (at least kMinRounds).
MapResult measure_map(ProbeContext& ctx) {
  constexpr int kMinRounds = 3, kMaxRounds = 12;
  const DeviceInfo& d = ctx.device();
  prepare(d);
  MapResult r;
  r.largest = largest_cluster(d);
  if (r.largest < 2) ctx.skip("the driver schedules no cluster of 2 or more blocks for a one-block-per-SM kernel");
  std::vector<unsigned> sizes;
  for (unsigned s = unsigned(r.largest); s >= 2; s /= 2) sizes.push_back(s);
  std::vector<ClusterPlacement> all, pairs;
  std::vector<RegionTiming> timings;
  std::size_t last_seen = 0, last_gpcs = 0;
  for (int round = 0; round < kMaxRounds; ++round) {
    for (unsigned s : sizes) {
      PlacementRun run = run_placement(ctx, s, 4000, 12000);
      if (s == 2) pairs.insert(pairs.end(), run.clusters.begin(), run.clusters.end());
      all.insert(all.end(), run.clusters.begin(), run.clusters.end());
      timings.insert(timings.end(), run.timings.begin(), run.timings.end());
      r.nsmid = run.nsmid;
    }
    r.map = infer_gpcs(d.sm_count, all);
    const std::size_t seen = std::size_t(d.sm_count) - r.map.unseen.size();
    if (round + 1 >= kMinRounds && seen == last_seen && r.map.gpcs.size() == last_gpcs) break;
    last_seen = seen;
    last_gpcs = r.map.gpcs.size();
  }
  r.tpc = infer_tpcs(r.map, pairs);
  r.clusters_observed = all.size();
  r.clock_mhz = clock_mhz(timings);
  return r;
}

// The map, measured once per device per process: the occupancy points compare against it.
const MapResult& cached_map(ProbeContext& ctx) {
  static std::mutex m;
  static std::map<std::string, MapResult> cache;
  std::lock_guard lock(m);
  const std::string key = ctx.device().uuid + "#" + std::to_string(ctx.device().index);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, measure_map(ctx)).first;
  return it->second;
}

nlohmann::json map_json(const MapResult& r) {
  nlohmann::json j;
  j["gpcs"] = r.map.gpcs;
  j["sms_per_gpc"] = r.map.sizes();
  j["unseen_sms"] = r.map.unseen;
  j["tpc_pairs"] = r.tpc.pairs;
  j["tpc_method"] =
      "hypothesis: SM ids 2k and 2k+1 form a TPC; kept where both lie in one GPC. Evidence: "
      "tpc_pairs_within_gpcs and the share of 2-block clusters placed on such a pair";
  j["tpc_pairs_within_gpcs"] = r.tpc.pairs_within_gpcs;
  j["tpc_pair_cluster_fraction"] = r.tpc.pair_cluster_fraction;
  j["clusters_observed"] = r.clusters_observed;
  j["note"] = "a GPC here is a cluster-placement domain: SMs that blocks of one cluster ever shared. A physical "
              "GPC whose SMs no cluster spans shows as several (compare clusters/coresident per size)";
  j["method"] = "union of SMs that ran blocks of one cluster (clusters of the largest schedulable size down to 2, "
                "one block per SM, several waves with jittered hold times)";
  return j;
}

void run_map(ProbeContext& ctx) {
  const MapResult& r = cached_map(ctx);
  // The map comes from this point's own launches or from an earlier point of this process; name
  // the kernel either way (it is the code the numbers come from).
  ctx.launched(reinterpret_cast<const void*>(cluster_place_kernel));
  if (r.clock_mhz > 0) ctx.set_observed_sm_clock_mhz(r.clock_mhz, "clock64 over %globaltimer of the placement blocks' hold loops");
  const std::vector<int> sizes = r.map.sizes();
  ctx.metric("topology/sms_mapped", double(ctx.device().sm_count - int(r.map.unseen.size())));
  ctx.metric("topology/gpcs", double(r.map.gpcs.size()));
  ctx.metric("topology/sms_per_gpc_min", sizes.empty() ? 0.0 : double(*std::min_element(sizes.begin(), sizes.end())));
  ctx.metric("topology/sms_per_gpc_max", sizes.empty() ? 0.0 : double(*std::max_element(sizes.begin(), sizes.end())));
  ctx.metric("topology/tpcs", double(r.tpc.pairs.size()));
  ctx.metric("topology/max_cluster_size", double(r.largest));
  ctx.metric("topology/nsmid", double(r.nsmid));
  // The GPC/TPC shape only where the pairs' evidence holds; without it there is no TPC count.
  if (const TpcShape shape = tpc_shape(r.map, r.tpc); shape.holds) {
    ctx.metric("topology/sms_per_tpc", shape.sms_per_tpc);
    ctx.metric("topology/gpcs_wider_than_tpc", double(shape.gpcs_wider_than_tpc));
    ctx.metric("topology/tpcs_per_gpc_max", double(shape.tpcs_per_gpc_max));
  }
  ctx.extra() = map_json(r);  // unseen_sms lists any SM no cluster ran on (sms_mapped < SM count)
}

const SassExpectation kPlaceSass = expect_sass("*cluster_place_kernel*", SassRegion::Whole, {{"S2R", 1, -1}, {"STG.E.64", 1, -1}});

ProbeSpec map_spec() {
  ProbeSpec s;
  s.id = "topology.cluster.gpc_map";
  s.description = "SM-to-GPC/TPC map from the SMs maximal thread-block clusters land on (%smid, %cluster_ctarank, %nsmid)";
  s.needs.min_cc = 90;
  s.needs.features = {Feature::Clusters};
  s.sass = {kPlaceSass};
  s.metrics = {{"topology/sms_mapped", "SMs", "SMs placed in a GPC (the device's SM count when the map is complete)"},
               {"topology/gpcs", "GPCs", "cluster-placement domains: connected groups of SMs that blocks of one cluster shared"},
               {"topology/sms_per_gpc_min", "SMs", "smallest GPC"},
               {"topology/sms_per_gpc_max", "SMs", "largest GPC"},
               {"topology/tpcs", "TPCs", "SM pairs (2k, 2k+1) within one GPC"},
               {"topology/max_cluster_size", "blocks", "largest cluster the driver schedules (non-portable sizes allowed)"},
               {"topology/nsmid", "ids", "%nsmid: the SM id range"},
               {"topology/sms_per_tpc", "SMs", "SMs per TPC, where the (2k, 2k+1) pairs lie within GPCs and 2-block clusters land on them"},
               {"topology/gpcs_wider_than_tpc", "GPCs",
                "placement domains spanning more than one TPC: the GPCs (a lone TPC's domain is part of a GPC no cluster spanned)"},
               {"topology/tpcs_per_gpc_max", "TPCs", "most TPCs in one GPC"}};
  s.covers = {{"topology.logical_gpc_count", "topology/gpcs", {}},
              {"topology.sms_per_gpc", "topology/sms_per_gpc_max", {}},
              {"topology.smid_range", "topology/nsmid", {}},
              {"cluster.max_size", "topology/max_cluster_size", {}},
              // The map itself is the record's extra.gpcs; the SMs it places stand for it.
              {"topology.sm_to_gpc_map", "topology/sms_mapped", {}},
              {"topology.gpc_count", "topology/gpcs_wider_than_tpc", {}},
              {"topology.tpcs_per_gpc", "topology/tpcs_per_gpc_max", {}},
              {"topology.sms_per_tpc", "topology/sms_per_tpc", {}}};
  s.run = run_map;
  s.time_cap_s = 10;
  s.quick_time_cap_s = 5;
  return s;
}

GD_REGISTER_PROBE(map_spec());

// --- the quantization table --------------------------------------------------------------------

void run_occupancy(ProbeContext& ctx) {
  const unsigned size = unsigned(ctx.int_param("cluster_size"));
  const DeviceInfo& d = ctx.device();
  prepare(d);
  const int largest = largest_cluster(d);
  if (int(size) > largest)
    ctx.skip("cluster size " + std::to_string(size) + " exceeds the largest the driver schedules here (" +
             std::to_string(largest) + ")");
  const MapResult& map = cached_map(ctx);
  const LaunchShape shape{size, 32, place_shared_bytes(d)};
  const int api = max_active_clusters(cluster_place_kernel, shape, size);
  std::vector<RegionTiming> timings;
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.max_samples = 9;
  policy.time_cap_s = 0.5;
  const RepeatResult res = ctx.measure(
      [&] {
        PlacementRun run = run_placement(ctx, size, 20000, 10000);
        timings.insert(timings.end(), run.timings.begin(), run.timings.end());
        return double(max_concurrent(run.spans));
      },
      policy);
  ctx.set_observed_sm_clock_mhz(clock_mhz(timings), "clock64 over %globaltimer of the placement blocks' hold loops");
  const std::vector<int> gpc_sizes = map.map.sizes();
  const Quantization predicted = cluster_quantization(gpc_sizes, int(size));
  ctx.metric("clusters/coresident", res.summary);
  ctx.metric("clusters/occupancy_api", double(api));
  ctx.metric("clusters/predicted_from_gpc_map", double(predicted.clusters));
  ctx.metric("sms/idle", double(d.sm_count) - size * res.summary.max);
  ctx.metric("sms/idle_predicted", double(predicted.idle_sms + int(map.map.unseen.size())));
  ctx.extra()["blocks_per_sm"] = 1;
}

ProbeSpec occupancy_spec() {
  ProbeSpec s;
  s.id = "topology.cluster.occupancy";
  s.description = "Cluster quantization: clusters co-resident at once and SMs left idle per cluster size, "
                  "measured, from the GPC map, and from cudaOccupancyMaxActiveClusters";
  s.needs.min_cc = 90;
  s.needs.features = {Feature::Clusters};
  s.axes = {std::move(Axis::range("cluster_size", 1, 16, 1)).quick({1, 2, 4, 8, 16})};
  s.sass = {kPlaceSass};
  s.metrics = {{"clusters/coresident", "clusters", "most clusters running at once in a launch of several waves (one block per SM)"},
               {"clusters/occupancy_api", "clusters", "cudaOccupancyMaxActiveClusters for the same launch"},
               {"clusters/predicted_from_gpc_map", "clusters", "sum over GPCs of floor(SMs / cluster size)"},
               {"sms/idle", "SMs", "SMs without a block at the measured peak"},
               {"sms/idle_predicted", "SMs", "SMs the GPC map says no cluster of this size can use"}};
  s.covers = {{"cluster.quantization.idle_sms", "sms/idle", {{"cluster_size", std::int64_t(16)}}}};
  s.run = run_occupancy;
  s.time_cap_s = 15;
  s.quick_time_cap_s = 6;
  return s;
}

GD_REGISTER_PROBE(occupancy_spec());

}  // namespace probe_cluster_map
}  // namespace gd
