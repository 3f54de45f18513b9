#include "analysis/topology.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace gd {
namespace {

TEST(InferGpcs, MergesOverlappingClustersAndListsUnseenSms) {
  const std::vector<ClusterPlacement> clusters{{0, 2}, {2, 4}, {1, 3}, {6, 5}};
  const GpcMap m = infer_gpcs(8, clusters);
  ASSERT_EQ(m.gpcs.size(), 3u);
  EXPECT_EQ(m.gpcs[0], (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(m.gpcs[1], (std::vector<int>{1, 3}));
  EXPECT_EQ(m.gpcs[2], (std::vector<int>{5, 6}));
  EXPECT_EQ(m.unseen, (std::vector<int>{7}));
  EXPECT_EQ(m.gpc_of_sm[4], 0);
  EXPECT_EQ(m.gpc_of_sm[7], -1);
  EXPECT_EQ(m.sizes(), (std::vector<int>{3, 2, 2}));
}

TEST(InferGpcs, RejectsOutOfRangeIds) {
  const std::vector<ClusterPlacement> bad{{0, 9}};
  EXPECT_THROW(infer_gpcs(8, bad), Error);
  EXPECT_THROW(infer_gpcs(0, {}), Error);
}

TEST(InferTpcs, PairsWithinGpcsAndClusterEvidence) {
  const std::vector<ClusterPlacement> clusters{{0, 1, 2, 3}, {4, 5}};
  const GpcMap m = infer_gpcs(6, clusters);
  const std::vector<ClusterPlacement> twos{{0, 1}, {3, 2}, {1, 2}, {4, 4}};
  const TpcInference t = infer_tpcs(m, twos);
  EXPECT_EQ(t.pairs.size(), 3u);
  EXPECT_TRUE(t.pairs_within_gpcs);
  EXPECT_DOUBLE_EQ(t.pair_cluster_fraction, 2.0 / 3.0);  // {4,4} is one SM: not counted

  const std::vector<ClusterPlacement> straddle{{0, 2}, {1, 3}};  // 0 and 1 in different GPCs
  EXPECT_FALSE(infer_tpcs(infer_gpcs(4, straddle), {}).pairs_within_gpcs);
  EXPECT_TRUE(std::isnan(infer_tpcs(m, {}).pair_cluster_fraction));
}

TEST(TpcShape, CountsGpcsWiderThanOneTpcAndTheirTpcs) {
  // A GPC of 3 TPCs (0-5), one of 2 (6-9), and a lone TPC (10, 11) no cluster joined to others.
  const std::vector<ClusterPlacement> clusters{{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9}, {10, 11}};
  const GpcMap m = infer_gpcs(12, clusters);
  const std::vector<ClusterPlacement> twos{{0, 1}, {8, 9}, {10, 11}};
  const TpcShape s = tpc_shape(m, infer_tpcs(m, twos));
  EXPECT_TRUE(s.holds);
  EXPECT_DOUBLE_EQ(s.sms_per_tpc, 2);
  EXPECT_EQ(s.gpcs_wider_than_tpc, 2);
  EXPECT_EQ(s.tpcs_per_gpc_max, 3);
  // Weak evidence: 2-block clusters mostly off the (2k, 2k+1) pairs.
  const std::vector<ClusterPlacement> off{{1, 2}, {3, 4}, {0, 1}};
  EXPECT_FALSE(tpc_shape(m, infer_tpcs(m, off)).holds);
  EXPECT_EQ(tpc_shape(m, infer_tpcs(m, off)).gpcs_wider_than_tpc, 0);
}

TEST(ClusterQuantization, FloorPerGpc) {
  const std::vector<int> gpcs{18, 18, 16, 14};
  const Quantization q16 = cluster_quantization(gpcs, 16);
  EXPECT_EQ(q16.clusters, 3);
  EXPECT_EQ(q16.idle_sms, 2 + 2 + 0 + 14);
  const Quantization q1 = cluster_quantization(gpcs, 1);
  EXPECT_EQ(q1.clusters, 66);
  EXPECT_EQ(q1.idle_sms, 0);
  EXPECT_THROW(cluster_quantization(gpcs, 0), Error);
}

TEST(MaxConcurrent, TouchingIntervalsDoNotOverlap) {
  const std::vector<Interval> iv{{0, 10}, {10, 20}, {5, 15}, {12, 13}};
  EXPECT_EQ(max_concurrent(iv), 3);  // at 12: [10,20), [5,15), [12,13)
  EXPECT_EQ(max_concurrent(std::vector<Interval>{}), 0);
  const std::vector<Interval> chain{{0, 1}, {1, 2}, {2, 3}};
  EXPECT_EQ(max_concurrent(chain), 1);
}

}  // namespace
}  // namespace gd
