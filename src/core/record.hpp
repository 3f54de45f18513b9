// One result record per probe and sweep point, and the run document that holds them.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/stats.hpp"
#include "core/sweep.hpp"

namespace gd {

inline constexpr int kSchemaVersion = 1;

enum class Status { Ok, Skipped, Failed };
enum class SassStatus { Verified, Mismatch, Unverified };
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

struct Record {
  std::string id;
  std::string category;
  Params params;
  Status status = Status::Ok;
  std::string reason;         // for skipped and failed records
  std::vector<Metric> metrics;
  SassCheck sass;
  bool derived = false;       // computed by a probe's analysis step from its other records
  double sm_clock_mhz = 0;    // observed (clock64 over globaltimer) during the measurement; 0 unknown
  double nvml_sm_clock_mhz = 0;
  double elapsed_s = 0;
  nlohmann::json extra = nlohmann::json::object();  // probe-specific details (fit quality, ...)

  const Metric* metric(const std::string& name) const;
};

nlohmann::json to_json(const Metric& m);
nlohmann::json to_json(const Record& r);
Metric metric_from_json(const nlohmann::json& j);  // throws std::invalid_argument
Record record_from_json(const nlohmann::json& j);  // throws std::invalid_argument

}  // namespace gd
