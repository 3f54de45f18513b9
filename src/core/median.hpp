// The median of a sample: the one definition the analyses and reports use (summarize() in
// core/stats computes the same for a record's samples). Even counts take the mean of the two
// middle values; an empty sample has no median (NaN), where the copies this replaced indexed
// before the start of an empty vector.
#pragma once
#include <algorithm>
#include <limits>
#include <span>
#include <vector>

namespace gd {

inline double median_of(std::span<const double> sample) {
  if (sample.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v(sample.begin(), sample.end());
  const std::size_t half = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + half, v.end());
  const double upper = v[half];
  if (v.size() % 2) return upper;
  return 0.5 * (*std::max_element(v.begin(), v.begin() + half) + upper);
}

}  // namespace gd
