// `merge`: the run files of many GPUs (one host's --devices run, the ranks of a Slurm or MPI job)
// into one database and a fleet report; and the --devices list `run` takes.
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "core/executor.hpp"
#include "core/registry.hpp"
#include "gpudissect_revision.h"
#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/result_db.hpp"
#include "core/run_file.hpp"
#include "report/fleet.hpp"

namespace gd::cli {

std::vector<int> parse_device_list(const std::string& text, int device_count) {
  const std::string head = "--devices '" + text + "': ";
  if (text == "all") {
    if (device_count < 0) return {};  // the syntax only
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
    if (device_count >= 0 && d >= device_count)
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
  std::vector<std::string> inputs = args.runs;
  inputs.push_back(args.db);  // the report must not overwrite the database it merges into
  const OutputPath out = output_of(args.out, inputs);
  std::vector<RunDocument> docs = read_run_files(args.runs, "merged");
  for (const std::string& path : args.runs) {
    std::error_code ec;
    if (std::filesystem::equivalent(path, args.db, ec))
      throw UserError("--db " + args.db + " is the run file " + path + " being merged; nothing was merged");
  }
  std::vector<std::string> paths = args.runs;
  for (const auto& s : drop_repeated_runs(docs, paths))
    std::cerr << "gpudissect: " << s.path << " is " << s.reason << ": merged once\n";
  if (const auto dir = std::filesystem::path(args.db).parent_path(); !dir.empty()) create_output_dir(dir.string());
  import_runs(args.db, docs);
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
                  "Distance from the fleet median that makes a GPU an outlier for a metric: a percentage (5%) or a "
                  "fraction (0.05); a bare 5 is refused as ambiguous")
      ->transform(threshold_value(10.0))
      ->default_str("5%");
  cmd->callback([&action, args] { action = [args] { return do_merge(*args); }; });
}

// `resummarize`: every probe's analysis run again, by this build, over a run file's measured
// points; the derived records are replaced, the points kept as measured.
struct ResummarizeArgs {
  std::string run;
  std::string out;
};

// A measured point the analyses can read: it carries each of its probe's axes with the declared
// type (the analyses look their axes up without checking), and at least one metric. A run file
// that breaks this is malformed: a clear error, not a crash inside an analysis.
void require_analysable(const ProbeSpec& spec, const Record& r, std::size_t index, const std::string& file) {
  if (r.derived || r.status != Status::Ok) return;
  const std::string where = file + ": record " + std::to_string(index) + " (" + r.id + ")";
  for (const Axis& a : spec.axes) {
    const ParamValue* v = find_param(r.params, a.name);
    if (!v) throw UserError(where + " has no param '" + a.name + "', an axis of its probe: the run file is malformed");
    if (!a.values.empty() && v->index() != a.values.front().index())
      throw UserError(where + ": param '" + a.name + "' has the wrong type (the probe declares " +
                      (std::holds_alternative<std::int64_t>(a.values.front()) ? "an integer" : "a string") + ")");
  }
  if (r.metrics.empty()) throw UserError(where + " is a measured point without metrics: the run file is malformed");
}

int do_resummarize(const ResummarizeArgs& args) {
  RunDocument doc = read_run_file(args.run);
  const OutputPath out = OutputPath::resolve(args.out);
  if (!doc.device.is_object()) throw UserError(args.run + ": the run file has no device description");
  DeviceInfo device;
  try {
    device = device_from_json(doc.device);
  } catch (const std::invalid_argument& e) {  // "device: missing field 'name'": the file, not us
    throw UserError(args.run + ": " + e.what());
  }
  std::vector<std::string> order;
  std::map<std::string, std::vector<Record>> points;
  std::vector<Record> kept;  // derived records of probes this build does not know
  for (std::size_t i = 0; i < doc.records.size(); ++i) {
    const Record& r = doc.records[i];
    const ProbeSpec* spec = Registry::global().find(r.id);
    if (!spec) {
      kept.push_back(r);
      continue;
    }
    if (r.derived) continue;
    require_analysable(*spec, r, i, args.run);
    if (!points.count(r.id)) order.push_back(r.id);
    points[r.id].push_back(r);
  }
  std::vector<Record> records;
  std::size_t derived = 0, failed = 0;
  for (const std::string& id : order) {
    const auto& pts = points[id];
    records.insert(records.end(), pts.begin(), pts.end());
    for (Record& d : resummarize(*Registry::global().find(id), pts, device)) {
      ++derived;
      failed += d.status == Status::Failed;
      records.push_back(std::move(d));
    }
  }
  records.insert(records.end(), kept.begin(), kept.end());
  doc.records = std::move(records);
  doc.options["resummarized"] = {{"by", std::string(GPUDISSECT_VERSION) + " (" + GPUDISSECT_GIT_REVISION + ")"},
                                 {"at", utc_now_iso8601()},
                                 {"from", args.run}};
  out.write(to_json(doc).dump(1) + "\n");
  std::cerr << "resummarized " << order.size() << " probe(s): " << derived << " derived record(s), " << failed
            << " failed analysis; " << kept.size() << " record(s) of unknown probes kept as they were\n";
  return failed ? 1 : 0;
}

void add_resummarize(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand(
      "resummarize", "Run every probe's analysis again over a run file's measured points (no GPU) and write the result");
  auto args = std::make_shared<ResummarizeArgs>();
  cmd->add_option("run", args->run, "Run file")->required()->type_name("RUN.json");
  cmd->add_option("--out,-o", args->out, "Where to write the new run file (- for standard output)")
      ->required()
      ->type_name("FILE");
  cmd->callback([&action, args] { action = [args] { return do_resummarize(*args); }; });
}

}  // namespace

void add_fleet_commands(CLI::App& app, std::function<int()>& action) {
  add_merge(app, action);
  add_resummarize(app, action);
}

}  // namespace gd::cli
