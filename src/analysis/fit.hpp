// Fits that turn raw timings into architecture numbers: chain slopes and throughput knees.
#pragma once
#include <span>

namespace gd {

struct LineFit {
  double slope = 0, intercept = 0;
  double r2 = 0;  // 1 for a perfect line; NaN when y has no variance
  std::size_t n = 0;
};

// Least-squares line. Throws std::invalid_argument on size mismatch, NaN, or < 2 distinct x.
LineFit fit_line(std::span<const double> x, std::span<const double> y);

// Latency per step from timings of dependent chains of different lengths: the slope of
// cycles over steps, so launch and clock-read overheads (the intercept) fall out.
inline LineFit fit_chain_slope(std::span<const double> steps, std::span<const double> cycles) {
  return fit_line(steps, cycles);
}

struct Knee {
  std::size_t index = 0;  // first point reaching `fraction` of the best
  double x = 0, y = 0;
  double peak = 0;        // best y over all points
};

// The knee of a rising-then-saturating curve: the first x whose y reaches fraction * max(y).
// x must be sorted ascending. Throws std::invalid_argument on empty input or NaN.
Knee find_knee(std::span<const double> x, std::span<const double> y, double fraction = 0.95);

}  // namespace gd
