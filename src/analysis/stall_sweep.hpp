// Reading a control-bit stall sweep: each trial ran a dependent chain with every step's stall
// field patched to one value. Which stall is the fixed-latency threshold, and did the patch
// reach the chip at all (a patch the driver ignored must not read as "threshold 0").
#pragma once
#include <string>
#include <vector>

namespace gd {

struct StallTrial {
  int stall = 0;
  bool completed = false;      // the patched launch ran to the end
  int wrong_lanes = 0;         // lanes whose chain result missed steps
  double cycles_per_step = 0;  // slope over chain lengths
  bool right() const { return completed && wrong_lanes == 0; }
};

// The smallest tested stall from which every larger tested stall gives right results; -1 when
// the largest tested stall is already wrong. Trials in any order.
int stall_threshold(std::vector<StallTrial> trials);

struct PatchEffect {
  bool took = false;
  std::string evidence;  // what showed it, or why nothing did
};

// The edit reached the chip if a stall below the compiler's corrupted results, or if the time
// per step follows the stall above the compiler's (each extra stall cycle costs at least half a
// cycle per step here, allowing for noise). Neither: the chip ran other code than the edited words.
PatchEffect patch_effect(const std::vector<StallTrial>& trials, int compiler_stall);

}  // namespace gd
