// `report`, `compare` and `import`: views and storage of run files already written. They need no GPU, so they
// work on any machine a run file is copied to.
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/result_db.hpp"
#include "core/run_file.hpp"
#include "core/run_journal.hpp"
#include "report/compare.hpp"
#include "report/csv.hpp"
#include "report/markdown.hpp"

namespace gd::cli {
namespace {

// Resolved before any work, so a wrong --out fails at once; "-" or no --out is standard output.
OutputPath output_of(const std::string& out) { return OutputPath::resolve(out.empty() ? "-" : out); }

struct ReportArgs {
  std::string run;
  std::string out;
  std::string format = "md";
};

int do_report(const ReportArgs& args) {
  const OutputPath out = output_of(args.out);
  const RunDocument doc = read_run_file(args.run);
  if (args.format == "csv") {
    std::ostringstream csv;
    write_csv(doc, csv);
    out.write(csv.str());
  } else {
    out.write(markdown_report(doc));
  }
  return 0;
}

void add_report(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand("report", "Markdown report of a run file, or its CSV export");
  auto args = std::make_shared<ReportArgs>();
  cmd->add_option("run", args->run, "Run file written by `gpudissect run`")->required()->type_name("RUN.json");
  cmd->add_option("--out,-o", args->out, "Write to this file (- or none: standard output)")->type_name("FILE");
  cmd->add_option("--format", args->format, "md: Markdown report; csv: one row per record and metric")
      ->check(CLI::IsMember({"md", "csv"}))
      ->capture_default_str();
  cmd->callback([&action, args] { action = [args] { return do_report(*args); }; });
}

struct CompareArgs {
  std::string a, b;
  std::string out;
  bool json = false;
  CompareOptions opts;
  bool fail_on_regression = false;
};

int do_compare(const CompareArgs& args) {
  const OutputPath out = output_of(args.out);
  const RunDocument a = read_run_file(args.a);
  const RunDocument b = read_run_file(args.b);
  if (!args.json) {
    out.write(compare_runs(a, b, args.opts));
  } else {
    nlohmann::json doc = json_envelope("compare");
    doc.update(compare_runs_json(a, b, args.opts));
    out.write(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  }
  // For CI: the comparison is written either way; a regression beyond the noise fails it.
  if (args.fail_on_regression) {
    const ChangeCounts c = count_changes(a, b, args.opts);
    if (c.regressions > 0) {
      std::cerr << "gpudissect: " << c.regressions << " metric(s) regressed beyond the noise and the threshold\n";
      return 1;
    }
  }
  return 0;
}

void add_compare(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand("compare", "Two runs side by side: matching probes and params, with B/A ratios");
  auto args = std::make_shared<CompareArgs>();
  cmd->add_option("a", args->a, "Run file A (the baseline)")->required()->type_name("A.json");
  cmd->add_option("b", args->b, "Run file B")->required()->type_name("B.json");
  cmd->add_option("--out,-o", args->out, "Write to this file (- or none: standard output)")->type_name("FILE");
  cmd->add_flag("--json", args->json, "The comparison as JSON instead of Markdown (docs/json-output.md)");
  cmd->add_option("--threshold", args->opts.threshold,
                  "Relative change a metric must exceed (besides the runs' own noise) to count as moved")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_flag("--fail-on-regression", args->fail_on_regression,
                "Exit 1 when a latency, bandwidth or throughput metric got worse beyond noise and threshold");
  cmd->callback([&action, args] { action = [args] { return do_compare(*args); }; });
}

struct ImportArgs {
  std::vector<std::string> runs;
  std::string db = "results/results.db";
};

// Every file is read and checked before the database is touched: a bad file imports nothing.
int do_import(const ImportArgs& args) {
  const std::vector<RunDocument> docs = read_run_files(args.runs, "imported");
  if (const auto dir = std::filesystem::path(args.db).parent_path(); !dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw UserError("cannot create the directory for database '" + args.db + "': " + ec.message());
  }
  for (const auto& doc : docs) {
    import_run(args.db, doc);
    std::cout << "imported " << doc.run_id << " (" << doc.records.size() << " records)\n";
  }
  std::cout << args.db << " now holds " << list_runs(args.db).size() << " run(s)\n";
  return 0;
}

void add_import(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand("import", "Add run files (e.g. data/measured/*.json) to a SQLite results database");
  auto args = std::make_shared<ImportArgs>();
  cmd->add_option("runs", args->runs, "Run files")->required()->type_name("RUN.json...");
  cmd->add_option("--db", args->db, "Database to add them to (created if missing)")->capture_default_str();
  cmd->callback([&action, args] { action = [args] { return do_import(*args); }; });
}

struct RecoverArgs {
  std::string journal;
  std::string out;  // default: the journal's name with .json
};

// The run file of a run that was killed (or whose last step failed), from its journal.
int do_recover(const RecoverArgs& args) {
  std::string out = args.out;
  if (out.empty()) out = std::filesystem::path(args.journal).replace_extension(".json").string();
  if (out == args.journal) throw UserError("--out must differ from the journal itself");
  const OutputPath target = OutputPath::resolve(out);
  const JournalRead j = read_journal(args.journal);
  target.write(to_json(j.doc).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  std::cerr << "recovered " << j.doc.records.size() << " record(s) of run " << j.doc.run_id << " into " << out
            << (j.finished ? (j.doc.complete ? " (the run finished)" : " (the run was interrupted)")
                           : " (the run was stopped before it finished: complete = false)")
            << (j.dropped_tail ? "; a last line cut off mid-write was dropped" : "") << "\n";
  return 0;
}

void add_recover(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand("recover", "Assemble the run file (.json) of a killed or interrupted run from its journal (.jsonl)");
  auto args = std::make_shared<RecoverArgs>();
  cmd->add_option("journal", args->journal, "Run journal written by `gpudissect run`")->required()->type_name("RUN.jsonl");
  cmd->add_option("--out,-o", args->out, "Run file to write (default: the journal's name with .json; - for standard output)")
      ->type_name("FILE");
  cmd->callback([&action, args] { action = [args] { return do_recover(*args); }; });
}

}  // namespace

void add_report_commands(CLI::App& app, std::function<int()>& action) {
  add_report(app, action);
  add_compare(app, action);
  add_import(app, action);
  add_recover(app, action);
}

}  // namespace gd::cli
