// What the co-issue matrix (pipes.coissue.matrix) says beyond its cells: which pairs of pipe
// classes are confirmed to overlap, the throughput gain of a two-stream mix over one stream, and
// whether one pipe's saturation back-pressures a warp on another.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "analysis/throughput.hpp"

namespace gd {

// Pairs of distinct classes, each once in `classes` order, as "A+B". A pair is confirmed to
// co-issue when both directions (A beside B's reference and B beside A's) are decisive and score
// as separate pipes (same_pipe_score below 0.5); shared when either direction is decisive and
// scores as one pipe; undecided otherwise (a verdict missing or not decisive).
struct CoissuePairs {
  std::vector<std::string> confirmed, shared, undecided;
};
CoissuePairs coissue_pairs(const std::vector<std::string>& classes,
                           const std::map<std::string, std::map<std::string, InterferenceVerdict>>& rows);

// Two streams X and Y side by side (rates in issue slots per clock, each measured beside the
// other over alone: x_ratio, y_ratio): their combined rate over X alone, minus one, in percent.
// Throws std::invalid_argument on non-positive or non-finite inputs.
double mix_gain_percent(double x_ratio, double x_alone, double y_ratio, double y_alone);

// One warp's step time beside a saturated other pipe over alone, both ways (A beside B, B beside
// A): independent when neither exceeds `limit`. The text names the worse ratio.
struct BackpressureVerdict {
  bool independent = false;
  double worst = 0;
  std::string text;
};
// Throws std::invalid_argument on non-positive or non-finite ratios.
BackpressureVerdict backpressure_independence(const std::string& a, const std::string& b, double a_beside_b,
                                              double b_beside_a, double limit = 1.2);

}  // namespace gd
