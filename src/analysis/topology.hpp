// Chip topology from cluster placements: which SMs form a GPC (SMs that ever share a cluster),
// the TPC pairing hypothesis checked against it, and the cluster quantization that follows.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gd {

// The SM ids one cluster ran on (one entry per block).
using ClusterPlacement = std::vector<int>;

struct GpcMap {
  std::vector<std::vector<int>> gpcs;  // SM ids per GPC, each sorted; GPCs ordered by first SM id
  std::vector<int> gpc_of_sm;          // -1 for an SM no cluster ran on
  std::vector<int> unseen;             // SM ids below sm_count that no cluster covered
  std::vector<int> sizes() const;
};

// Union of co-occurrence: SMs that ran blocks of one cluster are in one GPC (the hardware places
// a cluster within one GPC), merged over every placement. Throws gd::Error for an SM id outside
// [0, sm_count) or sm_count <= 0.
GpcMap infer_gpcs(int sm_count, std::span<const ClusterPlacement> clusters);

// The hypothesis that SM ids 2k and 2k+1 share a TPC, and the evidence for it: whether every such
// pair lies within one GPC, and how often a cluster of two landed on such a pair.
struct TpcInference {
  std::vector<std::pair<int, int>> pairs;  // (2k, 2k+1) with both in the same GPC
  bool pairs_within_gpcs = false;          // no (2k, 2k+1) pair of seen SMs straddles two GPCs
  double pair_cluster_fraction = 0;        // of 2-block clusters on two distinct SMs; NaN if none
};
TpcInference infer_tpcs(const GpcMap& map, std::span<const ClusterPlacement> two_block_clusters);

// The GPC/TPC shape when the TPC hypothesis holds (every pair within one GPC and at least 90 % of
// 2-block clusters on such a pair; otherwise `holds` is false and the rest zero): SMs per TPC,
// the GPCs that span more than one TPC (a placement domain of a single TPC is part of a GPC whose
// other TPCs no cluster shared with it, so it does not count as a GPC of its own), and the most
// TPCs one GPC holds.
struct TpcShape {
  bool holds = false;
  double sms_per_tpc = 0;
  int gpcs_wider_than_tpc = 0;
  int tpcs_per_gpc_max = 0;
};
TpcShape tpc_shape(const GpcMap& map, const TpcInference& tpcs);

// With one block per SM, a GPC of g SMs holds floor(g / c) clusters of c blocks.
struct Quantization {
  int clusters = 0;   // clusters of this size that run at once
  int idle_sms = 0;   // SMs of the listed GPCs no cluster can use
};
Quantization cluster_quantization(std::span<const int> gpc_sizes, int cluster_size);  // throws for size < 1

// The most intervals [start, end) open at once; an interval ending at t does not overlap one
// starting at t. Used to count the clusters that were co-resident in a launch.
struct Interval {
  std::uint64_t start = 0, end = 0;
};
int max_concurrent(std::span<const Interval> intervals);

}  // namespace gd
