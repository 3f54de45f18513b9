#include "analysis/latency_rise.hpp"

#include <cmath>
#include <stdexcept>

namespace gd {

LatencyRise latency_rise(std::span<const InflightPoint> envelope, int sm_count, double unloaded_ns, double factor) {
  if (envelope.empty()) throw std::invalid_argument("latency_rise: no points");
  if (sm_count < 1) throw std::invalid_argument("latency_rise: sm_count must be positive");
  if (!(unloaded_ns > 0)) throw std::invalid_argument("latency_rise: the unloaded latency must be positive");
  if (!(factor > 1)) throw std::invalid_argument("latency_rise: the factor must be above 1");
  double last = 0;
  for (const InflightPoint& p : envelope) {
    if (std::isnan(p.bytes_per_sm) || std::isnan(p.tbps)) throw std::invalid_argument("latency_rise: NaN point");
    if (!(p.bytes_per_sm > last)) throw std::invalid_argument("latency_rise: depths must ascend");
    last = p.bytes_per_sm;
  }
  for (const InflightPoint& p : envelope) {
    const double ns = littles_latency_ns(p.bytes_per_sm, p.tbps, sm_count);
    if (ns >= factor * unloaded_ns) return {true, p.bytes_per_sm, ns};
  }
  return {};
}

}  // namespace gd
