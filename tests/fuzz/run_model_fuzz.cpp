// libFuzzer target, structure-aware: the input is not the run file but the choices that build
// one. A valid run file (device, records of real probe ids with their axes and metrics, options,
// gpu_state, timing) comes out, with some of its values given other types, extreme numbers,
// long strings, deep nesting and repeated run and record ids. Its text goes through the reader
// as `report` reads it, then through the Markdown report, the CSV export, the terminal table
// and the run file writer, and, with up to three more runs built the same way, through `merge`:
// repeated runs dropped, each imported into an in-memory database, the fleet report written.
// One input in eight also runs a command as the user would (report, report --format csv, merge or
// resummarize, through the CLI in this process, on files in a scratch folder removed after the
// input): what the commands add around the library (the published dataset `report` validates
// against, resummarize's checks before the analyses) is reached that way.
//
// A gd::Error (UserError for a malformed file) is an answer; a crash, a sanitizer report or any
// other exception escaping (the CLI would print "internal error") is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fuzzer/FuzzedDataProvider.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"
#include "core/result_db.hpp"
#include "core/run_file.hpp"
#include "fuzz_values.hpp"
#include "report/csv.hpp"
#include "report/fleet.hpp"
#include "report/markdown.hpp"
#include "report/table.hpp"

namespace {

using nlohmann::json;
using namespace gd_fuzz;

struct Budget {
  int depth;  // the deepest a mutated value may nest (up to a few hundred: past the reader's 64)
  int nodes;  // JSON nodes left for mutated values in this input
};

// Replaced by a value of any type now and then.
json field(FuzzedDataProvider& in, json good, Budget& b) { return maybe_mutate(in, std::move(good), b.depth, b.nodes); }

const std::vector<const gd::ProbeSpec*>& probes() {
  static const std::vector<const gd::ProbeSpec*> all = [] {
    std::vector<const gd::ProbeSpec*> v;
    for (const auto& p : gd::Registry::global().probes()) v.push_back(&p);
    return v;
  }();
  return all;
}

json param_value(FuzzedDataProvider& in, const gd::ParamValue& like) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: return edge_int(in);
    case 1: return edge_double(in);
    case 2: return edge_string(in);
    default:
      if (const auto* i = std::get_if<std::int64_t>(&like)) return *i;
      if (const auto* d = std::get_if<double>(&like)) return *d;
      return std::get<std::string>(like);
  }
}

json device_json(FuzzedDataProvider& in, Budget& b) {
  static const char* kFeatures[] = {"clusters", "tma", "wgmma", "setmaxnreg", "tcgen05", "block_scaled_mma", "fp4"};
  static const std::pair<int, int> kCc[] = {{8, 0}, {8, 6}, {8, 9}, {9, 0}, {10, 0}, {10, 3}, {12, 0}, {0, 0}, {99, 9}};
  const auto cc = in.PickValueInArray(kCc);
  json features = json::array();
  for (int n = in.ConsumeIntegralInRange<int>(0, 4); n > 0; --n) features.push_back(in.PickValueInArray(kFeatures));
  json d = {{"index", field(in, in.ConsumeIntegralInRange<int>(-1, 8), b)},
            {"name", field(in, in.ConsumeBool() ? "NVIDIA H200" : edge_string(in), b)},
            {"uuid", field(in, "GPU-5e1a2b3c-4d5e-6f70-8192-" + edge_string(in), b)},
            {"pci_bus_id", field(in, in.ConsumeBool() ? "00000000:19:00.0" : edge_string(in), b)},
            {"cc_major", field(in, cc.first, b)},
            {"cc_minor", field(in, cc.second, b)},
            {"sm_count", field(in, in.ConsumeBool() ? 132 : edge_int(in), b)},
            {"max_warps_per_sm", field(in, 64, b)},
            {"max_threads_per_block", field(in, 1024, b)},
            {"regs_per_sm", field(in, 65536, b)},
            {"regs_per_block", field(in, 65536, b)},
            {"shared_per_sm", field(in, in.ConsumeBool() ? 233472 : edge_int(in), b)},
            {"shared_per_block", field(in, 49152, b)},
            {"shared_per_block_optin", field(in, 232448, b)},
            {"l2_bytes", field(in, in.ConsumeBool() ? 62914560 : edge_int(in), b)},
            {"global_mem_bytes", field(in, 150754820096LL, b)},
            {"memory_bus_width_bits", field(in, 6144, b)},
            {"max_sm_clock_mhz", field(in, in.ConsumeBool() ? 1980.0 : edge_double(in), b)},
            {"max_mem_clock_mhz", field(in, 3201, b)},
            {"theoretical_dram_gbps", field(in, in.ConsumeBool() ? 4917.5 : edge_double(in), b)},
            {"ecc_enabled", field(in, true, b)},
            {"gpu_count", field(in, in.ConsumeIntegralInRange<int>(-1, 9), b)},
            {"driver_version", field(in, 12080, b)},
            {"runtime_version", field(in, 12040, b)},
            {"arch_code_loaded", field(in, in.ConsumeBool() ? "sm_90a" : edge_string(in), b)},
            {"features", field(in, features, b)},
            {"nvml_status", field(in, "ok", b)}};
  if (in.ConsumeBool())
    d["nvml"] = field(in,
                      {{"sm_clock_mhz", edge_double(in)}, {"mem_clock_mhz", 3201}, {"max_sm_clock_mhz", 1980},
                       {"max_mem_clock_mhz", 3201}, {"power_w", edge_double(in)}, {"power_limit_w", 700},
                       {"temperature_c", 40}, {"pcie_gen", 5}, {"pcie_width", 16}, {"pcie_max_gen", 5},
                       {"pcie_max_width", 16}, {"driver_version", edge_string(in)}},
                      b);
  // Fields dropped, and fields nobody reads.
  for (int n = in.ConsumeIntegralInRange<int>(0, 2); n > 0; --n) d.erase(in.ConsumeRandomLengthString(24));
  for (int n = in.ConsumeIntegralInRange<int>(0, 2); n > 0; --n) d[edge_string(in)] = any_json(in, b.depth, b.nodes);
  return d;
}

json metric_json(FuzzedDataProvider& in, const std::string& name, const std::string& unit, Budget& b) {
  const double median = edge_double(in);
  json m = {{"name", field(in, name, b)},           {"unit", field(in, unit, b)},
            {"value", field(in, median, b)},        {"median", field(in, median, b)},
            {"min", field(in, edge_double(in), b)}, {"max", field(in, edge_double(in), b)},
            {"mean", field(in, edge_double(in), b)}, {"stddev", field(in, edge_double(in), b)},
            {"n", field(in, edge_int(in), b)}};
  return m;
}

json extra_json(FuzzedDataProvider& in, Budget& b) {
  // Keys the report and analyses read, with values of any type (or the shape they expect).
  static const char* kKeys[] = {"best_point", "throttle", "reference", "isolated", "contended", "ncu", "flags",
                                "variant", "timing", "relation", "clock_check", "base", "pipe_by_interference",
                                "derived_from_points", "ncu_note", "ncu_launches", "gpu_state", "device_state",
                                "sass_verify_s", "fit", "tenancy"};
  json e = json::object();
  for (int n = in.ConsumeIntegralInRange<int>(0, 4); n > 0; --n) {
    const std::string key = in.ConsumeBool() ? in.PickValueInArray(kKeys) : edge_string(in);
    if (key == "throttle" && in.ConsumeBool())
      e[key] = {{"by", json::array({edge_string(in)})}};
    else if (key == "best_point" && in.ConsumeBool())
      e[key] = {{edge_string(in), edge_int(in)}};
    else
      e[key] = any_json(in, b.depth, b.nodes);
  }
  return e;
}

json record_json(FuzzedDataProvider& in, Budget& b) {
  static const char* kStatus[] = {"ok", "ok", "ok", "skipped", "failed", "OK", ""};
  static const char* kSass[] = {"verified", "mismatch", "unverified", "not_applicable", "bogus"};
  static const char* kClock[] = {"none", "in_kernel", "from_points", "bogus"};
  const auto& all = probes();
  const gd::ProbeSpec* spec = all.empty() ? nullptr : all[in.ConsumeIntegralInRange<std::size_t>(0, all.size() - 1)];
  const std::string id = spec && in.ConsumeIntegralInRange<int>(0, 7) ? spec->id : edge_string(in);
  json params = json::object();
  if (spec)
    for (const auto& axis : spec->axes)
      if (in.ConsumeIntegralInRange<int>(0, 7))
        params[axis.name] = axis.values.empty() ? json(edge_int(in))
                                                : param_value(in, axis.values[in.ConsumeIntegralInRange<std::size_t>(
                                                                      0, axis.values.size() - 1)]);
  for (int n = in.ConsumeIntegralInRange<int>(0, 2); n > 0; --n) params[edge_string(in)] = param_value(in, std::int64_t(1));
  json metrics = json::array();
  if (spec && !spec->metrics.empty())
    for (int n = in.ConsumeIntegralInRange<int>(0, 4); n > 0; --n) {
      const auto& m = spec->metrics[in.ConsumeIntegralInRange<std::size_t>(0, spec->metrics.size() - 1)];
      metrics.push_back(metric_json(in, m.name, m.unit, b));
    }
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) metrics.push_back(metric_json(in, edge_string(in), edge_string(in), b));
  json r = {{"id", field(in, id, b)},
            {"category", field(in, spec ? spec->category() : edge_string(in), b)},
            {"params", field(in, params, b)},
            {"status", field(in, in.PickValueInArray(kStatus), b)},
            {"reason", field(in, edge_string(in), b)},
            {"metrics", field(in, metrics, b)},
            {"sass", field(in, {{"status", in.PickValueInArray(kSass)}, {"detail", edge_string(in)}}, b)},
            {"derived", field(in, in.ConsumeIntegralInRange<int>(0, 3) == 0, b)},
            {"sm_clock_mhz", field(in, edge_double(in), b)},
            {"sm_clock_source", field(in, in.PickValueInArray(kClock), b)},
            {"nvml_sm_clock_mhz", field(in, edge_double(in), b)},
            {"elapsed_s", field(in, edge_double(in), b)},
            {"extra", field(in, extra_json(in, b), b)}};
  if (in.ConsumeBool()) r["kernels"] = field(in, json::array({edge_string(in)}), b);
  if (in.ConsumeBool())
    r["convergence"] = field(in,
                             {{"converged", in.ConsumeBool()},
                              {"stop_reason", in.ConsumeBool() ? "converged" : edge_string(in)},
                              {"n", edge_int(in)},
                              {"measurements", edge_int(in)}},
                             b);
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) r.erase(in.ConsumeRandomLengthString(16));
  return r;
}

json run_json(FuzzedDataProvider& in, Budget& b, const std::string& run_id) {
  json records = json::array();
  const int n = in.ConsumeIntegralInRange<int>(0, 40);
  for (int i = 0; i < n && in.remaining_bytes() > 0; ++i) {
    // A repeated record (same id and params) now and then.
    if (!records.empty() && in.ConsumeIntegralInRange<int>(0, 7) == 0)
      records.push_back(records[in.ConsumeIntegralInRange<std::size_t>(0, records.size() - 1)]);
    else
      records.push_back(record_json(in, b));
  }
  json options = {{"quick", in.ConsumeBool()}, {"filters", json::array()}, {"category", ""}};
  for (int k = in.ConsumeIntegralInRange<int>(0, 3); k > 0; --k) {
    static const char* kKeys[] = {"host", "reference", "ncu", "resummarized", "quick", "filters", "category"};
    options[in.PickValueInArray(kKeys)] = in.ConsumeBool() ? json(edge_string(in)) : any_json(in, b.depth, b.nodes);
  }
  json j = {{"schema_version", field(in, in.ConsumeBool() ? 2 : 1, b)},
            {"tool", field(in, {{"name", "gpudissect"}, {"version", "0.1.0"}, {"git_revision", edge_string(in)}}, b)},
            {"run_id", field(in, run_id, b)},
            {"started_at", field(in, "2026-11-29T10:00:00Z", b)},
            {"finished_at", field(in, in.ConsumeBool() ? json("2026-11-29T11:00:00Z") : json(nullptr), b)},
            {"complete", field(in, in.ConsumeBool(), b)},
            {"options", field(in, options, b)},
            {"device", in.ConsumeIntegralInRange<int>(0, 15) ? device_json(in, b) : json(nullptr)},
            {"records", std::move(records)}};
  if (in.ConsumeBool()) {
    json tenancy = {{"before", {{"busy", field(in, in.ConsumeBool(), b)},
                                {"evidence", field(in, json::array({edge_string(in)}), b)}}}};
    j["gpu_state"] = field(in, {{"before", nullptr}, {"after", nullptr}, {"changed", json::array()},
                                {"tenancy", field(in, tenancy, b)}}, b);
  }
  if (in.ConsumeBool()) {
    json walls = json::object();
    for (int k = in.ConsumeIntegralInRange<int>(0, 3); k > 0; --k)
      walls[probes().empty() ? edge_string(in) : probes()[in.ConsumeIntegralInRange<std::size_t>(0, probes().size() - 1)]->id] =
          field(in, edge_double(in), b);
    j["timing"] = field(in, {{"wall_s", edge_double(in)}, {"probe_wall_s", walls}}, b);
  }
  return j;
}

// As read_run_file reads a .json file's text: a parse error is the file's fault (UserError there).
bool read(const std::string& text, gd::RunDocument& doc) {
  nlohmann::json j;
  try {
    j = gd::parse_run_json(text, "fuzz.json");
  } catch (const json::exception&) {
    return false;
  } catch (const gd::UserError&) {  // nested past kMaxRunFileDepth
    return false;
  }
  try {
    doc = gd::run_from_json(j, "fuzz.json");
  } catch (const gd::UserError&) {
    return false;
  }
  return true;
}

void write_one(const gd::RunDocument& doc) {
  try {
    (void)gd::markdown_report(doc);
  } catch (const gd::Error&) {
  }
  try {
    std::ostringstream csv;
    gd::write_csv(doc, csv);
  } catch (const gd::Error&) {
  }
  std::ostringstream table;
  gd::TerminalTable t(table);
  for (const auto& r : doc.records) t.on_record(r);
  (void)gd::to_json(doc).dump(2, ' ', false, json::error_handler_t::replace);
}

// A folder for one input's files, removed after it (libFuzzer leaves through _Exit, past atexit).
std::filesystem::path make_scratch() {
  std::string t = (std::filesystem::temp_directory_path() / "gd-run-model-XXXXXX").string();
  if (!mkdtemp(t.data())) std::abort();
  return t;
}

void through_cli(FuzzedDataProvider& in, const std::vector<std::string>& texts) {
  namespace fs = std::filesystem;
  const fs::path dir = make_scratch();
  std::vector<std::string> files;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    files.push_back((dir / ("rank" + std::to_string(i) + ".json")).string());
    std::ofstream(files.back(), std::ios::binary) << texts[i];
  }
  std::vector<std::string> args{"gpudissect"};
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: args.insert(args.end(), {"report", files[0], "--out", (dir / "report.md").string()}); break;
    case 1: args.insert(args.end(), {"report", files[0], "--format", "csv", "--out", (dir / "run.csv").string()}); break;
    case 2:
      args.insert(args.end(), {"merge", "--db", (dir / "fleet.db").string(), "--out", (dir / "fleet.md").string()});
      args.insert(args.end(), files.begin(), files.end());
      break;
    default: args.insert(args.end(), {"resummarize", files[0], "-o", (dir / "new.json").string()}); break;
  }
  CLI::App app{"fuzz"};
  app.require_subcommand(1);
  std::function<int()> action;
  gd::cli::add_report_commands(app, action);
  gd::cli::add_fleet_commands(app, action);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::streambuf* err = std::cerr.rdbuf(nullptr);  // the commands' notes
  try {
    app.parse(int(argv.size()), argv.data());
    if (action) (void)action();
  } catch (const gd::Error&) {
  }
  std::cerr.rdbuf(err);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  Budget b{in.ConsumeIntegralInRange<int>(1, 300), 2000};
  std::vector<gd::RunDocument> docs;
  std::vector<std::string> paths;
  std::vector<std::string> run_ids;
  std::vector<std::string> texts;
  const int runs = in.ConsumeIntegralInRange<int>(1, 4);
  for (int i = 0; i < runs; ++i) {
    // Runs of one fleet share a run id now and then (a file given twice, a run and its journal).
    std::string run_id = !run_ids.empty() && in.ConsumeIntegralInRange<int>(0, 3) == 0
                             ? run_ids[in.ConsumeIntegralInRange<std::size_t>(0, run_ids.size() - 1)]
                             : "2026-11-29T10:00:00Z-" + std::to_string(i) + in.ConsumeRandomLengthString(8);
    run_ids.push_back(run_id);
    const std::string text = run_json(in, b, run_id).dump(-1, ' ', false, json::error_handler_t::replace);
    texts.push_back(text);
    gd::RunDocument doc;
    if (!read(text, doc)) continue;
    if (i == 0) write_one(doc);
    docs.push_back(std::move(doc));
    paths.push_back("rank" + std::to_string(i) + ".json");
  }
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) through_cli(in, texts);
  if (docs.empty()) return 0;
  try {
    (void)gd::drop_repeated_runs(docs, paths);
    for (const auto& doc : docs) gd::import_run(":memory:", doc);
    gd::FleetOptions opts;
    // As --threshold admits it (cli threshold_value): a fraction up to 10.
    opts.threshold = in.ConsumeBool() ? 0.05 : in.ConsumeFloatingPointInRange<double>(0, 10);
    const gd::FleetReport report = gd::fleet_report(docs, opts);
    (void)gd::fleet_markdown(report, opts);
  } catch (const gd::Error&) {
  }
  return 0;
}
