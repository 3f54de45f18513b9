// How a warp scheduler shares its issue slot between the warps bound to it, from one block's
// warps (each with its %warpid and the cycles of the same issue-bound work): warps with equal
// warpid mod `schedulers` share one. A greedy scheduler runs one sharer at a lone warp's pace and
// finishes it first; a round-robin one slows the sharers alike.
#pragma once
#include <optional>
#include <utility>
#include <vector>

namespace gd {

struct SchedulerSharing {
  double max_over_min = 0;      // the sharers' slowest over fastest, the worst scheduler
  double over_lone = 0;         // the fastest sharer over the slowest lone warp, the least (0: no lone warp)
  double cycles_per_instr = 0;  // a shared scheduler's cycles over its sharers' warp-instructions, the worst
};
// `warps`: (warpid, cycles) per warp; `instr_per_warp`: warp-instructions each ran. nullopt when
// no scheduler holds two warps, or a sharer's cycles are not positive.
std::optional<SchedulerSharing> scheduler_sharing(const std::vector<std::pair<unsigned, double>>& warps,
                                                  double instr_per_warp, unsigned schedulers = 4);

}  // namespace gd
