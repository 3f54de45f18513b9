// `run --ncu`: the selected probes run once more as a child of Nsight Compute, every launch in
// an NVTX range naming its sweep point; the counters come back per point and kernel and the
// timing run stores them in the matching records (core/ncu.hpp).
#include <filesystem>
#include <fstream>
#include <set>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/ncu.hpp"
#include "core/probe.hpp"
#include "core/spawn.hpp"

namespace gd::cli {

namespace fs = std::filesystem;

std::vector<std::string> ncu_metric_list(const std::vector<const ProbeSpec*>& probes,
                                         const std::vector<std::string>& extra) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& m) {
    ncu::check_metric_name(m);
    if (seen.insert(m).second) out.push_back(m);
  };
  for (const auto& m : ncu::default_metrics()) add(m);
  for (const ProbeSpec* p : probes)
    for (const auto& m : p->ncu_metrics) add(m);
  for (const auto& m : extra) add(m);
  return out;
}

std::vector<std::string> ncu_profile_command(const std::string& ncu_exe, const std::vector<std::string>& metrics,
                                             const std::string& report_stem, const std::vector<std::string>& run_args,
                                             const std::string& kernel_regex) {
  std::string list;
  for (const auto& m : metrics) list += (list.empty() ? "" : ",") + m;
  // --clock-control none: ncu would otherwise lock the clocks to base for the profile, and
  // gpudissect never changes clocks.
  std::vector<std::string> argv = {ncu_exe, "--clock-control", "none", "--nvtx", "--target-processes", "all",
                                   "--metrics", list, "--force-overwrite", "--export", report_stem};
  // Each profiled launch costs about 0.15 s of replay: a probe whose interesting kernel is one
  // of several (the pipes' stream kernel beside its pair kernels) profiles only that one.
  if (!kernel_regex.empty()) argv.insert(argv.end(), {"--kernel-name", "regex:" + kernel_regex});
  argv.insert(argv.end(), {self_exe_path(), "run"});
  argv.insert(argv.end(), run_args.begin(), run_args.end());
  return argv;
}

nlohmann::json profile_with_ncu(const NcuRequest& req, const std::vector<const ProbeSpec*>& probes,
                                const std::vector<std::string>& run_args) {
  const std::string exe = ncu::find_exe(req.exe);
  const std::vector<std::string> metrics = ncu_metric_list(probes, req.extra_metrics);
  fs::create_directories(req.folder);
  const std::string log = (fs::path(req.folder) / "ncu.log").string();
  const std::string report = (fs::path(req.folder) / "profile").string();
  const std::string child_out = (fs::path(req.folder) / "child").string();
  std::vector<std::string> child = run_args;
  child.insert(child.end(), {"--ncu-child", "--out", child_out, "--db", child_out + "/child.db", "--no-progress"});

  const auto profile = ncu_profile_command(exe, metrics, report, child, req.kernel_regex);
  const int rc = run_program(profile, log);
  // The child exits 1 when one of its points failed or mismatched; the timing run reports that
  // itself. Anything else (ncu could not start, no counter permission, a crash) is an error.
  if (rc != 0 && rc != 1)
    throw Error("the Nsight Compute profiling pass failed (exit " + std::to_string(rc) + "); " + log + " ends:\n" +
                tail_of_file(log, 15));
  const std::string csv = (fs::path(req.folder) / "counters.csv").string();
  const std::vector<std::string> export_csv = {exe, "--import", report + ".ncu-rep", "--csv", "--print-units", "base",
                                               "--print-nvtx-rename", "kernel"};
  // ncu prints the CSV on stdout, which run_program sends to the file (its notes, with stderr,
  // land there too: the parser skips "==" lines).
  const int rc2 = run_program(export_csv, csv);
  if (rc2 != 0)
    throw Error("ncu --import of " + report + ".ncu-rep failed (exit " + std::to_string(rc2) + "); " + csv + " ends:\n" +
                tail_of_file(csv, 15));
  std::ifstream in(csv);
  ncu::Counters counters = ncu::parse_csv(in);
  if (counters.empty())
    throw Error("ncu profiled no kernel launch of the selected probes (" + csv + " has none of their NVTX ranges); " +
                log + " ends:\n" + tail_of_file(log, 15));
  std::size_t launches = 0;
  for (const auto& [tag, kernels] : counters) {
    const nlohmann::json per_kernel = ncu::launches_json(kernels);
    for (const auto& n : per_kernel) launches += n.get<std::size_t>();
  }
  const std::size_t points = counters.size();
  ncu::set_counters(std::move(counters));
  return {{"exe", exe}, {"metrics", metrics}, {"folder", req.folder}, {"points_profiled", points},
          {"launches_profiled", launches}};
}

}  // namespace gd::cli
