#include "analysis/topology.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "core/error.hpp"

namespace gd {

std::vector<int> GpcMap::sizes() const {
  std::vector<int> s;
  for (const auto& g : gpcs) s.push_back(int(g.size()));
  return s;
}

namespace {

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(int n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(int a, int b) { parent[find(a)] = find(b); }
};

}  // namespace

GpcMap infer_gpcs(int sm_count, std::span<const ClusterPlacement> clusters) {
  if (sm_count <= 0) throw Error("infer_gpcs: sm_count must be positive");
  UnionFind uf(sm_count);
  std::vector<bool> seen(sm_count, false);
  for (const ClusterPlacement& c : clusters) {
    for (int sm : c) {
      if (sm < 0 || sm >= sm_count)
        throw Error("infer_gpcs: SM id " + std::to_string(sm) + " outside [0, " + std::to_string(sm_count) + ")");
      seen[sm] = true;
      uf.unite(sm, c.front());
    }
  }
  GpcMap map;
  map.gpc_of_sm.assign(sm_count, -1);
  std::vector<int> index_of_root(sm_count, -1);
  for (int sm = 0; sm < sm_count; ++sm) {  // ascending ids: GPCs come out ordered by first SM
    if (!seen[sm]) {
      map.unseen.push_back(sm);
      continue;
    }
    int& idx = index_of_root[uf.find(sm)];
    if (idx < 0) {
      idx = int(map.gpcs.size());
      map.gpcs.emplace_back();
    }
    map.gpcs[idx].push_back(sm);
    map.gpc_of_sm[sm] = idx;
  }
  return map;
}

TpcInference infer_tpcs(const GpcMap& map, std::span<const ClusterPlacement> two_block_clusters) {
  TpcInference t;
  t.pairs_within_gpcs = true;
  const int n = int(map.gpc_of_sm.size());
  for (int sm = 0; sm + 1 < n; sm += 2) {
    const int a = map.gpc_of_sm[sm], b = map.gpc_of_sm[sm + 1];
    if (a < 0 || b < 0) continue;
    if (a == b) t.pairs.emplace_back(sm, sm + 1);
    else t.pairs_within_gpcs = false;
  }
  int total = 0, on_pair = 0;
  for (const ClusterPlacement& c : two_block_clusters) {
    if (c.size() != 2 || c[0] == c[1]) continue;
    ++total;
    if (std::min(c[0], c[1]) % 2 == 0 && std::abs(c[0] - c[1]) == 1) ++on_pair;
  }
  t.pair_cluster_fraction = total ? double(on_pair) / total : std::numeric_limits<double>::quiet_NaN();
  return t;
}

TpcShape tpc_shape(const GpcMap& map, const TpcInference& tpcs) {
  TpcShape out;
  if (!tpcs.pairs_within_gpcs || tpcs.pairs.empty() || !(tpcs.pair_cluster_fraction >= 0.9)) return out;
  out.holds = true;
  out.sms_per_tpc = 2;  // the hypothesis under test pairs SM ids 2k and 2k+1
  for (std::size_t g = 0; g < map.gpcs.size(); ++g) {
    const int tpcs_here = int(std::count_if(tpcs.pairs.begin(), tpcs.pairs.end(),
                                            [&](const auto& p) { return map.gpc_of_sm[p.first] == int(g); }));
    if (int(map.gpcs[g].size()) > out.sms_per_tpc) ++out.gpcs_wider_than_tpc;
    out.tpcs_per_gpc_max = std::max(out.tpcs_per_gpc_max, tpcs_here);
  }
  return out;
}

Quantization cluster_quantization(std::span<const int> gpc_sizes, int cluster_size) {
  if (cluster_size < 1) throw Error("cluster_quantization: cluster size must be at least 1");
  Quantization q;
  for (int g : gpc_sizes) {
    q.clusters += g / cluster_size;
    q.idle_sms += g % cluster_size;
  }
  return q;
}

int max_concurrent(std::span<const Interval> intervals) {
  std::vector<std::pair<std::uint64_t, int>> events;  // (time, +1 start / -1 end); ends sort first
  for (const Interval& i : intervals) {
    events.emplace_back(i.start, +1);
    events.emplace_back(i.end, -1);
  }
  std::sort(events.begin(), events.end());
  int open = 0, best = 0;
  for (const auto& [t, d] : events) {
    open += d;
    best = std::max(best, open);
  }
  return best;
}

}  // namespace gd
