// How much of the seeds' study the suite covers, counted honestly. Each item of
// data/coverage/seed-items.csv is, in a run:
// - measured: timed or observed on the GPU by our code in this run (a probe declares it in
//   ProbeSpec::covers and the cover selects one record that carries the value);
// - reported: a driver or NVML property (the run's device description, or a metric that
//   data/coverage/reported-values.csv names as the driver's answer), recorded in the run;
// - not in this run: a probe covers it but the run holds no record of it;
// - not applicable to the chip (the probe was skipped, or a rule of data/coverage/not-applicable.csv
//   excludes it), with the reason;
// - still open: no probe yet, or the run's answer is no measurement: "undetermined", or a single
//   point of a curve (the cover selects several records, or the item is a curve in
//   data/coverage/curve-items.csv and the record a raw point, not its derived knee, best or fit),
//   with the reason.
// Without a run, an item is covered or still open.
#pragma once
#include <string>
#include <vector>

#include "core/json.hpp"

#include "core/probe.hpp"
#include "core/run_file.hpp"
#include "report/item_values.hpp"

namespace gd {

enum class CoverageState { Measured, Reported, NotRun, Covered, NotApplicable, Open };
std::string to_string(CoverageState s);

struct ItemCoverage {
  std::string id, category, item, unit;
  CoverageState state = CoverageState::Open;
  std::string probe, metric;       // the first probe that covers it
  std::string ours;                // our value in the seed's unit where it converts ("4.05 cycles")
  std::string seed;                // the seeds' values: "sm_120 4.22; sm_90 ~4"
  std::string reason;              // not applicable, still open: why; measured, reported: where it came from
};

struct CategoryCoverage {
  std::string category;
  int items = 0, measured = 0, reported = 0, not_run = 0, covered = 0, not_applicable = 0, open = 0;
};

struct CoverageReport {
  bool with_run = false;
  std::string chip;
  std::vector<ItemCoverage> items;           // one per distinct item id, in the seed list's order
  std::vector<CategoryCoverage> categories;  // in the seed list's order, then a total row
  std::vector<std::string> unknown_items;    // "probe: item" for covers naming no seed item
  std::vector<std::string> cover_problems;   // with a run: covers selecting no record or several
};

// What one cover selects in a run: the ok records of its probe whose params include `where` and
// that carry its metric (or its extra.<field> text), or the skip that explains why there is none.
struct CoverSelection {
  const ProbeSpec* probe = nullptr;
  const SeedCover* cover = nullptr;
  std::vector<const Record*> records;
  const Record* skipped = nullptr;  // a skipped record of the probe at a point `where` allows
  // None carries the metric, but the probe ran there and declares the metric as one only `run
  // --ncu` collects (its MetricSpec description says "--ncu"): a run without the profiler lacks it.
  bool needs_ncu = false;
  // Exactly one record, or none because the probe was skipped there on this chip or the metric
  // needs the profiler: a full run must give every cover one answer, or say why it cannot.
  bool ok() const { return records.size() == 1 || (records.empty() && (skipped || needs_ncu)); }
  // "probe: item (metric where) selects 3 records: ..." or "... selects no record"; "" when ok.
  std::string problem() const;
};
std::vector<CoverSelection> cover_selections(const RunDocument& run, const std::vector<const ProbeSpec*>& probes);

// True for a text answer that says the run could not tell ("undetermined (by interference; ...)",
// "absent: ..."): such an item is not measured.
bool is_undetermined(const std::string& text);

// Covers that name no seed item, as "probe id: item id" (an error: CI checks there are none).
std::vector<std::string> unknown_covers(const std::vector<const ProbeSpec*>& probes);

CoverageReport compute_coverage(const std::vector<const ProbeSpec*>& probes, const RunDocument* run);
// The per-category table (the report's first page); with per_item, every item's line too.
std::string coverage_markdown(const CoverageReport& c, bool per_item);
nlohmann::json coverage_categories_json(const CoverageReport& c);

}  // namespace gd
