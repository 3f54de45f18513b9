// The memory hierarchy at a glance: one row per cache level (size, line, fetch granularity, ways,
// replacement, latency, bandwidth, what shares it), read from the memory.hierarchy.* records, the
// latency chase and the headlines of a run. The report prints them as a table and the machine
// model (report/machine_model) carries them as data; docs/memory-hierarchy.md says how each was
// measured.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/run_file.hpp"

namespace gd {

// One answer: what a reader sees, the number behind it (when it is one) and where it came from.
struct CacheFact {
  std::string shown;              // "232 KiB", "≤ 64 B", "fifo", "undetermined"
  std::optional<double> value;    // in `unit`; nullopt for a text answer
  std::string unit;               // "bytes", "cycles", "SMs", a headline's unit
  std::string record;             // the record it came from ("" for the driver's)
};

struct CacheLevelFacts {
  std::string key;   // "l1", "readonly", "texture", "l2_segment", "constant_l1", "constant_l15", "dram"
  std::string name;  // "L1 data (ld.global)"
  // Each nullopt when the run has no answer.
  std::optional<CacheFact> capacity, line, fetch, ways, replacement, latency, bandwidth, shared_with;
};

// Empty when the run holds no memory.hierarchy record.
std::vector<CacheLevelFacts> hierarchy_facts(const RunDocument& doc);

// The report's section, or "" when the run holds no memory.hierarchy record.
std::string hierarchy_glance_markdown(const RunDocument& doc);

}  // namespace gd
