// Where a run's wall time went, per probe: stored in the run file's finish line ("timing") and
// shown after a run and in the report, so a slow run points at its slow probes.
#pragma once
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "core/json.hpp"

namespace gd {

using ProbeWalls = std::vector<std::pair<std::string, double>>;  // probe id, seconds, in run order

// {"wall_s": total, "probe_wall_s": {id: seconds}}.
nlohmann::json timing_json(const ProbeWalls& walls, double total_s);
// The inverse; a malformed "timing" object gives an empty list (the run's records are what count).
ProbeWalls walls_from_timing(const nlohmann::json& timing);
// The n slowest probes, slowest first.
ProbeWalls slowest(ProbeWalls walls, std::size_t n);
// "312 s in all; slowest: a 41.0 s, b 20.1 s, ..." (empty when there is nothing to say).
std::string slowest_line(const ProbeWalls& walls, double total_s, std::size_t n = 6);
void print_slowest(std::ostream& os, const ProbeWalls& walls, double total_s);

}  // namespace gd
