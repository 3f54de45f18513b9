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
  // True when the slower side is only the sweep's last point(s), no plateau yet: a rise at the
  // end of the sweep (the step is real, the slower level's latency is a lower bound).
  bool open_ended = false;
};

// One translation level, matched across strides by the latency it starts from.
struct TlbLevel {
  double entries = 0;         // lines (pages) it holds, at strides at or above the page size; 0: unknown
  double coverage_bytes = 0;  // entries x page size (or the constant reach in bytes when every stride is below the page)
  double cycles_before = 0, cycles_after = 0;  // at the largest stride that shows it
  double largest_stride_bytes = 0;             // that stride
};

struct TlbReach {
  // Per stride (ascending), the steps from level to level (ascending line counts).
  std::vector<std::vector<TlbStep>> steps;
  std::vector<double> strides;
  std::vector<double> max_entries;     // per stride: the largest line count measured
  std::vector<double> max_span_bytes;  // per stride: max_entries x stride (how far the sweep reached)
  // The page size where the first level's reach stops scaling with the stride: in bytes below the
  // page size, in entries at or above it (rounded to a power of two); 0 when the data cannot tell.
  double implied_page_bytes = 0;
  double page_lower_bytes = 0, page_upper_bytes = 0;  // the page lies in (lower, upper] when known
  // Every stride's first step at the same line count: all strides are at or above the page size,
  // which is then at most the smallest stride.
  bool page_at_most_smallest_stride = false;
  // Every stride that steps does so at the same span in bytes: they are all below the page size
  // (or the largest equals it), which is then at least the largest of them (page_lower_bytes); the
  // level's coverage in bytes is still known. A larger stride that spanned past the step without
  // stepping bounds the page from above (page_upper_bytes: the step's span over its line count).
  bool page_above_largest_stride = false;
  std::vector<TlbLevel> levels;  // ascending latency
};

// Steps are found from plateaus over log2(entries): a step is two neighbouring plateaus whose
// latencies differ by more than min_rise (fraction of the lower), or a rise by that much over the
// last plateau at the sweep's end. Throws std::invalid_argument on non-positive or non-finite input.
TlbReach tlb_reach(std::span<const TlbPoint> points, double min_rise = 0.1);

}  // namespace gd
