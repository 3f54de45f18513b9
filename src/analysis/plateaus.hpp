// Cache levels from a latency-versus-working-set curve: flat runs (plateaus) separated by
// transitions. Each plateau is one level of the hierarchy; where it ends is that level's reach.
#pragma once
#include <span>
#include <vector>

namespace gd {

struct Plateau {
  std::size_t first = 0, last = 0;  // indices into the input, inclusive
  double latency = 0;                // median of the plateau's points
  double start_x = 0, end_x = 0;     // working-set sizes of the first and last point
  double next_x = 0;                 // size of the first point after it (0 if none): the level ends between end_x and next_x
};

struct PlateauOptions {
  double tolerance = 0.04;  // a point joins a run if within this fraction of the run's median
  std::size_t min_points = 3;  // two similar transition points are not a level
  double merge_tolerance = 0.08;  // neighbouring plateaus closer than this are one level
};

// x ascending (working-set sizes), y latencies. Points in transitions belong to no plateau.
// Neighbouring plateaus whose latencies agree within merge_tolerance are one level, split by a
// stray point or by a gentle ramp into it (partial L1 hits just past L1), and are merged with the
// points between them; the merged latency is the median of all their points.
// Throws std::invalid_argument on mismatched sizes, unsorted x or non-finite values.
std::vector<Plateau> find_plateaus(std::span<const double> x, std::span<const double> y,
                                   const PlateauOptions& opts = {});

}  // namespace gd
