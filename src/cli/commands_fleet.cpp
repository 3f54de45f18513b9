// `merge`: the run files of many GPUs (one host's --devices run, the ranks of a Slurm or MPI job)
// into one database and a fleet report; and the --devices list `run` takes.
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/result_db.hpp"
#include "core/run_file.hpp"
#include "report/fleet.hpp"

namespace gd::cli {

std::vector<int> parse_device_list(const std::string& text, int device_count) {
  const std::string head = "--devices '" + text + "': ";
  if (text == "all") {
    if (device_count < 1) throw UserError(head + "this machine has no GPU");
    std::vector<int> all;
    for (int i = 0; i < device_count; ++i) all.push_back(i);
    return all;
  }
  std::vector<int> out;
  std::set<int> seen;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto comma = text.find(',', pos);
    const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (item.empty() || item.size() > 4 || item.find_first_not_of("0123456789") != std::string::npos)
      throw UserError(head + "expected 'all' or device indices separated by commas (0,1,3), found '" + item + "'");
    const int d = std::stoi(item);
    if (d >= device_count)
      throw UserError(head + "device " + item + " does not exist; this machine has " + std::to_string(device_count) +
                      " GPU(s): 0.." + std::to_string(device_count - 1));
    if (!seen.insert(d).second) throw UserError(head + "device " + item + " is listed twice");
    out.push_back(d);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

namespace {

struct MergeArgs {
  std::vector<std::string> runs;
  std::string db = "results/fleet.db";
  std::string out;
  FleetOptions fleet;
};

int do_merge(const MergeArgs& args) {
  const OutputPath out = OutputPath::resolve(args.out.empty() ? "-" : args.out);
  const std::vector<RunDocument> docs = read_run_files(args.runs, "merged");
  if (const auto dir = std::filesystem::path(args.db).parent_path(); !dir.empty()) create_output_dir(dir.string());
  for (const auto& doc : docs) import_run(args.db, doc);
  const FleetReport report = fleet_report(docs, args.fleet);
  out.write(fleet_markdown(report, args.fleet));
  std::cerr << "merged " << docs.size() << " run(s) into " << args.db << "; " << report.metrics.size()
            << " metric(s) measured by two or more GPUs";
  if (report.outliers_flagged && !report.outliers_per_gpu.empty())
    std::cerr << "; most outliers: " << report.outliers_per_gpu.front().first << " ("
              << report.outliers_per_gpu.front().second << ")";
  std::cerr << "\n";
  return 0;
}

void add_merge(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand(
      "merge", "Many GPUs' run files (--devices, Slurm or MPI ranks) into one database and a fleet report");
  auto args = std::make_shared<MergeArgs>();
  cmd->add_option("runs", args->runs, "Run files or journals, one or more per GPU")->required()->type_name("RUN.json...");
  cmd->add_option("--db", args->db, "Database to add them to (created if missing)")->capture_default_str();
  cmd->add_option("--out,-o", args->out, "Fleet report (Markdown) to this file (- or none: standard output)")->type_name("FILE");
  cmd->add_option("--threshold", args->fleet.threshold,
                  "Relative distance from the fleet median that makes a GPU an outlier for a metric")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->callback([&action, args] { action = [args] { return do_merge(*args); }; });
}

}  // namespace

void add_fleet_commands(CLI::App& app, std::function<int()>& action) { add_merge(app, action); }

}  // namespace gd::cli
