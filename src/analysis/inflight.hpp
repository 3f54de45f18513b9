// Bandwidth as a function of bytes in flight per SM (the async-copy study's model): the curve's
// plateau and knee, and the latency Little's law reads from it (latency = bytes in flight / rate).
#pragma once
#include <span>
#include <vector>

namespace gd {

struct InflightPoint {
  double bytes_per_sm = 0;  // bytes requested and not yet landed, per SM
  double tbps = 0;          // the whole chip's bandwidth at that depth
};

struct InflightCurve {
  std::vector<InflightPoint> envelope;  // best bandwidth per distinct depth, ascending depth
  double plateau_tbps = 0;              // the best bandwidth seen
  double knee_bytes_per_sm = 0;         // least depth reaching `fraction` of the plateau
  double knee_tbps = 0;
  // Little's law per SM: bytes in flight / (chip rate / SMs). Unloaded: the median over the
  // envelope's points below half the plateau (where queueing has not set in); NaN when there are
  // none. At the knee: the latency the chip runs at once it is saturated.
  double unloaded_latency_ns = 0;
  double knee_latency_ns = 0;
};

// Little's-law latency in ns of one depth: bytes_per_sm * sm_count / (tbps * 1e12) seconds.
double littles_latency_ns(double bytes_per_sm, double tbps, int sm_count);

// Analyses measured (depth, bandwidth) points; several configurations may share a depth (the
// best one is the envelope's). Throws std::invalid_argument on no points, a non-positive depth,
// NaN, sm_count < 1, or a fraction outside (0, 1].
InflightCurve analyze_inflight(std::span<const InflightPoint> points, int sm_count, double fraction = 0.95);

}  // namespace gd
