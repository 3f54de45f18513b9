// Two runs side by side (two GPUs, two builds, two days): records matched by probe id and
// parameters, metrics by name, each with its B/A ratio; what only one run has is listed.
#pragma once
#include <optional>
#include <string>

#include "core/run_file.hpp"

namespace gd {

struct CompareOptions {
  // A metric moved when |B/A - 1| exceeds both this and the two runs' own noise (below).
  double threshold = 0.04;
};

// How one metric moved from A to B. The noise is what the runs themselves show: the half-range
// (max - min) / 2 of each side's samples relative to its median, added; a single value has none.
// Whether a move is better or worse follows the metric's family: latency/* is better lower,
// bandwidth/* and throughput/* better higher; any other move is only "changed".
struct Change {
  enum class Kind { Same, Regression, Improvement, Changed };
  Kind kind = Kind::Same;
  double ratio = 1;  // B / A
  double noise = 0;  // relative
};
std::string to_string(Change::Kind k);
// nullopt when no ratio can be formed (units differ, A zero or unknown).
std::optional<Change> assess(const std::string& metric, const Metric& a, const Metric& b, const CompareOptions& opts);

struct ChangeCounts {
  int regressions = 0, improvements = 0, changed = 0;
};
ChangeCounts count_changes(const RunDocument& a, const RunDocument& b, const CompareOptions& opts);

// Markdown. A ratio is blank when a side lacks the metric and "n/a" when it cannot be formed
// (A is zero or unknown, or the units differ); a metric that moved beyond the noise is marked.
std::string compare_runs(const RunDocument& a, const RunDocument& b, const CompareOptions& opts = {});
// The same comparison as data (`compare --json`, docs/json-output.md): the runs, the matched
// records with each metric's A and B values and B/A ratio (null where the Markdown says n/a or
// leaves it blank), what was matched but not compared, what only one run has, and the counts.
nlohmann::json compare_runs_json(const RunDocument& a, const RunDocument& b, const CompareOptions& opts = {});

}  // namespace gd
