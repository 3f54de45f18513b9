// Read-only views of a run document shared by the Markdown report and the comparison:
// device and run facts as table rows, and records grouped and laid out by probe.
#pragma once
#include <string>
#include <vector>

#include "core/json.hpp"

#include "core/run_file.hpp"

namespace gd {

struct Fact {
  std::string label;
  std::string value;  // Markdown, escaped
};

// Reads the device by the field names of to_json(DeviceInfo); what is missing or zero (the
// driver's "unknown") reads "unknown", so a hand-made or older file still renders.
std::vector<Fact> device_facts(const nlohmann::json& device);
std::vector<Fact> run_facts(const RunDocument& doc);
std::string device_name(const nlohmann::json& device);  // "unknown GPU" when absent
std::string cuda_version_string(long long version);     // 12040 -> "12.4"

// Visible in Markdown: anything but a verified SASS check is bold and carries a warning sign.
std::string sass_flag(SassStatus s);
// "n=7" when the repetition converged; the stop reason in bold with a warning when it did not;
// empty when nothing was repeated.
std::string convergence_cell(const Convergence& c);
// The in-run SM clock: plain for in-kernel readings, "(pts)" for a derived record's median of
// its points, "none" when the point says it has no in-run figure.
std::string clock_cell(const Record& r);
// The clock limiters NVML saw act during the point, bold with a warning; empty when none (or
// not known).
std::string throttle_cell(const Record& r);
// "power_cap, sw_thermal"; "" when none acted; "unknown" when they could not be read.
std::string throttle_text(const Record& r);

struct ProbeRecords {
  std::string id;
  std::string category;
  std::vector<const Record*> records;  // in run order
};
// Ids in order of first appearance, so a report follows the order the run measured in.
std::vector<ProbeRecords> group_by_probe(const std::vector<const Record*>& records);

// Ordered union of the parameter names of the records: the probe's declared axes in their order
// when this build registers the probe, then the rest in order of first appearance. A run file
// stores params as a JSON object, which reads back sorted by name: without the axes a report
// made from the file would order its columns unlike the one the run wrote.
std::vector<std::string> param_names(const std::vector<const Record*>& records);
std::string param_cell(const Record& r, const std::string& name);  // "" when r lacks it

struct MetricColumn {
  std::string name;
  std::string unit;         // the records' common unit
  bool uniform_unit = true;  // false: records disagree, so the unit goes in each cell
};
std::vector<MetricColumn> metric_columns(const std::vector<const Record*>& records);
std::string metric_header(const MetricColumn& c);  // "latency/cycles [cycles]"

}  // namespace gd
