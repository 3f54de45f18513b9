// Two runs side by side (two GPUs, two builds, two days): records matched by probe id and
// parameters, metrics by name, each with its B/A ratio; what only one run has is listed.
#pragma once
#include <string>

#include "core/run_file.hpp"

namespace gd {

// Markdown. A ratio is blank when a side lacks the metric and "n/a" when it cannot be formed
// (A is zero or unknown, or the units differ).
std::string compare_runs(const RunDocument& a, const RunDocument& b);

}  // namespace gd
