// `report`, `compare`, `coverage`, `guide`, `headlines`, `validate` and `import`: views and storage of run files already written. They
// need no GPU, so they work on any machine a run file is copied to.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
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
#include "report/accel_sim.hpp"
#include "report/compare.hpp"
#include "report/coverage.hpp"
#include "report/cross_generation.hpp"
#include "report/csv.hpp"
#include "report/format.hpp"
#include "report/guide.hpp"
#include "report/headlines.hpp"
#include "report/html_report.hpp"
#include "report/item_values.hpp"
#include "report/machine_model.hpp"
#include "report/markdown.hpp"
#include "report/probe_json.hpp"
#include "report/run_to_run.hpp"
#include "report/run_view.hpp"
#include "report/seed_items.hpp"
#include "report/validation.hpp"

namespace gd::cli {

// Resolved before any work, so a wrong --out fails at once; "-" or no --out is standard output.
// The output of a reading command; an --out that is one of the command's inputs (the same file,
// through any path or link) is refused: writing it would replace the run file being read.
OutputPath output_of(const std::string& out, const std::vector<std::string>& inputs) {
  for (const std::string& in : inputs) {
    std::error_code ec;
    // equivalent() for files that exist (through links); canonical names for one not made yet.
    if (!out.empty() && out != "-" &&
        (std::filesystem::equivalent(out, in, ec) ||
         std::filesystem::weakly_canonical(std::filesystem::absolute(out, ec), ec) ==
             std::filesystem::weakly_canonical(std::filesystem::absolute(in, ec), ec)))
      throw UserError("--out " + out + " is this command's input " + in + ": writing it would destroy it; choose another file");
  }
  return OutputPath::resolve(out.empty() ? "-" : out);
}

namespace {

struct ReportArgs {
  std::string run;
  std::string out;
  std::string format = "md";
};

// The HTML page's context: the Markdown report, what each probe declares for its figures, and
// the coverage counts drawn on the first page.
nlohmann::json html_context(const RunDocument& doc, const std::string& markdown) {
  const auto probes = registered_probes();
  return {{"title", "gpudissect report: " + printable(chip_label(doc))},
          {"markdown", markdown},
          {"probes", probes_reading_json(probes)},
          {"coverage", is_reference(doc) ? nlohmann::json::array()
                                         : coverage_categories_json(compute_coverage(probes, &doc))},
          {"headlines", is_reference(doc) ? nlohmann::json::array() : headlines_json(resolve_headlines(doc))},
          {"model", is_reference(doc) ? nlohmann::json(nullptr) : machine_model(doc)}};
}

// A published dataset is for the run's chip when its options.reference.arch is the run's sm_XX.
bool same_arch(const RunDocument& ref, const RunDocument& run) {
  const auto& r = ref.options;
  const std::string arch = r.contains("reference") && r["reference"].is_object() && r["reference"].contains("arch") &&
                                   r["reference"]["arch"].is_string()
                               ? r["reference"]["arch"].get<std::string>()
                               : "";
  if (!run.device.is_object()) return false;  // a run file may carry "device": null
  const int major = run.device.value("cc_major", 0), minor = run.device.value("cc_minor", 0);
  return arch == "sm_" + std::to_string(major * 10 + minor);
}

// The published datasets to validate a run against: `paths`, or (none given) data/reference/'s
// *-published-*.json whose arch is the run's. Labels are the file names.
struct Published {
  std::vector<RunDocument> docs;
  std::vector<std::string> labels;
  ValidationReport validate(const RunDocument& run) const {
    std::vector<const RunDocument*> refs;
    for (const RunDocument& d : docs) refs.push_back(&d);
    return validate_run(run, refs, labels);
  }
};

Published read_published(const std::vector<std::string>& paths, const RunDocument& run, bool only_same_arch) {
  Published p;
  for (const std::string& path : paths) {
    RunDocument ref = read_run_file(path);
    if (only_same_arch && !same_arch(ref, run)) continue;
    p.docs.push_back(std::move(ref));
    p.labels.push_back(std::filesystem::path(path).filename().string());
  }
  return p;
}

// The report's last section: the run beside the published record of its chip, when there is one.
std::string validation_section(const ValidationReport& rep) {
  std::string md = validation_markdown(rep), out;
  std::istringstream lines(md);
  for (std::string line; std::getline(lines, line);) out += (line.rfind('#', 0) == 0 ? "#" : "") + line + "\n";
  return out;
}

int do_report(const ReportArgs& args) {
  const std::vector<std::string> published_files = published_reference_files();
  std::vector<std::string> inputs = published_files;
  inputs.insert(inputs.begin(), args.run);
  const OutputPath out = output_of(args.out, inputs);
  const RunDocument doc = read_run_file(args.run);
  std::optional<ValidationReport> validation;
  if (!is_reference(doc) && args.format != "csv")
    if (const Published p = read_published(published_files, doc, true); !p.docs.empty()) validation = p.validate(doc);
  if (args.format == "csv") {
    std::ostringstream csv;
    write_csv(doc, csv);
    out.write(csv.str());
  } else if (args.format == "html") {
    const std::string md = markdown_report(doc, registered_probes()) + (validation ? "\n" + validation_section(*validation) : "");
    nlohmann::json context = html_context(doc, md);
    if (validation) context["validation"] = validation_json(*validation)["rows"];
    out.write(render_html(to_json(doc), context));
  } else {
    out.write(markdown_report(doc) + (validation ? "\n" + validation_section(*validation) : ""));
  }
  return 0;
}

void add_report(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand("report", "Markdown or HTML report of a run file (with figures), or its CSV export");
  auto args = std::make_shared<ReportArgs>();
  cmd->add_option("run", args->run, "Run file written by `gpudissect run`")->required()->type_name("RUN.json");
  cmd->add_option("--out,-o", args->out, "Write to this file (- or none: standard output)")->type_name("FILE");
  cmd->add_option("--format", args->format,
                  "md: Markdown report; html: the same with figures, one self-contained file (needs Python 3 with "
                  "pandas, matplotlib and markdown-it-py: scripts/setup.sh); csv: one row per record and metric")
      ->check(CLI::IsMember({"md", "csv", "html"}))
      ->capture_default_str();
  cmd->callback([&action, args] { action = [args] { return do_report(*args); }; });
}

struct CompareArgs {
  std::vector<std::string> runs;
  std::string out;
  std::string format = "md";
  bool json = false;
  bool cross = false;
  CompareOptions opts;
  std::string noise = "auto";  // a run-to-run table (`gpudissect noise`), auto or none
  bool fail_on_regression = false;
};

// The seeds' quantities across chips: any number of runs and reference datasets (data/reference/).
int do_cross_generation(const CompareArgs& args, const std::vector<RunDocument>& docs, const OutputPath& out) {
  if (args.json) throw UserError("--json compares two runs record by record; the cross-generation table is md or html");
  if (args.fail_on_regression) throw UserError("--fail-on-regression compares two runs, not a cross-generation table");
  const std::string md = cross_generation_markdown(cross_generation(docs, args.runs, registered_probes()));
  if (args.format == "html")
    out.write(render_html(nullptr, {{"title", "gpudissect: cross-generation comparison"}, {"markdown", md}}));
  else
    out.write(md);
  return 0;
}

int do_compare(const CompareArgs& args) {
  const OutputPath out = output_of(args.out, args.runs);
  std::vector<RunDocument> docs;
  for (const auto& path : args.runs) docs.push_back(read_run_file(path));
  const bool any_reference = std::any_of(docs.begin(), docs.end(), [](const RunDocument& d) { return is_reference(d); });
  if (args.cross || any_reference || docs.size() > 2) return do_cross_generation(args, docs, out);
  if (args.format == "html") throw UserError("--format html is for the cross-generation table (--cross)");
  const RunDocument& a = docs[0];
  const RunDocument& b = docs[1];
  CompareOptions opts = args.opts;
  std::optional<RunToRunTable> table;
  if (args.noise == "auto") {
    // The committed table of the runs' GPU model, when both runs are of one model and one is found.
    if (device_name(a.device) == device_name(b.device))
      for (const std::string& path : run_to_run_files())
        if (RunToRunTable t = read_run_to_run(path); t.gpu == device_name(a.device)) {
          table = std::move(t);
          opts.run_to_run_file = path;
          opts.run_to_run_found = true;
          break;
        }
  } else if (args.noise != "none") {
    table = read_run_to_run(args.noise);
    // Another model's spread is no guide to this one's (a card's memory, clocks and power differ).
    for (const RunDocument* run : {&a, &b})
      if (device_name(run->device) != table->gpu)
        throw UserError("--noise " + args.noise + " was measured on " + table->gpu + "; run " + run->run_id + " is on " +
                        device_name(run->device));
    opts.run_to_run_file = args.noise;
  }
  if (table) opts.run_to_run = &*table;
  if (!args.json) {
    out.write(compare_runs(a, b, opts));
  } else {
    nlohmann::json doc = json_envelope("compare");
    doc.update(compare_runs_json(a, b, opts));
    out.write(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  }
  // For CI: the comparison is written either way; a regression beyond the noise fails it.
  if (args.fail_on_regression) {
    const ChangeCounts c = count_changes(a, b, opts);
    if (c.regressions > 0) {
      std::cerr << "gpudissect: " << c.regressions << " metric(s) regressed beyond the noise and the threshold\n";
      return 1;
    }
  }
  return 0;
}

struct ExportArgs {
  std::string run, format = "accel-sim", out, diff;
};

// A run as the files a simulator reads (report/accel_sim.hpp): gpgpusim.config, trace.config and
// the opcode table in --out, with the comparison against --diff beside them.
int do_export(const ExportArgs& args) {
  if (args.format == "model") {
    if (!args.diff.empty()) throw UserError("--diff compares Accel-Sim configurations: it goes with --format accel-sim");
    const OutputPath out = output_of(args.out, {args.run});
    const RunDocument run = read_run_file(args.run);
    out.write(machine_model(run).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    return 0;
  }
  const RunDocument run = read_run_file(args.run);
  std::optional<std::map<std::string, std::string>> theirs;
  if (!args.diff.empty()) {
    theirs = parse_config(read_run_text(args.diff));  // read_run_text: the size limits of a run file
    if (theirs->empty()) throw UserError(args.diff + ": no '-option value' line: not a gpgpu-sim configuration");
  }
  check_output_dir(args.out);
  const AccelSimExport e = accel_sim_export(run);
  create_output_dir(args.out);
  const std::filesystem::path dir(args.out);
  write_file_atomic((dir / "gpgpusim.config").string(), render_config(e.gpgpusim, run, "gpgpusim.config"));
  write_file_atomic((dir / "trace.config").string(), render_config(e.trace, run, "trace.config"));
  write_file_atomic((dir / "opcodes.csv").string(), render_opcode_table(e));
  int measured = 0, lines = 0;
  for (const auto* part : {&e.gpgpusim, &e.trace})
    for (const ConfigLine& l : *part) measured += l.measured, ++lines;
  std::cerr << "export: " << measured << " of " << lines << " options from this run's records, " << e.opcodes.size()
            << " opcode latencies, in " << args.out << "\n";
  if (theirs) {
    write_file_atomic((dir / "diff.md").string(),
                      diff_config(e, *theirs, std::filesystem::path(args.diff).filename().string()));
    std::cerr << "export: the comparison with " << args.diff << " is in " << (dir / "diff.md").string() << "\n";
  }
  return 0;
}

void add_export(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand("export", "A run as a simulator's configuration (Accel-Sim: gpgpusim.config, trace.config, "
                                           "the opcode latency table) or as a machine model (one JSON document), each "
                                           "value naming the record it came from");
  auto args = std::make_shared<ExportArgs>();
  cmd->add_option("run", args->run, "Run file")->required()->type_name("RUN.json");
  cmd->add_option("--format", args->format, "accel-sim (a folder of files) or model (schemas/model.schema.json)")
      ->check(CLI::IsMember({"accel-sim", "model"}))
      ->capture_default_str();
  cmd->add_option("--out,-o", args->out,
                  "accel-sim: the folder for the files (created; files of the same names are replaced); model: the "
                  "file (- for standard output)")
      ->required()
      ->type_name("DIR");
  cmd->add_option("--diff", args->diff,
                  "A gpgpu-sim configuration to set ours beside, option by option (data/accel-sim/SM90_H100.config: "
                  "Accel-Sim's tested H100); written to DIR/diff.md")
      ->type_name("FILE");
  cmd->callback([&action, args] { action = [args] { return do_export(*args); }; });
}

struct NoiseArgs {
  std::vector<std::string> runs;
  std::string out;
};

int do_noise(const NoiseArgs& args) {
  const OutputPath out = output_of(args.out, args.runs);
  const RunToRunTable t = build_run_to_run(read_run_files(args.runs, "written"));
  out.write(to_json(t).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  std::cerr << "noise: " << t.groups.size() << " (probe, metric) groups from " << t.pairs << " pair(s) of runs of one "
            << t.gpu << "\n";
  return 0;
}

void add_noise(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand(
      "noise", "How far each metric moves between repeat runs of one card (same code): the table `compare --noise` "
               "adds to each metric's own noise");
  auto args = std::make_shared<NoiseArgs>();
  cmd->add_option("runs", args->runs,
                  "Full runs of one GPU model; every two on one physical card (same UUID) form a pair")
      ->required()
      ->expected(2, 1 << 16)
      ->type_name("A.json B.json [C.json...]");
  cmd->add_option("--out,-o", args->out, "Write the table to this file (- or none: standard output)")->type_name("FILE");
  cmd->callback([&action, args] { action = [args] { return do_noise(*args); }; });
}

void add_compare(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand(
      "compare", "Two runs side by side (matching probes and params, with B/A ratios), or the reference studies' "
                 "quantities across any number of runs and reference datasets (data/reference/)");
  auto args = std::make_shared<CompareArgs>();
  cmd->add_option("runs", args->runs,
                  "Run files: two are compared record by record (the first is the baseline); more, or any "
                  "reference dataset, give the cross-generation table")
      ->required()
      ->expected(2, 1 << 16)
      ->type_name("A.json B.json [C.json...]");
  cmd->add_option("--out,-o", args->out, "Write to this file (- or none: standard output)")->type_name("FILE");
  cmd->add_flag("--json", args->json, "The comparison as JSON instead of Markdown (docs/json-output.md)");
  cmd->add_flag("--cross", args->cross, "The cross-generation table even for two runs");
  cmd->add_option("--format", args->format, "md or html (html: the cross-generation table as one page)")
      ->check(CLI::IsMember({"md", "html"}))
      ->capture_default_str();
  cmd->add_option("--threshold", args->opts.threshold,
                  "Change a metric must exceed (besides the runs' own noise) to count as moved: a percentage (4%) "
                  "or a fraction (0.04); a bare 4 is refused as ambiguous")
      ->transform(threshold_value(10.0))
      ->default_str("4%");
  cmd->add_option("--noise", args->noise,
                  "Run-to-run noise table (`gpudissect noise`) of the runs' GPU model: each metric's spread between "
                  "repeat runs of one card is added to its own noise. auto (the default): the committed table of "
                  "the runs' model in data/measured when one is found (the summary names it); none: the runs' "
                  "samples alone")
      ->type_name("auto|none|TABLE.json")
      ->capture_default_str();
  cmd->add_flag("--fail-on-regression", args->fail_on_regression,
                "Exit 1 when a latency, bandwidth or throughput metric got worse beyond noise and threshold");
  cmd->callback([&action, args] { action = [args] { return do_compare(*args); }; });
}

struct CoverageArgs {
  std::string run;
  std::string out;
  bool check_covers = false;
};

// Exit 1 when a probe covers an item id no seed item has, or (--check-covers, for a full run) when
// a cover selects no record or several: the declarations are wrong.
int do_coverage(const CoverageArgs& args) {
  const std::vector<std::string> published_files = published_reference_files();
  std::vector<std::string> inputs = published_files;
  inputs.insert(inputs.begin(), args.run);
  const OutputPath out = output_of(args.out, inputs);
  const auto probes = registered_probes();
  std::optional<RunDocument> doc;
  if (!args.run.empty()) doc = read_run_file(args.run);
  const CoverageReport c = compute_coverage(probes, doc ? &*doc : nullptr);
  // What others published for the chip and the run did not measure is a gap too.
  std::string gaps;
  if (doc && !is_reference(*doc))
    if (const Published p = read_published(published_files, *doc, true); !p.docs.empty())
      gaps = validation_gaps_markdown(p.validate(*doc));
  out.write(coverage_markdown(c, true) + (gaps.empty() ? "" : "\n" + gaps));
  for (const auto& u : c.unknown_items) std::cerr << "gpudissect: covers names no item of the reference studies: " << u << "\n";
  // A row of data/coverage/covers.csv for a probe this build lacks would answer nothing, silently.
  bool orphan_rows = false;
  for (const TableCover& t : table_covers())
    if (std::none_of(probes.begin(), probes.end(), [&](const ProbeSpec* p) { return p->id == t.probe; })) {
      std::cerr << "gpudissect: data/coverage/covers.csv: " << t.item << " names no probe of this build: " << t.probe << "\n";
      orphan_rows = true;
    }
  if (args.check_covers) {
    if (!doc) throw UserError("--check-covers needs a run file");
    for (const auto& p : c.cover_problems) std::cerr << "gpudissect: cover " << p << "\n";
  }
  const bool covers_bad = args.check_covers && !c.cover_problems.empty();
  return c.unknown_items.empty() && !covers_bad && !orphan_rows ? 0 : 1;
}

void add_coverage(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand(
      "coverage", "Which items of the reference studies (the SM_120 microarchitecture paper, the SM_100 study, the "
                  "SM100a ISA reference) the probes cover and, with a run, which it measured (with our value beside "
                  "the studies'), which are not applicable to its chip, which are planned");
  auto args = std::make_shared<CoverageArgs>();
  cmd->add_option("run", args->run, "Run file (optional)")->type_name("RUN.json");
  cmd->add_option("--out,-o", args->out, "Write to this file (- or none: standard output)")->type_name("FILE");
  cmd->add_flag("--check-covers", args->check_covers,
                "Exit 1 when a cover selects no record or several in the run (for a full run: each cover must select "
                "exactly one record, or none where its probe was skipped on this chip)");
  cmd->callback([&action, args] { action = [args] { return do_coverage(*args); }; });
}

struct GuideArgs {
  std::string run;
  std::string out;
};

int do_guide(const GuideArgs& args) {
  const OutputPath out = output_of(args.out, {args.run});
  const RunDocument doc = read_run_file(args.run);
  if (is_reference(doc)) throw UserError(args.run + ": a reference dataset; the guide is derived from a run");
  out.write(guide_markdown(derive_guide(doc, registered_probes()), chip_label(doc)));
  return 0;
}

void add_guide(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand(
      "guide", "Guidance for kernel authors from a run: the SM_120 paper's seven principles as rules over its metrics");
  auto args = std::make_shared<GuideArgs>();
  cmd->add_option("run", args->run, "Run file")->required()->type_name("RUN.json");
  cmd->add_option("--out,-o", args->out, "Write to this file (- or none: standard output)")->type_name("FILE");
  cmd->callback([&action, args] { action = [args] { return do_guide(*args); }; });
}

struct HeadlinesArgs {
  std::string run;
  std::string out;
  bool json = false;
};

// The figures README, notes and the report quote: one resolver (report/headlines.hpp).
int do_headlines(const HeadlinesArgs& args) {
  const OutputPath out = output_of(args.out, {args.run});
  const RunDocument doc = read_run_file(args.run);
  if (is_reference(doc)) throw UserError(args.run + ": a reference dataset; headlines are resolved from a run");
  const auto headlines = resolve_headlines(doc);
  if (args.json) out.write(headlines_json(headlines).dump(2) + "\n");
  else out.write("# Headlines: " + markdown_escape(chip_label(doc)) + "\n\n" + headlines_markdown(headlines));
  return 0;
}

void add_headlines(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand(
      "headlines", "Each quantity's headline in a run: the best honest record of it, named with the shape that won, "
                   "its SM clock and its verdicts");
  auto args = std::make_shared<HeadlinesArgs>();
  cmd->add_option("run", args->run, "Run file")->required()->type_name("RUN.json");
  cmd->add_option("--out,-o", args->out, "Write to this file (- or none: standard output)")->type_name("FILE");
  cmd->add_flag("--json", args->json, "One JSON array (quantity, value, unit, record, shape, clock, verdicts)");
  cmd->callback([&action, args] { action = [args] { return do_headlines(*args); }; });
}

struct ValidateArgs {
  std::string run;
  std::vector<std::string> references;  // empty: data/reference/'s published datasets for the run's arch
  std::string out;
  std::string format = "md";
  bool json = false;
};

// Every published figure beside ours, with a verdict (report/validation.hpp, docs/validation.md).
int do_validate(const ValidateArgs& args) {
  const bool defaults = args.references.empty();
  const std::vector<std::string> candidates = defaults ? published_reference_files() : args.references;
  std::vector<std::string> inputs = candidates;
  inputs.insert(inputs.begin(), args.run);
  const OutputPath out = output_of(args.out, inputs);
  if (args.json && args.format != "md") throw UserError("--json and --format " + args.format + " are two outputs; choose one");
  const RunDocument run = read_run_file(args.run);
  const Published published = read_published(candidates, run, defaults);
  if (published.docs.empty())
    throw UserError("no published dataset for " + chip_label(run) +
                    (defaults ? " in data/reference/ (*-published-*.json); give one with --reference" : ""));
  const ValidationReport rep = published.validate(run);
  if (args.json) {
    nlohmann::json doc = json_envelope("validate");
    doc.update(validation_json(rep));
    out.write(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  } else if (args.format == "html") {
    out.write(render_html(nullptr, {{"title", "gpudissect: " + printable(rep.chip) + " against the published record"},
                               {"markdown", validation_markdown(rep)},
                               {"validation", validation_json(rep)["rows"]}}));
  } else {
    out.write(validation_markdown(rep));
  }
  return 0;
}

void add_validate(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand(
      "validate", "Every figure others have published for this chip beside ours, in common units, with a verdict: "
                  "agrees, differs (explained), disagrees, not measured (docs/validation.md)");
  auto args = std::make_shared<ValidateArgs>();
  cmd->add_option("run", args->run, "Run file")->required()->type_name("RUN.json");
  cmd->add_option("--reference", args->references,
                  "Published dataset to validate against, repeatable (default: data/reference/*-published-*.json of the "
                  "run's arch)")
      ->allow_extra_args(false)
      ->type_name("FILE");
  cmd->add_option("--out,-o", args->out, "Write to this file (- or none: standard output)")->type_name("FILE");
  cmd->add_flag("--json", args->json, "The verdicts as JSON (counts and one row per published figure)");
  cmd->add_option("--format", args->format, "md or html (one self-contained page)")
      ->check(CLI::IsMember({"md", "html"}))
      ->capture_default_str();
  cmd->callback([&action, args] { action = [args] { return do_validate(*args); }; });
}

struct ImportArgs {
  std::vector<std::string> runs;
  std::string db = "results/results.db";
  bool replace = false;  // a stored run with the same id but other measurements is replaced
};

// Every file is read and checked before the database is touched: a bad run file imports nothing.
// Files that are not runs at all (the .md beside a run, another tool's JSON in the same folder)
// are skipped, each named with the reason; a list with no run in it is an error.
int do_import(const ImportArgs& args) {
  RunFiles files = read_run_files_among_others(args.runs);
  for (const auto& s : files.skipped) std::cerr << "gpudissect: skipped " << s.path << ": " << s.reason << "\n";
  for (const auto& s : drop_repeated_runs(files.docs, files.paths))
    std::cerr << "gpudissect: " << s.path << " is " << s.reason << ": imported once\n";
  if (files.docs.empty())
    throw UserError("no run file among the " + std::to_string(args.runs.size()) + " file(s) given; nothing was imported");
  const std::vector<RunDocument>& docs = files.docs;
  if (const auto dir = std::filesystem::path(args.db).parent_path(); !dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw UserError("cannot create the directory for database '" + args.db + "': " + ec.message());
  }
  for (const std::string& path : files.paths) {
    std::error_code ec;
    if (std::filesystem::equivalent(path, args.db, ec))
      throw UserError("--db " + args.db + " is the run file " + path + " being imported; nothing was imported");
  }
  const std::vector<ImportOutcome> outcomes = import_runs(args.db, docs, args.replace);
  for (std::size_t i = 0; i < docs.size(); ++i)
    std::cout << "imported " << printable(docs[i].run_id) << " (" << docs[i].records.size() << " records)"
              << (outcomes[i] == ImportOutcome::SameRunAgain ? ": the same run was stored already and is refreshed"
                  : outcomes[i] == ImportOutcome::ReplacedDifferent ? ": REPLACED the stored run of that id (--replace)"
                                                                    : "")
              << "\n";
  std::cout << args.db << " now holds " << list_runs(args.db).size() << " run(s)";
  if (!files.skipped.empty()) std::cout << "; " << files.skipped.size() << " file(s) that are not runs skipped (named above)";
  std::cout << "\n";
  return 0;
}

void add_import(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand("import", "Add run files (e.g. data/measured/*.json) to a SQLite results database; files "
                                 "that are not runs (another extension, another tool's JSON) are skipped and named");
  auto args = std::make_shared<ImportArgs>();
  cmd->add_option("runs", args->runs, "Run files")->required()->type_name("RUN.json...");
  cmd->add_option("--db", args->db, "Database to add them to (created if missing)")->capture_default_str();
  cmd->add_flag("--replace", args->replace,
                "Replace a stored run whose id a file repeats with other measurements (e.g. a resummarized run); "
                "without it such a file is refused and nothing is imported");
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
            << (j.finished ? (j.doc.complete ? " (the run finished)"
                              : j.bad_lines.empty() ? " (the run was interrupted)"
                                                    : " (the run finished; with lines left out, complete = false)")
                           : " (the run was stopped before it finished: complete = false)")
            << (j.dropped_tail ? "; a last line cut off mid-write was dropped" : "") << "\n";
  // Lines left out are named, so a reader knows records are missing (the run is marked incomplete).
  for (std::size_t i = 0; i < j.bad_lines.size() && i < 10; ++i)
    std::cerr << "  left out line " << j.bad_lines[i].first << ": " << j.bad_lines[i].second << "\n";
  if (!j.bad_lines.empty())
    std::cerr << "recover: " << j.bad_lines.size() << " line(s) of " << args.journal
              << " could not be read and were left out; the run file says complete = false\n";
  return j.bad_lines.empty() ? 0 : 1;
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
  add_noise(app, action);
  add_export(app, action);
  add_coverage(app, action);
  add_guide(app, action);
  add_headlines(app, action);
  add_validate(app, action);
  add_import(app, action);
  add_recover(app, action);
}

}  // namespace gd::cli
