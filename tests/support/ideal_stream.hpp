// A synthetic latency-bound stream for the in-flight analyses' tests.
#pragma once
#include <algorithm>
#include <vector>

#include "analysis/inflight.hpp"

namespace gd::test_support {

// rate = min(peak, depth * SMs / latency) at depths 1 KiB to 256 KiB per SM, doubling: past the
// knee (peak * latency / SMs) the rate is flat, so the latency grows with the depth.
inline std::vector<InflightPoint> ideal_stream(double latency_ns, double peak_tbps, int sms) {
  std::vector<InflightPoint> p;
  for (double depth = 1024; depth <= 256 * 1024; depth *= 2)
    p.push_back({depth, std::min(peak_tbps, depth * sms / (latency_ns * 1e-9) / 1e12)});
  return p;
}

}  // namespace gd::test_support
