// The memory hierarchy at a glance: one row per cache level (size, line, fetch granularity, ways,
// replacement, latency, bandwidth, what shares it), read from the memory.hierarchy.* records, the
// latency chase and the headlines of a run. docs/memory-hierarchy.md says how each was measured.
#pragma once
#include <string>

#include "core/run_file.hpp"

namespace gd {

// The report's section, or "" when the run holds no memory.hierarchy record.
std::string hierarchy_glance_markdown(const RunDocument& doc);

}  // namespace gd
