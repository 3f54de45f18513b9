#include "analysis/stall_sweep.hpp"

#include <algorithm>
#include <cstdio>

namespace gd {

int stall_threshold(std::vector<StallTrial> trials) {
  std::sort(trials.begin(), trials.end(), [](const StallTrial& a, const StallTrial& b) { return a.stall < b.stall; });
  int threshold = -1;
  for (auto it = trials.rbegin(); it != trials.rend() && it->right(); ++it) threshold = it->stall;
  return threshold;
}

PatchEffect patch_effect(const std::vector<StallTrial>& trials, int compiler_stall) {
  for (const auto& t : trials)
    if (t.stall < compiler_stall && t.completed && t.wrong_lanes > 0)
      return {true, "stall " + std::to_string(t.stall) + " gave wrong results in " + std::to_string(t.wrong_lanes) + " lanes"};
  const StallTrial* at_compiler = nullptr;
  const StallTrial* top = nullptr;
  for (const auto& t : trials) {
    if (!t.right()) continue;
    if (t.stall == compiler_stall) at_compiler = &t;
    if (t.stall > compiler_stall && (!top || t.stall > top->stall)) top = &t;
  }
  if (!at_compiler || !top)
    return {false, "no stall below the compiler's corrupted results, and no right result above it to compare timing with"};
  const double grew = top->cycles_per_step - at_compiler->cycles_per_step;
  const int more = top->stall - at_compiler->stall;
  char buf[160];
  std::snprintf(buf, sizeof buf, "stall %d -> %d changed cycles per step by %.2f (expected about +%d)",
                at_compiler->stall, top->stall, grew, more);
  return {grew >= 0.5 * more, buf};
}

}  // namespace gd
