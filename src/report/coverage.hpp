// How much of the seeds' study the suite covers: each item of data/coverage/seed-items.csv is
// measured (a probe declares it in ProbeSpec::covers and the run has its value), not run (a probe
// covers it but the run holds no record of it), not applicable to the chip (the probe was skipped,
// or a rule of data/coverage/not-applicable.csv excludes it, with the reason), or planned (no
// probe yet). Without a run, an item is covered or planned.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/probe.hpp"
#include "core/run_file.hpp"
#include "report/item_values.hpp"

namespace gd {

enum class CoverageState { Measured, NotRun, Covered, NotApplicable, Planned };
std::string to_string(CoverageState s);

struct ItemCoverage {
  std::string id, category, item, unit;
  CoverageState state = CoverageState::Planned;
  std::string probe, metric;       // the first probe that covers it
  std::string ours;                // our value in the seed's unit where it converts ("4.05 cycles")
  std::string seed;                // the seeds' values: "sm_120 4.22; sm_90 ~4"
  std::string reason;              // not applicable: why; measured: the record it came from
};

struct CategoryCoverage {
  std::string category;
  int items = 0, measured = 0, not_run = 0, covered = 0, not_applicable = 0, planned = 0;
};

struct CoverageReport {
  bool with_run = false;
  std::string chip;
  std::vector<ItemCoverage> items;           // one per distinct item id, in the seed list's order
  std::vector<CategoryCoverage> categories;  // in the seed list's order, then a total row
  std::vector<std::string> unknown_items;    // "probe: item" for covers naming no seed item
};

// Covers that name no seed item, as "probe id: item id" (an error: CI checks there are none).
std::vector<std::string> unknown_covers(const std::vector<const ProbeSpec*>& probes);

CoverageReport compute_coverage(const std::vector<const ProbeSpec*>& probes, const RunDocument* run);
// The per-category table (the report's first page); with per_item, every item's line too.
std::string coverage_markdown(const CoverageReport& c, bool per_item);
nlohmann::json coverage_categories_json(const CoverageReport& c);

}  // namespace gd
