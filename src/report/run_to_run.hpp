// How far each metric moves between repeated full runs of one card, the same code: the noise a
// metric measured once (a knee, a fit, a power reading) has no samples to show, and the drift
// between runs (clock, temperature, placement) that no run's own samples see. `gpudissect noise`
// builds the table from repeat runs; `compare --noise` adds it to each metric's own noise.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/run_file.hpp"

namespace gd {

// One (probe id, metric name) group over every point (params) and every pair of runs of one card.
struct RunToRunGroup {
  int moves = 0;     // points x pairs: the ln(B/A) values the estimate pools
  double sigma = 0;  // root mean square of ln(B/A): the standard deviation of a run-to-run move
  double max_abs = 0;  // the largest |ln(B/A)| seen
};

struct RunToRunTable {
  std::string gpu;  // the device name every run shares
  struct Run {
    std::string run_id, uuid, revision, started_at;
  };
  std::vector<Run> runs;
  int pairs = 0;  // pairs of runs of one physical card (same UUID) the moves came from
  std::map<std::pair<std::string, std::string>, RunToRunGroup> groups;  // (probe id, metric)
  // The group's sigma, nullopt when the table has no such group or it never moved (sigma 0: a
  // discrete quantity that repeated exactly tells nothing of how far it can jump).
  std::optional<double> sigma(const std::string& probe_id, const std::string& metric) const;
};

// Pairs every two runs of one physical card (same UUID); the runs must share the device name and
// hold at least one such pair, else UserError. Each matched metric with a B/A above 0 adds
// ln(B/A) to its (probe id, metric) group.
RunToRunTable build_run_to_run(const std::vector<RunDocument>& runs);

nlohmann::json to_json(const RunToRunTable& t);
// UserError naming `source` when the document is not such a table (kind, version, fields, values).
RunToRunTable run_to_run_from_json(const nlohmann::json& j, const std::string& source);
RunToRunTable read_run_to_run(const std::string& path);
// The committed tables (data/measured/*run-to-run*.json[.gz], found as report/data_files.hpp finds
// data), sorted; empty when none is found.
std::vector<std::string> run_to_run_files();

}  // namespace gd
