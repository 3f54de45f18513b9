// Two runs side by side (two GPUs, two builds, two days): records matched by probe id and
// parameters, metrics by name, each with its B/A ratio; what only one run has is listed.
#pragma once
#include <string>

#include "core/run_file.hpp"

namespace gd {

// Markdown. A ratio is blank when a side lacks the metric and "n/a" when it cannot be formed
// (A is zero or unknown, or the units differ).
std::string compare_runs(const RunDocument& a, const RunDocument& b);
// The same comparison as data (`compare --json`, docs/json-output.md): the runs, the matched
// records with each metric's A and B values and B/A ratio (null where the Markdown says n/a or
// leaves it blank), what was matched but not compared, what only one run has, and the counts.
nlohmann::json compare_runs_json(const RunDocument& a, const RunDocument& b);

}  // namespace gd
