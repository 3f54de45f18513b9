#include "analysis/partition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/median.hpp"
#include "core/stats.hpp"

namespace gd {
namespace {

double rms_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t j = 0; j < a.size(); ++j) s += (a[j] - b[j]) * (a[j] - b[j]);
  return std::sqrt(s / double(a.size()));
}


}  // namespace

namespace {
std::vector<double> finite_only(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v)
    if (std::isfinite(x)) out.push_back(x);
  return out;
}
}  // namespace

std::vector<double> PartitionMap::nears() const { return finite_only(near); }
std::vector<double> PartitionMap::fars() const { return finite_only(far); }

PartitionMap partition_two_way(const std::vector<std::vector<double>>& latency) {
  const std::size_t sms = latency.size();
  if (sms == 0 || latency[0].empty()) throw std::invalid_argument("partition_two_way: empty latency matrix");
  const std::size_t lines = latency[0].size();
  for (const auto& row : latency) {
    if (row.size() != lines) throw std::invalid_argument("partition_two_way: rows of different lengths");
    for (double v : row)
      if (!std::isfinite(v)) throw std::invalid_argument("partition_two_way: non-finite latency");
  }
  PartitionMap m;
  m.distance.assign(sms, std::vector<double>(sms, 0));
  std::size_t seed_a = 0, seed_b = 0;
  for (std::size_t a = 0; a < sms; ++a)
    for (std::size_t b = a + 1; b < sms; ++b) {
      m.distance[a][b] = m.distance[b][a] = rms_diff(latency[a], latency[b]);
      if (m.distance[a][b] > m.distance[seed_a][seed_b]) seed_a = a, seed_b = b;
    }
  m.sm_group.assign(sms, 0);
  if (seed_a != seed_b) {
    std::vector<std::vector<double>> center = {latency[seed_a], latency[seed_b]};
    for (int iter = 0; iter < 100; ++iter) {
      bool changed = false;
      for (std::size_t s = 0; s < sms; ++s) {
        const int g = rms_diff(latency[s], center[1]) < rms_diff(latency[s], center[0]) ? 1 : 0;
        if (g != m.sm_group[s]) m.sm_group[s] = g, changed = true;
      }
      if (!changed && iter > 0) break;
      for (int g = 0; g < 2; ++g) {
        std::vector<double> sum(lines, 0);
        int count = 0;
        for (std::size_t s = 0; s < sms; ++s)
          if (m.sm_group[s] == g) {
            ++count;
            for (std::size_t j = 0; j < lines; ++j) sum[j] += latency[s][j];
          }
        if (count == 0) continue;
        for (double& v : sum) v /= count;
        center[g] = sum;
      }
    }
  }
  // A line is homed in the group that reads it faster on average.
  m.line_home.assign(lines, 0);
  for (std::size_t j = 0; j < lines; ++j) {
    double sum[2] = {0, 0};
    int count[2] = {0, 0};
    for (std::size_t s = 0; s < sms; ++s) sum[m.sm_group[s]] += latency[s][j], ++count[m.sm_group[s]];
    if (count[0] > 0 && count[1] > 0 && sum[1] / count[1] < sum[0] / count[0]) m.line_home[j] = 1;
  }
  std::vector<double> gaps;
  for (std::size_t s = 0; s < sms; ++s) {
    std::vector<double> own, other;
    for (std::size_t j = 0; j < lines; ++j) (m.line_home[j] == m.sm_group[s] ? own : other).push_back(latency[s][j]);
    m.near.push_back(median_of(own));
    m.far.push_back(median_of(other));
    // An SM needs both a near and a far line to have a gap: when every line is homed in the
    // other group (a flat matrix that split by noise, as under compute-sanitizer), it has none.
    if (std::isfinite(m.far.back()) && std::isfinite(m.near.back())) gaps.push_back(m.far.back() - m.near.back());
  }
  m.separation = gaps.empty() ? 0 : summarize(gaps).median;
  return m;
}

}  // namespace gd
