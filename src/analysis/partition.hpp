// Splits SMs and memory lines into two partitions from a latency matrix (SM x line): SMs with
// alike latency profiles share a partition, a line is homed where it is fast, and each SM's
// near and far latency follow (the SM_100 study's die-boundary method, applied to Hopper's L2).
#pragma once
#include <span>
#include <vector>

namespace gd {

struct PartitionMap {
  std::vector<int> sm_group;      // 0 or 1 per SM row
  std::vector<int> line_home;     // 0 or 1 per line column: the group that reads it faster
  std::vector<double> near;       // per SM: median latency over lines homed in its own group (NaN if none)
  std::vector<double> far;        // per SM: median over lines homed in the other group (NaN if none)
  std::vector<std::vector<double>> distance;  // SM x SM: RMS difference of their latency rows
  double separation = 0;          // median over SMs of far - near, in the matrix's unit

  // The SMs' near (far) latencies, leaving out the SMs that have no such line: when the matrix
  // is flat (as under compute-sanitizer) noise may home every line in one group, and the other
  // group's SMs then have no near line.
  std::vector<double> nears() const;
  std::vector<double> fars() const;
};

// latency[s][j]: SM s reading line j. Rows must be non-empty and of equal length, values finite.
// Two-means on the rows, seeded with the two most distant SMs; ties and a single SM give one
// group (all 0). Throws std::invalid_argument on ragged or non-finite input.
PartitionMap partition_two_way(const std::vector<std::vector<double>>& latency);

}  // namespace gd
