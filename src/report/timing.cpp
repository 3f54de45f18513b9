#include "report/timing.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace gd {

nlohmann::json timing_json(const ProbeWalls& walls, double total_s) {
  nlohmann::json by = nlohmann::json::object();
  for (const auto& [id, s] : walls) by[id] = s;
  return {{"wall_s", total_s}, {"probe_wall_s", by}};
}

ProbeWalls walls_from_timing(const nlohmann::json& timing) {
  ProbeWalls out;
  if (!timing.is_object()) return out;
  const auto by = timing.find("probe_wall_s");
  if (by == timing.end() || !by->is_object()) return out;
  for (const auto& [id, s] : by->items())
    if (s.is_number()) out.emplace_back(id, s.get<double>());
  return out;
}

ProbeWalls slowest(ProbeWalls walls, std::size_t n) {
  std::stable_sort(walls.begin(), walls.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (walls.size() > n) walls.resize(n);
  return walls;
}

std::string slowest_line(const ProbeWalls& walls, double total_s, std::size_t n) {
  if (walls.empty()) return {};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f s in all", total_s);
  std::string out = buf;
  out += "; slowest probes:";
  bool first = true;
  for (const auto& [id, s] : slowest(walls, n)) {
    std::snprintf(buf, sizeof buf, " %.1f s", s);
    out += (first ? " " : ", ") + id + buf;
    first = false;
  }
  return out;
}

void print_slowest(std::ostream& os, const ProbeWalls& walls, double total_s) {
  if (const std::string line = slowest_line(walls, total_s); !line.empty()) os << "time: " << line << "\n";
}

}  // namespace gd
