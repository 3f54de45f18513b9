// Where a latency-versus-footprint curve steps up, and how sure we are: the capacity of a cache
// level is the last footprint before the step. Each step is the best split of a segment into two
// levels (least squares on log latency), kept only when a permutation test says a split that good
// is unlikely in a curve with no step (the confidence) and the step is a real rise (min_rise).
// A flat or noisy curve gives no step: "not found" is an answer, an invented knee is not.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gd {

struct ChangePointOptions {
  double alpha = 0.01;             // a step is kept when its permutation p-value is at most this
  double min_rise = 0.10;          // ... and the later level's median exceeds the earlier's by this fraction
  std::size_t min_points = 2;      // points each side of a step
  double level_tolerance = 0.08;   // a point this close to a level's median belongs to it, not to the transition
  int permutations = 999;          // for each p-value; fixed seed: the same curve gives the same answer
  std::uint64_t seed = 0x5eed;
  std::size_t max_steps = 8;
};

struct ChangePoint {
  std::size_t index = 0;  // where the best split put the later level's first point
  // A gradual step (partial hits) has points between the levels: the lower level ends at the
  // last point within level_tolerance of its median (the capacity estimate) and the upper begins
  // at the first within tolerance of its own; a sharp step has none between.
  double last_before = 0;  // footprint of the lower level's last point
  double first_after = 0;  // footprint of the upper level's first point: the capacity is below this
  std::size_t lower_end = 0, upper_begin = 0;  // their indices: upper_begin - lower_end - 1 points lie between
  double before = 0, after = 0;  // median latency of the two segments the step split
  double rise = 0;         // after / before - 1
  double statistic = 0;    // the split's variance reduction: 1 - RSS(two levels) / RSS(one level)
  double p_value = 1;      // share of permuted curves whose best split reduced the variance as much
  double confidence = 0;   // 1 - p_value
};

struct ChangePoints {
  std::vector<ChangePoint> steps;  // ascending footprint
  std::string note;                // why nothing was found, or what limited the search
  bool found() const { return !steps.empty(); }
};

// x ascending footprints, y latencies (positive). Binary segmentation: the whole curve, then each
// side of every kept step, while a segment has room for two levels. Throws std::invalid_argument
// on mismatched sizes, unsorted x, or non-finite or non-positive values.
ChangePoints find_change_points(std::span<const double> x, std::span<const double> y,
                                const ChangePointOptions& opts = {});

// Where a bandwidth-versus-footprint curve falls (a level running out when every SM streams
// through it): the steps of the time per byte, 1 / bandwidth, which rises where the bandwidth
// drops. Bandwidths must be positive.
ChangePoints find_bandwidth_drops(std::span<const double> x, std::span<const double> bandwidth,
                                  const ChangePointOptions& opts = {});

}  // namespace gd
