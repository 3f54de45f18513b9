// One result record per probe and sweep point, and the run document that holds them.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

#include "core/stats.hpp"
#include "core/sweep.hpp"

namespace gd {

// 2: records name the kernels they launched and carry convergence and SM-clock provenance;
// SASS status gains not_applicable. Version 1 files are still read (those fields unknown).
inline constexpr int kSchemaVersion = 2;
inline constexpr int kOldestReadableSchemaVersion = 1;

enum class Status { Ok, Skipped, Failed };
// Verified: every kernel the point launched was checked against its expectation and held.
// Mismatch: a checked kernel's code is not what the probe says it measures (the run fails).
// Unverified: something the point ran was not checked (the reason says what).
// NotApplicable: nothing of ours ran on the SMs (a copy-engine transfer, a skipped point).
enum class SassStatus { Verified, Mismatch, Unverified, NotApplicable };
std::string to_string(Status s);
std::string to_string(SassStatus s);
Status status_from_string(const std::string& s);        // throws std::invalid_argument
SassStatus sass_status_from_string(const std::string& s);

struct Metric {
  std::string name;  // hierarchical: "latency/cycles", "bandwidth/read/tbps"
  std::string unit;
  Summary stats;     // value reported is stats.median
  double value() const { return stats.median; }
};

struct SassCheck {
  SassStatus status = SassStatus::Unverified;
  std::string detail;  // what matched, what was found instead, or why it was not checked
};

// The worst of several checks (a derived record inherits it from the points it came from):
// mismatch over unverified over verified; not_applicable only when all are.
SassCheck combine(const std::vector<SassCheck>& checks);

// How a point's repetition ended (core/stats.hpp RepeatResult), over all its measurements.
struct Convergence {
  bool recorded = false;     // false: nothing was repeated (or a version-1 run file)
  bool converged = false;    // every measurement reached its confidence target
  std::string stop_reason;   // "converged", or the first other reason: "time cap", "sample cap"
  std::size_t n = 0;         // fewest samples any of the measurements took
  int measurements = 0;
};
Convergence combine(const std::vector<Convergence>& parts);

// Where a record's SM clock comes from. Only figures taken while the measured work ran count.
enum class ClockSource {
  None,         // no in-run figure (no SM code was timed, or an old run file): sm_clock_mhz is 0
  InKernel,     // clock64 cycles over %globaltimer ns, read inside the timed kernels
  FromPoints,   // a derived record: the median of its source points' in-run clocks
};
std::string to_string(ClockSource c);
ClockSource clock_source_from_string(const std::string& s);  // throws std::invalid_argument

struct Record {
  std::string id;
  std::string category;
  Params params;
  Status status = Status::Ok;
  std::string reason;         // for skipped and failed records
  std::vector<Metric> metrics;
  SassCheck sass;
  bool derived = false;       // computed by a probe's analysis step from its other records
  std::vector<std::string> kernels;  // mangled names of the kernels the point launched
  Convergence convergence;
  double sm_clock_mhz = 0;    // observed during the measurement (see sm_clock_source); 0 unknown
  ClockSource sm_clock_source = ClockSource::None;
  std::string sm_clock_detail;  // how it was obtained, or why there is none
  double nvml_sm_clock_mhz = 0;
  double elapsed_s = 0;
  nlohmann::json extra = nlohmann::json::object();  // probe-specific details (fit quality, ...)

  const Metric* metric(const std::string& name) const;
};

// The clock limiters NVML saw act while the point ran (extra.throttle.by, set by the executor
// from NVML's cumulative throttle counters); nullopt when they could not be read.
std::optional<std::vector<std::string>> throttled_by(const Record& r);

nlohmann::json to_json(const Metric& m);
nlohmann::json to_json(const Record& r);
nlohmann::json to_json(const Convergence& c);  // null when not recorded
Metric metric_from_json(const nlohmann::json& j);  // throws std::invalid_argument
Record record_from_json(const nlohmann::json& j);  // throws std::invalid_argument

}  // namespace gd
