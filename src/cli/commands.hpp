// Subcommand groups. Each adds its subcommands to the app; a subcommand's callback sets
// `action`, which main runs after parsing and whose return value is the exit code.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/json.hpp"

#include "core/output_file.hpp"

namespace CLI {
class App;
class Validator;
}

namespace gd {
struct Selection;
struct ExecuteSummary;
struct ProbeSpec;
}

namespace gd::cli {

void add_core_commands(CLI::App& app, std::function<int()>& action);    // info, list, run
void add_report_commands(CLI::App& app, std::function<int()>& action);  // report, compare, coverage, guide, import
void add_sass_commands(CLI::App& app, std::function<int()>& action);    // sass, verify, isa
void add_fleet_commands(CLI::App& app, std::function<int()>& action);   // merge

// A command's --out, resolved before any work so a wrong one fails at once ("-" or empty: standard
// output). An --out that is one of the command's inputs (the same file, through any path or link)
// is UserError: writing it would replace what is being read.
OutputPath output_of(const std::string& out, const std::vector<std::string>& inputs = {});

// `run --devices`: "all" or comma-separated indices, each below `device_count`, none twice.
// Throws UserError saying what is wrong. A negative device_count checks the syntax alone (before
// the driver is asked; "all" then gives an empty list).
std::vector<int> parse_device_list(const std::string& text, int device_count);

// Numbers on the command line (commands_numbers.cpp). A value that is not a number says "is not a
// number" (or "not a whole number"), one outside [lo, hi] says the range in plain figures.
CLI::Validator whole_number(long long lo, long long hi);
CLI::Validator real_number(double lo, double hi);
// A threshold as a percentage ("4%") or a fraction ("0.04"), up to max_fraction; a bare number of
// 1 or more ("4": 4 % or 400 %?) is ambiguous and refused. Returns the fraction as text; throws
// std::invalid_argument saying what is wrong. threshold_value() is the same as a CLI11 transform.
std::string fraction_from_threshold(const std::string& text, double max_fraction);
CLI::Validator threshold_value(double max_fraction);

// --filter and --category, for every command that selects probes (list, run, verify).
void add_selection_options(CLI::App* cmd, Selection& sel);

// `run`'s exit code from what the executor reports: 130 interrupted, 1 when a point failed or
// measured code whose SASS does not match its declaration, 0 otherwise (unverified, unconverged
// and throttled points are flagged, not failures); 1 also when the GPU's settings changed during
// the run (core/gpu_state.hpp).
int run_exit_code(const ExecuteSummary& s, bool gpu_state_changed = false);

// run --ncu (commands_ncu.cpp): what to profile with, and where its files go.
struct NcuRequest {
  std::string exe;                          // --ncu-exe; empty: core/ncu.hpp find_exe
  std::vector<std::string> extra_metrics;   // --ncu-metric, over the defaults and the probes' own
  std::string folder;                       // the profile, its CSV and ncu's log
  std::string kernel_regex;                 // --ncu-kernel: profile only kernels matching it
};
// The metrics to collect: the defaults, each probe's ncu_metrics, then `extra`, once each.
// Throws UserError on a malformed name.
std::vector<std::string> ncu_metric_list(const std::vector<const ProbeSpec*>& probes,
                                         const std::vector<std::string>& extra);
// ncu's command line for profiling `gpudissect run RUN_ARGS...`.
// A non-empty kernel_regex profiles only the kernels whose (demangled) name matches it.
std::vector<std::string> ncu_profile_command(const std::string& ncu_exe, const std::vector<std::string>& metrics,
                                             const std::string& report_stem, const std::vector<std::string>& run_args,
                                             const std::string& kernel_regex = "");
// Runs the probes of `run_args` under ncu, parses the counters and hands them to the timing
// run (ncu::set_counters). Returns what the run file records under options.ncu. Throws
// UserError without ncu, Error when profiling fails or yields no counters.
nlohmann::json profile_with_ncu(const NcuRequest& req, const std::vector<const ProbeSpec*>& probes,
                                const std::vector<std::string>& run_args);

// The fields every --json document starts with (docs/json-output.md): schema_version, command,
// tool name, version and git revision.
inline constexpr int kJsonOutputSchemaVersion = 1;
nlohmann::json json_envelope(const std::string& command);

}  // namespace gd::cli
