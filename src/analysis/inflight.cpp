#include "analysis/inflight.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <vector>

#include "analysis/fit.hpp"

namespace gd {

double littles_latency_ns(double bytes_per_sm, double tbps, int sm_count) {
  if (!(tbps > 0)) return std::numeric_limits<double>::quiet_NaN();
  return bytes_per_sm * sm_count / (tbps * 1e12) * 1e9;
}

InflightCurve analyze_inflight(std::span<const InflightPoint> points, int sm_count, double fraction) {
  if (points.empty()) throw std::invalid_argument("analyze_inflight: no points");
  if (sm_count < 1) throw std::invalid_argument("analyze_inflight: sm_count must be positive");
  if (!(fraction > 0 && fraction <= 1)) throw std::invalid_argument("analyze_inflight: fraction outside (0, 1]");
  std::map<double, double> best;
  for (const InflightPoint& p : points) {
    if (std::isnan(p.bytes_per_sm) || std::isnan(p.tbps)) throw std::invalid_argument("analyze_inflight: NaN point");
    if (!(p.bytes_per_sm > 0)) throw std::invalid_argument("analyze_inflight: bytes in flight must be positive");
    auto [it, fresh] = best.emplace(p.bytes_per_sm, p.tbps);
    if (!fresh) it->second = std::max(it->second, p.tbps);
  }
  InflightCurve c;
  std::vector<double> x, y;
  for (const auto& [depth, tbps] : best) {
    c.envelope.push_back({depth, tbps});
    x.push_back(depth);
    y.push_back(tbps);
  }
  const Knee k = find_knee(x, y, fraction);
  c.plateau_tbps = k.peak;
  c.knee_bytes_per_sm = k.x;
  c.knee_tbps = k.y;
  c.knee_latency_ns = littles_latency_ns(k.x, k.y, sm_count);
  std::vector<double> unloaded;
  for (const InflightPoint& p : c.envelope)
    if (p.tbps < 0.5 * c.plateau_tbps && p.tbps > 0) unloaded.push_back(littles_latency_ns(p.bytes_per_sm, p.tbps, sm_count));
  if (unloaded.empty()) {
    c.unloaded_latency_ns = std::numeric_limits<double>::quiet_NaN();
  } else {
    std::sort(unloaded.begin(), unloaded.end());
    const std::size_t n = unloaded.size();
    c.unloaded_latency_ns = n % 2 ? unloaded[n / 2] : 0.5 * (unloaded[n / 2 - 1] + unloaded[n / 2]);
  }
  return c;
}

}  // namespace gd
