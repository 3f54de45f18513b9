// Many GPUs side by side (one host's --devices run, or the ranks of a Slurm/MPI job): each
// metric's spread across the GPUs, and the GPUs that stand out from the fleet median.
#pragma once
#include <string>
#include <vector>

#include "core/run_file.hpp"

namespace gd {

struct FleetOptions {
  // A GPU is an outlier for a metric when its value is off the fleet median by more than this
  // (relative). Needs at least three GPUs: the median of two cannot say which one is off.
  double threshold = 0.05;
};

struct FleetValue {
  std::string gpu;  // the run's GPU label
  double value = 0;
  double deviation = 0;  // value / median - 1
  bool outlier = false;
};

struct FleetMetric {
  std::string id, params, metric, unit;
  std::vector<FleetValue> values;  // one per GPU that measured it, in run order
  double median = 0, min = 0, max = 0;
  double spread = 0;  // (max - min) / median; 0 when the median is 0
};

struct FleetReport {
  std::vector<std::string> gpus;  // one label per run: "host GPU-uuid (index N, PCI ...)"
  std::vector<FleetMetric> metrics;       // measured by at least two GPUs, in first-run order
  std::vector<std::pair<std::string, int>> outliers_per_gpu;  // most first
  bool outliers_flagged = false;  // false with fewer than three GPUs
  // Per run (as gpus), the measured points flagged contended (core/tenancy.hpp): left out of the
  // fleet's values, since another process, not the card, made them what they are.
  std::vector<int> contended_per_gpu;
};

// The label a run's GPU goes by: host, model, index, PCI bus id and UUID prefix.
std::string gpu_label(const RunDocument& run);
// Ok records measured alone only (a contended point is counted, not used); a metric one GPU alone
// has is not a spread.
FleetReport fleet_report(const std::vector<RunDocument>& runs, const FleetOptions& opts = {});
std::string fleet_markdown(const FleetReport& report, const FleetOptions& opts = {});

}  // namespace gd
