#include "analysis/scheduler_sharing.hpp"

#include <algorithm>
#include <map>

namespace gd {

std::optional<SchedulerSharing> scheduler_sharing(const std::vector<std::pair<unsigned, double>>& warps,
                                                  double instr_per_warp, unsigned schedulers) {
  if (schedulers == 0 || !(instr_per_warp > 0)) return std::nullopt;
  std::map<unsigned, std::vector<double>> by_sched;
  for (const auto& [warpid, cycles] : warps) by_sched[warpid % schedulers].push_back(cycles);
  double lone = 0;
  for (const auto& [sched, cycles] : by_sched)
    if (cycles.size() == 1) lone = std::max(lone, cycles.front());
  SchedulerSharing out;
  bool any = false;
  for (const auto& [sched, cycles] : by_sched) {
    if (cycles.size() < 2) continue;
    const auto [lo, hi] = std::minmax_element(cycles.begin(), cycles.end());
    if (!(*lo > 0)) return std::nullopt;
    out.max_over_min = std::max(out.max_over_min, *hi / *lo);
    if (lone > 0) out.over_lone = out.over_lone > 0 ? std::min(out.over_lone, *lo / lone) : *lo / lone;
    out.cycles_per_instr = std::max(out.cycles_per_instr, *hi / (double(cycles.size()) * instr_per_warp));
    any = true;
  }
  if (!any) return std::nullopt;
  return out;
}

}  // namespace gd
