// TLB reach from strided pointer chases: for each stride, the entry counts (lines, one per
// stride) where the latency steps up are the TLB levels' reaches; comparing strides below and
// above the page size tells the page size (reach in bytes is constant below it, in entries above).
#pragma once
#include <span>
#include <vector>

namespace gd {

struct TlbPoint {
  double stride_bytes = 0;  // distance between consecutive lines of the chase
  double entries = 0;       // lines in the chase (one per stride)
  double cycles = 0;        // latency per dependent load
};

struct TlbStep {
  double stride_bytes = 0;
  double last_fast_entries = 0;  // largest line count still on the faster level
  double first_slow_entries = 0; // smallest line count on the slower level
  double reach_bytes = 0;        // last_fast_entries x stride: the span the faster level covers
  double cycles_before = 0, cycles_after = 0;
};

struct TlbReach {
  // Per stride (ascending), the steps from level to level (ascending line counts).
  std::vector<std::vector<TlbStep>> steps;
  std::vector<double> strides;
  // First step: reach in bytes at the smallest stride over its line count at the largest stride.
  // With the smallest stride below the page size and the largest at or above it, that is the page
  // size (rounded to a power of two); 0 when the data cannot tell (no step, or one stride).
  double implied_page_bytes = 0;
  // True when every stride's first step is at the same line count: all strides are at or above
  // the page size, which is then at most the smallest stride.
  bool page_at_most_smallest_stride = false;
};

// Steps are found from plateaus over log2(entries): a step is two neighbouring plateaus whose
// latencies differ by more than min_rise (fraction of the lower). Throws std::invalid_argument on
// non-positive or non-finite input.
TlbReach tlb_reach(std::span<const TlbPoint> points, double min_rise = 0.1);

}  // namespace gd
