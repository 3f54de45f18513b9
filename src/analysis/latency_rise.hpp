// Where queueing sets in on a bandwidth-versus-bytes-in-flight curve: the least depth at which
// the Little's-law latency has grown by a factor over the unloaded latency (the "latency about
// doubles" knee of a copy engine's request queue).
#pragma once
#include <span>

#include "analysis/inflight.hpp"

namespace gd {

struct LatencyRise {
  bool found = false;       // some depth of the envelope reaches the factor
  double bytes_per_sm = 0;  // the least such depth
  double latency_ns = 0;    // its Little's-law latency
};

// envelope: (depth, best bandwidth) ascending in depth, as analyze_inflight returns it.
// Throws std::invalid_argument on an empty envelope, depths not ascending, NaN, sm_count < 1, a
// non-positive or NaN unloaded latency, or a factor not above 1.
LatencyRise latency_rise(std::span<const InflightPoint> envelope, int sm_count, double unloaded_ns, double factor = 2.0);

}  // namespace gd
