// Reading the issue-side probes of the control study (probes/sass/outstanding_loads.cu,
// setmaxnreg.cu): where a warp issuing independent loads back to back first stops issuing (how
// many loads it had outstanding then), and what an instruction between two clock reads costs.
#pragma once
#include <span>

namespace gd {

// gaps[i]: cycles between the clock read just before load i and the one just after it (the
// load's issue plus one clock read). Issue "stops" at the first load whose gap exceeds the
// baseline (median of the first `baseline_n` gaps) by more than `min_jump` cycles and by more
// than `factor` times: the loads before it (`index` of them) were all in flight then.
struct IssueStall {
  bool found = false;
  int index = -1;             // the first stalled load = loads outstanding when issue stopped
  double baseline = 0;        // cycles per load while issue flowed
  double stall_cycles = 0;    // that load's gap
  double issued_by = 0;       // cycles from the first load's clock read to the stalled one's
  double resumed_after = 0;   // cycles from the first load's clock read until issue went on
};
// Throws std::invalid_argument on fewer than baseline_n + 1 gaps, a negative or NaN gap,
// baseline_n < 1, min_jump < 0 or factor < 1.
IssueStall find_issue_stall(std::span<const double> gaps, int baseline_n = 4, double min_jump = 16, double factor = 4);

// One operation timed between two clock reads, against empty clock pairs in the same kernel:
// the median timed pair minus the median empty one (the clock reads' own cost).
struct ClockedCost {
  double cycles = 0;      // median(timed) - median(empty)
  double overhead = 0;    // median(empty)
  double min = 0, max = 0;  // of timed - overhead
  int n = 0;
};
// Throws std::invalid_argument on an empty span or a NaN.
ClockedCost clocked_cost(std::span<const double> timed, std::span<const double> empty);

}  // namespace gd
