#include "analysis/fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gd {

namespace {
void check_finite(std::span<const double> v, const char* what) {
  for (double x : v)
    if (!std::isfinite(x)) throw std::invalid_argument(std::string(what) + ": non-finite value");
}
}  // namespace

LineFit fit_line(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) throw std::invalid_argument("fit_line: x and y differ in length");
  check_finite(x, "fit_line x");
  check_finite(y, "fit_line y");
  const std::size_t n = x.size();
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  if (n < 2) throw std::invalid_argument("fit_line: need at least two points");
  mx /= double(n);
  my /= double(n);
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0) throw std::invalid_argument("fit_line: need at least two distinct x values");
  LineFit f;
  f.n = n;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.r2 = syy == 0 ? std::numeric_limits<double>::quiet_NaN() : (sxy * sxy) / (sxx * syy);
  return f;
}

Knee find_knee(std::span<const double> x, std::span<const double> y, double fraction) {
  if (x.empty() || x.size() != y.size()) throw std::invalid_argument("find_knee: need equal, non-empty x and y");
  check_finite(x, "find_knee x");
  check_finite(y, "find_knee y");
  if (!std::is_sorted(x.begin(), x.end())) throw std::invalid_argument("find_knee: x must be ascending");
  Knee k;
  k.peak = *std::max_element(y.begin(), y.end());
  for (std::size_t i = 0; i < y.size(); ++i)
    if (y[i] >= fraction * k.peak) {
      k.index = i;
      k.x = x[i];
      k.y = y[i];
      break;
    }
  return k;
}

}  // namespace gd
