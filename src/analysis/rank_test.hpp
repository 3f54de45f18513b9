// The Mann-Whitney U test (Wilcoxon rank-sum) between two measured distributions, each given by
// the sketch a Summary keeps (core/stats.hpp): every sample when there were few, else evenly
// spaced order statistics standing for n samples. It asks whether B's samples tend to lie above
// or below A's, which a median with a wide spread cannot show (report/compare reads it).
#pragma once
#include <optional>

#include "core/stats.hpp"

namespace gd {

struct RankTest {
  double u = 0;            // B's U statistic: weighted pairs (a, b) with b > a, ties counting half
  double superiority = 0;  // U / (n_a n_b): P(a B sample > an A sample); 0.5 is no shift
  double z = 0;            // (U - n_a n_b / 2) / sd under no shift, tie-corrected
  double p_value = 1;      // two-sided, normal approximation
};

// nullopt when a side has no sketch or fewer than 2 samples. Each sketch point weighs
// n / points (1 when the sketch is every sample). With every value tied the test has no spread
// to go by: p is 1 when both sides are the same value and 0 when they differ.
std::optional<RankTest> mann_whitney(const Summary& a, const Summary& b);

}  // namespace gd
