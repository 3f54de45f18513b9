// Access granularity from a stride sweep: a warp's 32 four-byte loads at a stride of s bytes move
// whole units of G bytes (a sector, a line), so the useful bandwidth falls as 1/units moved; the
// G whose model fits the measured curve best is the granularity the level transfers in.
#pragma once
#include <span>
#include <vector>

namespace gd {

struct StridePoint {
  double stride_bytes = 0;    // between consecutive lanes' 4-byte loads
  double useful_rate = 0;     // requested bytes per clock (4 per lane per load)
};

// Bytes a warp's 32 four-byte loads at `stride` move when the level transfers units of g bytes
// (aligned requests): the span 32 x stride rounded up to units, at most 32 units.
double bytes_moved_per_warp(double stride, double g);

struct Granularity {
  double unit_bytes = 0;       // the best-fitting G
  double transfer_rate = 0;    // the fitted raw rate (bytes moved per clock) at that G
  std::vector<double> candidates, rms_log_error;  // every candidate's fit, for the record
};

// Fits rate(s) = C x 128 / bytes_moved_per_warp(s, G) for each candidate G (least squares on
// log rates), returns the best. Needs at least 3 points with positive stride and rate; throws
// std::invalid_argument otherwise.
Granularity access_granularity(std::span<const StridePoint> points, std::span<const double> candidates);

}  // namespace gd
