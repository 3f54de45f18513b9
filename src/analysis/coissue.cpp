#include "analysis/coissue.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace gd {
namespace {

enum class Side { Separate, Shared, Undecided };

Side side_of(const std::map<std::string, std::map<std::string, InterferenceVerdict>>& rows, const std::string& row,
             const std::string& col) {
  const auto r = rows.find(row);
  if (r == rows.end()) return Side::Undecided;
  const auto v = r->second.find(col);
  if (v == r->second.end() || !v->second.decisive) return Side::Undecided;
  return v->second.same_pipe_score < 0.5 ? Side::Separate : Side::Shared;
}

bool positive(double v) { return std::isfinite(v) && v > 0; }

}  // namespace

CoissuePairs coissue_pairs(const std::vector<std::string>& classes,
                           const std::map<std::string, std::map<std::string, InterferenceVerdict>>& rows) {
  CoissuePairs out;
  for (std::size_t i = 0; i < classes.size(); ++i)
    for (std::size_t j = i + 1; j < classes.size(); ++j) {
      const Side ab = side_of(rows, classes[i], classes[j]), ba = side_of(rows, classes[j], classes[i]);
      const std::string name = classes[i] + "+" + classes[j];
      if (ab == Side::Shared || ba == Side::Shared) out.shared.push_back(name);
      else if (ab == Side::Separate && ba == Side::Separate) out.confirmed.push_back(name);
      else out.undecided.push_back(name);
    }
  return out;
}

double mix_gain_percent(double x_ratio, double x_alone, double y_ratio, double y_alone) {
  if (!positive(x_ratio) || !positive(x_alone) || !positive(y_ratio) || !positive(y_alone))
    throw std::invalid_argument("mix_gain_percent: rates must be positive and finite");
  return 100.0 * ((x_ratio * x_alone + y_ratio * y_alone) / x_alone - 1.0);
}

BackpressureVerdict backpressure_independence(const std::string& a, const std::string& b, double a_beside_b,
                                              double b_beside_a, double limit) {
  if (!positive(a_beside_b) || !positive(b_beside_a) || !positive(limit))
    throw std::invalid_argument("backpressure_independence: ratios must be positive and finite");
  BackpressureVerdict v;
  v.worst = std::max(a_beside_b, b_beside_a);
  v.independent = v.worst <= limit;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s: one %s warp's step time beside saturated %s is x%.2f of alone, one %s warp's beside saturated "
                "%s x%.2f (independent when neither exceeds x%.2f)",
                v.independent ? "yes" : "no", a.c_str(), b.c_str(), a_beside_b, b.c_str(), a.c_str(), b_beside_a,
                limit);
  v.text = buf;
  return v;
}

}  // namespace gd
