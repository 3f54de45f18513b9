#include "report/run_to_run.hpp"

#include <cmath>
#include <stdexcept>

#include "core/error.hpp"
#include "core/json_fields.hpp"
#include "report/compare.hpp"
#include "report/data_files.hpp"
#include "report/run_view.hpp"

namespace gd {

namespace {

constexpr const char* kKind = "gpudissect-run-to-run";
constexpr int kVersion = 1;

std::string uuid_of(const RunDocument& r) { return json_fields::nonempty_string(r.device, "uuid").value_or(""); }

struct Sums {
  int moves = 0;
  double squares = 0, max_abs = 0;
};

// Adds every matched metric's ln(B/A) of one pair of runs to its group. A sign change or a zero
// has no log ratio and says nothing of a relative spread.
void add_pair(const RunDocument& a, const RunDocument& b, std::map<std::pair<std::string, std::string>, Sums>& sums) {
  for_each_compared_metric(a, b, [&](const Record& ra, const Metric& ma, const Record&, const Metric& mb) {
    const auto ratio = ratio_of(ma, mb);
    if (!ratio || *ratio <= 0) return;
    const double r = std::log(*ratio);
    Sums& s = sums[{ra.id, ma.name}];
    ++s.moves;
    s.squares += r * r;
    s.max_abs = std::max(s.max_abs, std::fabs(r));
  });
}

}  // namespace

std::optional<double> RunToRunTable::sigma(const std::string& probe_id, const std::string& metric) const {
  const auto it = groups.find({probe_id, metric});
  if (it == groups.end() || !(it->second.sigma > 0)) return std::nullopt;
  return it->second.sigma;
}

RunToRunTable build_run_to_run(const std::vector<RunDocument>& runs) {
  if (runs.size() < 2) throw UserError("the run-to-run noise needs at least two runs of one card");
  RunToRunTable t;
  t.gpu = device_name(runs[0].device);
  for (const RunDocument& r : runs) {
    if (device_name(r.device) != t.gpu)
      throw UserError("run " + r.run_id + " is on " + device_name(r.device) + ", not " + t.gpu +
                      ": a run-to-run table is one GPU model's");
    t.runs.push_back({r.run_id, uuid_of(r), r.git_revision, r.started_at});
  }
  std::map<std::pair<std::string, std::string>, Sums> sums;
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (std::size_t j = i + 1; j < runs.size(); ++j) {
      // Two cards differ by more than a card's runs do (docs/method.md): only repeats of one card.
      if (uuid_of(runs[i]).empty() || uuid_of(runs[i]) != uuid_of(runs[j])) continue;
      if (runs[i].run_id == runs[j].run_id) throw UserError("run " + runs[i].run_id + " is given twice");
      add_pair(runs[i], runs[j], sums);
      ++t.pairs;
    }
  if (t.pairs == 0) throw UserError("no two of the runs are on one physical GPU (same UUID): nothing to pair");
  for (const auto& [key, s] : sums) t.groups[key] = {s.moves, std::sqrt(s.squares / s.moves), s.max_abs};
  return t;
}

nlohmann::json to_json(const RunToRunTable& t) {
  nlohmann::json runs = nlohmann::json::array(), groups = nlohmann::json::array();
  for (const auto& r : t.runs)
    runs.push_back({{"run_id", r.run_id}, {"uuid", r.uuid}, {"git_revision", r.revision}, {"started_at", r.started_at}});
  for (const auto& [key, g] : t.groups)
    groups.push_back({{"id", key.first}, {"metric", key.second}, {"moves", g.moves}, {"sigma", g.sigma}, {"max_abs", g.max_abs}});
  return {{"kind", kKind},
          {"version", kVersion},
          {"gpu", t.gpu},
          {"estimator", "sigma: root mean square of ln(B/A) over the group's points and pairs of runs of one card"},
          {"pairs", t.pairs},
          {"runs", runs},
          {"groups", groups}};
}

RunToRunTable run_to_run_from_json(const nlohmann::json& j, const std::string& source) {
  using namespace json_fields;
  try {
    const nlohmann::json* kind = j.is_object() ? optional(j, "kind") : nullptr;
    if (!kind || *kind != kKind)
      throw std::invalid_argument(std::string("not a run-to-run noise table (kind is not ") + kKind + ")");
    if (integer_at(j, "version") != kVersion)
      throw std::invalid_argument("version " + required(j, "version").dump() + ", this build reads " + std::to_string(kVersion));
    RunToRunTable t;
    t.gpu = string_at(j, "gpu");
    t.pairs = int(integer_at(j, "pairs"));
    if (t.pairs < 1) throw std::invalid_argument("'pairs' is below 1");
    for (const auto& r : array_at(j, "runs"))
      t.runs.push_back({string_at(r, "run_id"), string_at(r, "uuid"), string_at(r, "git_revision"), string_at(r, "started_at")});
    if (t.runs.size() < 2) throw std::invalid_argument("fewer than two runs");
    for (const auto& g : array_at(j, "groups")) {
      const std::pair<std::string, std::string> key{string_at(g, "id"), string_at(g, "metric")};
      const RunToRunGroup group{int(integer_at(g, "moves")), number_at(g, "sigma"), number_at(g, "max_abs")};
      if (group.moves < 1 || !(group.sigma >= 0) || !std::isfinite(group.sigma) || !(group.max_abs >= group.sigma))
        throw std::invalid_argument("group " + key.first + " " + key.second +
                                    ": moves below 1, or sigma not in [0, max_abs]");
      if (!t.groups.emplace(key, group).second)
        throw std::invalid_argument("group " + key.first + " " + key.second + " appears twice");
    }
    return t;
  } catch (const std::invalid_argument& e) {
    throw UserError(source + ": " + e.what());
  } catch (const nlohmann::json::exception& e) {
    throw UserError(source + ": " + e.what());
  }
}

RunToRunTable read_run_to_run(const std::string& path) {
  // The run files' reader: the same size limits, and a gzip-compressed table reads as well.
  const std::string text = read_run_text(path);
  const nlohmann::json j = parse_run_json(text, path, false);
  if (j.is_discarded()) throw UserError(path + ": not JSON");
  return run_to_run_from_json(j, path);
}

std::vector<std::string> run_to_run_files() {
  return data_files("measured", [](const std::string& name) {
    const auto ends = [&](const std::string& ext) {
      return name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0;
    };
    return name.find("run-to-run") != std::string::npos && (ends(".json") || ends(".json.gz"));
  });
}

}  // namespace gd
