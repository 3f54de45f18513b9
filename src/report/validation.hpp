// Our measurements beside the published record: `gpudissect validate`. A published dataset
// (data/reference/sm_90-published-hopper.json, built by scripts/build_published_reference.py) holds
// one record per figure someone published, with extra.reference saying where, on which chip, at
// which clock, by which method, how our value is found (`ours`: a headline of report/headlines.hpp,
// one record's metric, or a device property), in which common units the two are compared
// (`compare`: as_is, or per_sm_per_clock for per-chip rates), and any known difference as data
// (`explanation`: kind, text, and what makes it checkable: `expected_ratio` [lo, hi] of
// ours/published and/or `ours_alt`, our value under the published method). docs/validation.md.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

#include "core/run_file.hpp"

namespace gd {

enum class Verdict {
  Disagrees,         // outside the tolerance and no explanation accounts for it (listed first)
  DiffersExplained,  // outside the tolerance, and the record's explanation says why
  Agrees,            // ours / published within the tolerance of the quantity's kind
  NotMeasured,       // the run has no value for it: a gap
  NotComparable,     // the two cannot be put in common units (a unit or clock is missing)
};
std::string to_string(Verdict v);  // "disagrees", "differs, explained", "agrees", "not measured", "not comparable"

// Percent by kind of quantity: latency 5, bandwidth 5, rate_per_clock 3, rate 5, size 1, count 0.5,
// time 10; any other kind 5.
double validation_tolerance_percent(const std::string& kind);

// `v` in unit `from` expressed in `to`: the run-file units (report/item_values.hpp unit_factor) and
// GiB/s, TOPS (one operation per second, as TFLOPS), GiB, ms, s, counts (count, SMs, TPCs, warps,
// registers are all counts), per-SM-per-clock rates (FLOP/clk/SM, OP/clk/SM, B/clk/SM: one
// dimension); cycles <-> ns at `clock_mhz` (0: not convertible). nullopt when not convertible.
std::optional<double> convert_value(double v, const std::string& from, const std::string& to, double clock_mhz);

// A per-chip rate (TFLOPS, TOPS, TB/s, GB/s, GiB/s) per SM per clock: operations or bytes per
// cycle per SM. nullopt for another unit, or without a positive SM count and clock.
struct PerClockValue {
  double value = 0;
  std::string unit;  // "op/clk/SM" or "B/clk/SM"
};
std::optional<PerClockValue> per_sm_per_clock(double v, const std::string& unit, int sm_count, double clock_mhz);

struct ValidationRow {
  const Record* reference = nullptr;  // the published record
  std::string id, source_key, chip, kind, compare, method, as_written;
  double published_value = 0;         // as published, in published_unit
  std::string published_unit;
  double published_clock_mhz = 0;     // 0: not stated
  // Both sides in the common unit.
  double published = 0, ours = 0, ratio = 0;  // ratio = ours / published
  std::string unit;
  std::string ours_label;             // "memory.latency.chase level=L1 variant=ca" or "device: l2_bytes"
  double ours_clock_mhz = 0;
  double tolerance_percent = 0;
  Verdict verdict = Verdict::NotMeasured;
  // For an explanation: its kind and text, whether its band or second measurement was checked,
  // and our value under the published method (ours_alt) in the common unit, NaN when none.
  std::string explanation_kind, explanation;
  bool checked = false;
  double alt = 0;
  bool has_alt = false;
  std::string note;                   // why not measured, not comparable, or why an explanation fell short
};

struct ValidationReport {
  std::string chip;                      // the run's chip
  std::vector<std::string> references;   // labels of the published datasets
  std::vector<ValidationRow> rows;       // disagrees first, then differs explained, agrees, not measured
  int count(Verdict v) const;
  int explained_checked() const;
};

// Throws UserError when `run` is itself a reference dataset or a reference is not one.
ValidationReport validate_run(const RunDocument& run, const std::vector<const RunDocument*>& references,
                              const std::vector<std::string>& reference_labels);

// The published datasets of data/reference/ (files named *-published-*.json), found beside the
// binary (its folder or the one above, data/reference/) or in the sources it was built from; the
// caller keeps those whose arch matches the run. Empty when none is found.
std::vector<std::string> published_reference_files();

std::string validation_markdown(const ValidationReport& r);
// For `coverage`: the published quantities the run has no value for, as gaps (a section with their
// count, source and why; empty when there is none).
std::string validation_gaps_markdown(const ValidationReport& r);
nlohmann::json validation_json(const ValidationReport& r);

}  // namespace gd
