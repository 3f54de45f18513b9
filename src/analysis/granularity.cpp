#include "analysis/granularity.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace gd {

double bytes_moved_per_warp(double stride, double g) {
  if (stride >= g) return 32 * g;
  return std::ceil(32 * std::max(stride, 4.0) / g) * g;
}

Granularity access_granularity(std::span<const StridePoint> points, std::span<const double> candidates) {
  if (points.size() < 3) throw std::invalid_argument("access_granularity: needs at least 3 strides");
  if (candidates.empty()) throw std::invalid_argument("access_granularity: no candidate granularity");
  for (const StridePoint& p : points)
    if (!(p.stride_bytes > 0) || !(p.useful_rate > 0) || !std::isfinite(p.useful_rate))
      throw std::invalid_argument("access_granularity: strides and rates must be positive and finite");
  Granularity best;
  double best_err = std::numeric_limits<double>::infinity();
  for (double g : candidates) {
    // log rate = log C + log(128 / moved): C is the mean residual.
    double sum = 0;
    for (const StridePoint& p : points) sum += std::log(p.useful_rate) - std::log(128 / bytes_moved_per_warp(p.stride_bytes, g));
    const double log_c = sum / double(points.size());
    double err = 0;
    for (const StridePoint& p : points) {
      const double d = std::log(p.useful_rate) - log_c - std::log(128 / bytes_moved_per_warp(p.stride_bytes, g));
      err += d * d;
    }
    err = std::sqrt(err / double(points.size()));
    best.candidates.push_back(g);
    best.rms_log_error.push_back(err);
    if (err < best_err) {
      best_err = err;
      best.unit_bytes = g;
      best.transfer_rate = std::exp(log_c);
    }
  }
  return best;
}

}  // namespace gd
