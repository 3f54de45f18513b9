// `info`, `list` and `run`: the commands that describe the GPU and run probes on it.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <variant>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "gpudissect_revision.h"
#include "report/format.hpp"
#include "core/child_process.hpp"
#include "core/spawn.hpp"
#include "core/clock_check.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/executor.hpp"
#include "core/ncu.hpp"
#include "core/gpu_lock.hpp"
#include "core/gpu_state.hpp"
#include "core/tenancy.hpp"
#include "core/clock_check.hpp"
#include "core/output_file.hpp"
#include "core/registry.hpp"
#include "core/result_db.hpp"
#include "core/run_file.hpp"
#include "core/run_journal.hpp"
#include "core/timing.hpp"
#include "report/csv.hpp"
#include "report/fleet.hpp"
#include "report/markdown.hpp"
#include "report/probe_json.hpp"
#include "report/table.hpp"
#include "report/timing.hpp"
#include "sass/verify.hpp"

namespace gd::cli {
namespace {

namespace fs = std::filesystem;

void print_device(const DeviceInfo& d, std::ostream& os) {
  const auto mib = [](long long b) { return fmt_num(double(b) / (1 << 20), 4) + " MiB"; };
  os << "GPU " << d.index << ": " << d.name << " (" << d.uuid << ", PCI " << d.pci_bus_id << ")\n"
     << "  compute capability  " << d.cc_major << "." << d.cc_minor << ", code loaded " << d.arch_code_loaded << "\n"
     << "  SMs                 " << d.sm_count << ", max " << d.max_warps_per_sm << " warps/SM, "
     << d.regs_per_sm << " registers/SM\n"
     << "  shared memory       " << d.shared_per_sm / 1024 << " KiB/SM, " << d.shared_per_block / 1024
     << " KiB/block (" << d.shared_per_block_optin / 1024 << " KiB opt-in)\n"
     << "  L2                  " << mib(d.l2_bytes) << "\n"
     << "  memory              " << mib(d.global_mem_bytes) << ", " << d.memory_bus_width_bits
     << "-bit bus, theoretical " << fmt_num(d.theoretical_dram_gbps, 4) << " GB/s, ECC "
     << (d.ecc_enabled ? "on" : "off") << "\n"
     << "  peak clocks         SM " << d.max_sm_clock_mhz << " MHz, memory " << d.max_mem_clock_mhz << " MHz\n"
     << "  driver / runtime    " << d.driver_version << " / " << d.runtime_version << "\n"
     << "  features            ";
  for (Feature f : d.features) os << to_string(f) << ' ';
  os << "\n";
  if (d.nvml) {
    const auto& n = *d.nvml;
    os << "  NVML                driver " << n.driver_version << "; SM " << n.sm_clock_mhz << "/"
       << n.max_sm_clock_mhz << " MHz, memory " << n.mem_clock_mhz << "/" << n.max_mem_clock_mhz
       << " MHz; " << fmt_num(n.power_w, 4) << " W of " << fmt_num(n.power_limit_w, 4) << " W; "
       << n.temperature_c << " C; PCIe gen " << n.pcie_gen << " x" << n.pcie_width << " (max gen "
       << n.pcie_max_gen << " x" << n.pcie_max_width << ")\n";
  } else {
    os << "  NVML                unavailable (" << d.nvml_status << "): clocks and power unknown\n";
  }
}

void add_info(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand("info", "Describe the GPU: properties, clocks, power, features");
  auto device = std::make_shared<int>(0);
  auto json = std::make_shared<bool>(false);
  cmd->add_option("--device", *device, "CUDA device index")->check(whole_number(0, 1023));
  cmd->add_flag("--json", *json, "Print the description as JSON (docs/json-output.md)");
  cmd->callback([&action, device, json] {
    action = [device, json] {
      const DeviceInfo d = query_device(*device);
      if (*json) {
        // The device object a run file holds as "device", fields at the top level as scripts
        // (gpu_check.sh, patch_demo.sh) read them, plus the fields every --json output has.
        nlohmann::json doc = to_json(d);
        doc.update(json_envelope("info"));
        std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      } else {
        print_device(d, std::cout);
      }
      return 0;
    };
  });
}

void print_probe_list(const std::vector<const ProbeSpec*>& probes, bool verbose) {
  for (const ProbeSpec* p : probes) {
    std::cout << pad(p->id, 28) << " " << p->description << "\n";
    if (!verbose) continue;
    for (const auto& a : p->axes) {
      std::cout << "    axis " << a.name << ":";
      for (const auto& v : a.values) std::cout << " " << to_string(v);
      std::cout << "\n";
    }
    if (!p->quick_leaves_out.empty()) std::cout << "    quick: left out (" << p->quick_leaves_out << ")\n";
    for (const auto& m : p->metrics) std::cout << "    metric " << m.name << " [" << m.unit << "] " << m.description << "\n";
    for (const auto& e : p->sass) {
      static const std::map<SassRegion, const char*> kRegionText = {
          {SassRegion::Clocked, "timed region"},
          {SassRegion::Whole, "whole kernel"},
          {SassRegion::Marked, "marked timed region"}};
      std::cout << "    sass " << e.kernel << " (" << kRegionText.at(e.region) << (e.callees ? " and its callees" : "") << "):";
      for (const auto& o : e.require)
        std::cout << " " << o.opcode << (o.max == o.min ? "==" + std::to_string(o.min)
                                         : o.max < 0   ? ">=" + std::to_string(o.min)
                                                       : "[" + std::to_string(o.min) + "," + std::to_string(o.max) + "]")
                  << (o.per.empty() ? "" : "/" + o.per);
      std::cout << "\n";
    }
  }
}

// Everything a probe declares, as data: what `list -v` prints.
nlohmann::json probe_json(const ProbeSpec& p) {
  const auto value = [](const ParamValue& v) { return std::visit([](const auto& x) { return nlohmann::json(x); }, v); };
  nlohmann::json features = nlohmann::json::array();
  for (Feature f : p.needs.features) features.push_back(to_string(f));
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : p.axes) {
    nlohmann::json values = nlohmann::json::array(), quick = nlohmann::json::array();
    for (const auto& v : a.values) values.push_back(value(v));
    for (const auto& v : a.quick_values.empty() ? a.values : a.quick_values) quick.push_back(value(v));
    axes.push_back({{"name", a.name}, {"values", values}, {"quick_values", quick}});
  }
  const nlohmann::json quick_leaves_out = p.quick_leaves_out.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.quick_leaves_out);
  nlohmann::json metrics = nlohmann::json::array();
  for (const auto& m : p.metrics) metrics.push_back({{"name", m.name}, {"unit", m.unit}, {"description", m.description}});
  nlohmann::json sass = nlohmann::json::array();
  for (const auto& e : p.sass) {
    nlohmann::json require = nlohmann::json::array();
    for (const auto& o : e.require)
      require.push_back({{"opcode", o.opcode},
                         {"min", o.min},
                         {"max", o.max < 0 ? nlohmann::json(nullptr) : nlohmann::json(o.max)},
                         {"per", o.per.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.per)}});
    sass.push_back({{"kernel", e.kernel},
                    {"region", region_key(e.region)},
                    {"callees", e.callees},
                    {"require", require},
                    {"forbid", e.forbid}});
  }
  return {{"id", p.id},
          {"category", p.category()},
          {"description", p.description},
          {"requires", {{"min_cc", p.needs.min_cc}, {"max_cc", p.needs.max_cc}, {"features", features},
                        {"min_gpus", p.needs.min_gpus}}},
          {"axes", axes},
          {"quick_leaves_out", quick_leaves_out},
          {"metrics", metrics},
          {"sass", sass},
          {"views", views_json(p)},
          {"covers", covers_json(p)}};
}

void add_list(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand("list", "List registered probes");
  auto sel = std::make_shared<Selection>();
  auto verbose = std::make_shared<bool>(false);
  auto json = std::make_shared<bool>(false);
  add_selection_options(cmd, *sel);
  cmd->add_flag("--verbose,-v", *verbose, "Show axes, metrics and SASS expectations");
  cmd->add_flag("--json", *json, "Print every declaration as JSON (docs/json-output.md)");
  cmd->callback([&action, sel, verbose, json] {
    action = [sel, verbose, json] {
      const auto probes = select_probes(Registry::global(), *sel);
      if (!*json) {
        print_probe_list(probes, *verbose);
        return 0;
      }
      nlohmann::json doc = json_envelope("list");
      doc["probes"] = nlohmann::json::array();
      for (const ProbeSpec* p : probes) doc["probes"].push_back(probe_json(*p));
      std::cout << doc.dump(2) << "\n";
      return 0;
    };
  });
}

struct RunArgs {
  Selection sel;
  std::vector<std::string> axes;  // PROBE:AXIS=VALUES
  SamplingOverride sampling;
  bool quick = false;
  bool no_progress = false;
  bool isolate_all = false, isolate_none = false;
  double watchdog_s = 0;
  int device = 0;
  std::string devices;  // --devices: all | 0,1,...
  std::string out = "results";
  std::string db;  // default: <out>/results.db
  bool ncu = false;        // profile the same probes under Nsight Compute first
  NcuRequest ncu_req;
  bool ncu_child = false;  // this process is that profiling pass (hidden flag)
  bool allow_busy = false; // measure even when another process uses the GPU (points flagged contended)
};

// A quick run that measures leaves out the probes that say so (ProbeSpec::quick_leaves_out); the
// check modes run every probe, since running every kernel is what they are for.
bool leave_out_quick(const RunArgs& a) { return a.quick && !a.sampling.once(); }

// The arguments that make a child `run` select and sweep exactly what this one does.
std::vector<std::string> selection_args(const RunArgs& a) {
  std::vector<std::string> out;
  for (const auto& f : a.sel.filters) out.insert(out.end(), {"--filter", f});
  if (!a.sel.category.empty()) out.insert(out.end(), {"--category", a.sel.category});
  for (const auto& ax : a.axes) out.insert(out.end(), {"--axis", ax});
  if (a.quick) out.push_back("--quick");
  out.insert(out.end(), {"--device", std::to_string(a.device)});
  // Profiling slows every launch down; no probe's own time cap may cut its sweep short there.
  out.insert(out.end(), {"--timeout", "86400"});
  return out;
}

std::string slug(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? char(std::tolower(c)) : '-';
  return out;
}

std::string stamp_for_file(const std::string& iso) {
  std::string s;
  for (char c : iso)
    if (std::isdigit(static_cast<unsigned char>(c))) s += c;
  return s.substr(0, 14);
}

nlohmann::json sampling_json(const SamplingOverride& s) {
  nlohmann::json j = nlohmann::json::object();
  if (s.min_samples > 0) j["min_samples"] = s.min_samples;
  if (s.max_noise > 0) j["max_noise"] = s.max_noise;
  if (s.min_time_s > 0) j["min_time_s"] = s.min_time_s;
  if (s.timeout_s > 0) j["timeout_s"] = s.timeout_s;
  if (s.single_sample) j["single_sample"] = true;  // the numbers are one sample each: not a measurement
  if (s.functional) j["functional"] = true;        // and of kernels shrunk to a few blocks: none describes the chip
  return j;
}

std::vector<AxisOverride> parse_axis_overrides(const std::vector<std::string>& texts) {
  std::vector<AxisOverride> out;
  for (const auto& t : texts) {
    try {
      out.push_back(parse_axis_override(t));
    } catch (const std::invalid_argument& e) {
      throw UserError(e.what());
    }
  }
  return out;
}

std::string hostname() {
  char buf[256] = {};
  return ::gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string();
}

// The arguments a per-GPU child of --devices gets: everything but the device, output and progress.
std::vector<std::string> forwarded_run_args(const RunArgs& a) {
  std::vector<std::string> v;
  for (const auto& f : a.sel.filters) v.insert(v.end(), {"--filter", f});
  if (!a.sel.category.empty()) v.insert(v.end(), {"--category", a.sel.category});
  for (const auto& x : a.axes) v.insert(v.end(), {"--axis", x});
  if (a.quick) v.push_back("--quick");
  const auto num = [](double x) { std::ostringstream os; os.precision(17); os << x; return os.str(); };
  if (a.sampling.min_samples > 0) v.insert(v.end(), {"--min-samples", std::to_string(a.sampling.min_samples)});
  if (a.sampling.max_noise > 0) v.insert(v.end(), {"--max-noise", num(a.sampling.max_noise)});
  if (a.sampling.min_time_s > 0) v.insert(v.end(), {"--min-time", num(a.sampling.min_time_s)});
  if (a.sampling.timeout_s > 0) v.insert(v.end(), {"--timeout", num(a.sampling.timeout_s)});
  if (a.sampling.single_sample) v.push_back("--single-sample");
  if (a.sampling.functional) v.push_back("--functional");
  if (a.isolate_all) v.push_back("--isolate");
  if (a.isolate_none) v.push_back("--no-isolate");
  if (a.watchdog_s > 0) v.insert(v.end(), {"--watchdog", num(a.watchdog_s)});
  if (a.allow_busy) v.push_back("--allow-busy");
  return v;
}

// The run file a per-GPU child left in its folder: the newest .json, else its journal (killed).
std::string run_file_in(const std::string& dir) {
  std::string best;
  fs::file_time_type best_time{};
  for (const char* ext : {".json", ".jsonl"}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("run-", 0) != 0 || e.path().extension() != ext) continue;
      if (best.empty() || e.last_write_time() > best_time) best = e.path().string(), best_time = e.last_write_time();
    }
    if (!best.empty()) return best;
  }
  return best;
}

// --devices: one `gpudissect run` process per GPU at once, each into OUT/gpuN with its own log,
// then every GPU's run into one database and a fleet report with the spread per metric.
int do_run_devices(const RunArgs& args) {
  if (args.device != 0) throw UserError("--device and --devices exclude each other");
  (void)select_probes(Registry::global(), args.sel);  // bad filters fail before anything starts
  (void)parse_device_list(args.devices, -1);  // a malformed list is bad input (exit 2) on any machine
  check_output_dir(args.out);
  // No driver or no GPU reads as it does for a plain `run` (exit 3): query_device says why.
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) (void)query_device(0);
  const std::vector<int> ids = parse_device_list(args.devices, count);
  create_output_dir(args.out);
  const std::string exe = self_exe_path();
  struct Child {
    int device;
    std::string dir;
    pid_t pid = -1;
    int rc = -1;
  };
  std::vector<Child> children;
  for (int id : ids) {
    Child c{id, (fs::path(args.out) / ("gpu" + std::to_string(id))).string()};
    create_output_dir(c.dir);
    std::vector<std::string> argv_s = {exe, "run", "--device", std::to_string(id), "--out", c.dir, "--no-progress"};
    for (auto& a : forwarded_run_args(args)) argv_s.push_back(a);
    const std::string log = c.dir + "/log.txt";
    try {
      c.pid = start_program(argv_s, log, true);
    } catch (const Error& e) {
      throw Error("cannot start the run for GPU " + std::to_string(id) + ": " + e.what());
    }
    std::cout << "GPU " << id << ": started (pid " << c.pid << "), log " << log << "\n" << std::flush;
    children.push_back(c);
  }
  int worst = 0;
  std::vector<RunDocument> runs;
  const std::string db = args.db.empty() ? (fs::path(args.out) / "results.db").string() : args.db;
  for (Child& c : children) {
    c.rc = wait_program(c.pid, "the run for GPU " + std::to_string(c.device));
    const std::string file = run_file_in(c.dir);
    std::cout << "GPU " << c.device << ": exit " << c.rc;
    if (file.empty()) {
      std::cout << ", no run file (see " << c.dir << "/log.txt)\n";
    } else {
      runs.push_back(read_run_file(file));
      import_run(db, runs.back());
      std::cout << ", " << runs.back().records.size() << " records, " << file << "\n";
    }
    if (c.rc != 0 && worst == 0) worst = c.rc;
  }
  if (runs.empty()) throw Error("no GPU produced a run file (see the logs under " + args.out + ")");
  const FleetReport report = fleet_report(runs);
  const std::string md = (fs::path(args.out) / "fleet.md").string();
  write_file_atomic(md, fleet_markdown(report));
  std::cout << runs.size() << " GPU(s) in database " << db << "; fleet report " << md << ": " << report.metrics.size()
            << " metrics measured by two or more GPUs";
  double widest = 0;
  const FleetMetric* wide = nullptr;
  for (const auto& m : report.metrics)
    if (m.spread > widest) widest = m.spread, wide = &m;
  if (wide) std::cout << "; widest spread " << fmt_num(widest * 100, 3) << " % (" << wide->id << " " << wide->params << " " << wide->metric << ")";
  std::cout << "\n";
  return worst;
}

// The sweep points a run will measure (a skipped probe counts one record).
std::size_t count_points(const std::vector<const ProbeSpec*>& probes, const std::vector<AxisOverride>& overrides,
                         const DeviceInfo& device, bool quick, bool leave_out) {
  auto planned = plan(probes, device, leave_out);
  apply_axis_overrides(planned, overrides);
  std::size_t n = 0;
  for (const auto& pp : planned) n += pp.skip_reason ? 1 : expand(pp.axes, quick).size();
  return n;
}

// What a run writes per point, all files together: the 2026-12-02 suite's run file holds about
// 6 KB per measured point, and the journal and the database hold as much again each, with the
// report and CSV on top: 24 KB a point, and 8 MB for the rest.
unsigned long long expected_output_bytes(std::size_t points) { return (8ULL << 20) + (24ULL << 10) * points; }

int do_run(const RunArgs& args) {
  if (!args.devices.empty()) return do_run_devices(args);
  const auto probes = select_probes(Registry::global(), args.sel);  // bad filters fail before the GPU is touched
  if (!args.ncu && (!args.ncu_req.exe.empty() || !args.ncu_req.extra_metrics.empty() || !args.ncu_req.kernel_regex.empty()))
    throw UserError("--ncu-exe, --ncu-metric and --ncu-kernel only apply with --ncu");
  if (args.ncu && args.ncu_child) throw UserError("--ncu and --ncu-child exclude each other");
  if (args.ncu) {  // no ncu, or a bad metric name, fails before the GPU is touched
    (void)ncu::find_exe(args.ncu_req.exe);
    (void)ncu_metric_list(probes, args.ncu_req.extra_metrics);
  }
  const auto axis_overrides = parse_axis_overrides(args.axes);
  {
    // Axis names and values are checked against the probes before the GPU is touched.
    std::vector<PlannedProbe> dry;
    for (const ProbeSpec* p : probes) dry.push_back({p, std::nullopt, p->axes});
    apply_axis_overrides(dry, axis_overrides);
  }
  check_output_dir(args.out);   // an unwritable --out fails before any GPU time is spent,
  // One run per GPU, decided before this process creates a context on the card: a second run that
  // refuses must not show up as a tenant in the first one's process list. A run whose numbers are
  // not a measurement neither locks nor looks (run_takes_the_gpu).
  const bool measures = run_takes_the_gpu(args.ncu_child, args.sampling.single_sample, args.sampling.functional);
  std::optional<GpuLock> lock;
  if (const auto uuid = device_uuid(args.device); uuid && measures)
    lock.emplace(*uuid, "GPU " + std::to_string(args.device) + " (" + *uuid + ")");
  DeviceInfo device = query_device(args.device);
  if (!lock && measures) lock.emplace(device.uuid, "GPU " + std::to_string(device.index) + " (" + device.uuid + ")");
  const std::string gpu = "GPU " + std::to_string(device.index) + " (" + device.name + ", " + device.uuid + ")";
  const std::size_t point_count = count_points(probes, axis_overrides, device, args.quick, leave_out_quick(args));
  check_free_space(args.out, expected_output_bytes(point_count), "a run of " + std::to_string(point_count) + " points");
  TenancyMonitor tenancy(nvml_tenancy_source(device.pci_bus_id), this_process_view());
  TenancyVerdict at_start;
  if (measures) at_start = require_alone(tenancy, gpu, args.allow_busy, std::cerr);
  else at_start.reading = {{"why", "not a measurement (--single-sample, --functional or the --ncu pass): no lock, no tenant check"}};
  create_output_dir(args.out);  // and no GPU leaves no empty folder behind

  RunDocument header;
  header.tool_version = GPUDISSECT_VERSION;
  header.git_revision = GPUDISSECT_GIT_REVISION;
  header.started_at = utc_now_iso8601();
  // Two runs started in the same second on one GPU must not share an id (or files).
  char nonce[8];
  std::snprintf(nonce, sizeof nonce, "%04x", unsigned(std::random_device{}() & 0xffff));
  header.run_id = header.started_at + "-" + device.uuid.substr(4, 8) + "-" + nonce;
  header.device = to_json(device);
  const IsolateMode isolate = args.isolate_all ? IsolateMode::All : args.isolate_none ? IsolateMode::None : IsolateMode::Risky;
  header.options = {{"quick", args.quick}, {"filters", args.sel.filters}, {"category", args.sel.category}, {"host", hostname()},
                    {"axes", args.axes}, {"sampling", sampling_json(args.sampling)},
                    {"isolate", isolate == IsolateMode::All ? "all" : isolate == IsolateMode::None ? "none" : "risky"}};
  const std::string stem = (fs::path(args.out) / ("run-" + slug(device.name) + "-" + stamp_for_file(header.started_at) + "-" + nonce)).string();
  if (args.ncu) {
    NcuRequest req = args.ncu_req;
    req.folder = stem + ".ncu";
    std::cerr << "gpudissect: profiling the selected probes under Nsight Compute first (" << req.folder << ")\n";
    header.options["ncu"] = profile_with_ncu(req, probes, selection_args(args));
  }

  // The card's settings before the first probe; compared with those after the last one.
  GpuStateGuard state(nvml_state_source(device.pci_bus_id));
  header.gpu_state = state.before_json();
  header.gpu_state["tenancy"] = {{"before", at_start.reading}, {"allow_busy", args.allow_busy}};
  // Every record is appended to the journal (fsync'd) as it finishes; the .json is assembled from
  // it at the end. A run killed before that keeps its journal: `gpudissect recover`.
  RunJournal journal(stem + ".jsonl", header);
  ResultDb db(args.db.empty() ? (fs::path(args.out) / "results.db").string() : args.db, header);
  DbCopySink db_copy(db);
  TerminalTable table(std::cout);
  ExecuteOptions opts;
  opts.quick = args.quick;
  opts.progress = progress_wanted(args.no_progress, STDERR_FILENO);
  opts.sampling = args.sampling;
  if (args.ncu_child) {
    ncu::set_tagging(true);
    opts.sampling.single_sample = true;
  }
  opts.isolate = isolate;
  opts.watchdog_s = args.watchdog_s;
  opts.application_sm_clock_mhz = application_sm_clock_mhz(header.gpu_state, device);
  if (measures && at_start.checked) {
    opts.tenants = [&tenancy]() -> std::optional<std::string> {
      const TenancyVerdict v = tenancy.sample();
      return v.busy ? std::optional<std::string>(v.text()) : std::nullopt;
    };
  }
  auto planned = plan(probes, device, leave_out_quick(args));
  apply_axis_overrides(planned, axis_overrides);
  const sass::RunVerifier verifier = sass::make_run_verifier(probes, device);
  opts.verifier_ready = verifier.ready;
  // The state after the last probe, and where the time went, go into the journal's finish line.
  std::vector<std::string> changed;
  std::vector<std::pair<std::string, double>> walls;
  opts.probe_wall_s = &walls;
  const double run_t0 = steady_now_s();
  int contended = 0;
  journal.set_finish_extra([&] {
    changed = state.check();
    nlohmann::json gpu_state = state.to_json();
    nlohmann::json after = measures ? tenancy.sample().reading : nlohmann::json(nullptr);
    gpu_state["tenancy"] = {{"before", at_start.reading}, {"after", after}, {"allow_busy", args.allow_busy},
                            {"contended_points", contended}, {"looks", tenancy.samples()}, {"looking_s", tenancy.sampling_s()}};
    return nlohmann::json{{"gpu_state", gpu_state}, {"timing", timing_json(walls, steady_now_s() - run_t0)}};
  });
  // The summary's count of contended points reaches the finish line through this sink, which
  // sees every record before the journal's on_finish.
  struct ContendedCount : RecordSink {
    int& n;
    explicit ContendedCount(int& c) : n(c) {}
    void on_record(const Record& r) override { n += r.status == Status::Ok && !r.derived && has_flag(r, kContendedFlag); }
  } contended_count(contended);
  const ExecuteSummary s =
      execute(planned, device, {&contended_count, &journal, &db_copy, &table}, verifier.check, opts);

  try {
    write_run_file_atomic(stem + ".json", journal.document());
  } catch (const OutputError& e) {
    throw OutputError(std::string(e.what()) + "; every record is in the journal " + journal.path() + " (`gpudissect recover " +
                      journal.path() + "` writes the run file once there is room)");
  }
  write_file_atomic(stem + ".md", markdown_report(journal.document()));
  std::ostringstream csv;
  write_csv(journal.document(), csv);
  write_file_atomic(stem + ".csv", csv.str());
  std::cout << "\n" << s.ok << " ok, " << s.skipped << " skipped, " << s.failed << " failed; SASS: "
            << s.sass_mismatch << " mismatch, " << s.sass_unverified << " unverified; " << s.unconverged
            << " not converged; " << s.throttled << " throttled; " << s.below_application_clock
            << " below the application clock; " << s.contended << " contended" << (s.interrupted ? " (interrupted)" : "") << "\n"
            << "results: " << stem << ".json (.jsonl, .md, .csv), database " << db.path() << "\n";
  print_slowest(std::cout, walls, steady_now_s() - run_t0);
  if (s.sass_mismatch)
    std::cerr << "gpudissect: " << s.sass_mismatch
              << " record(s) measured code whose SASS does not match the probe's declaration: the run fails\n";
  if (!changed.empty()) {
    std::cerr << "gpudissect: error: the GPU's settings changed during the run (gpudissect never changes them; "
                 "something else on this machine did), so its numbers may not describe the card as found:\n";
    for (const auto& c : changed) std::cerr << "  " << c << "\n";
  } else if (!state.checked()) {
    std::cerr << "gpudissect: note: the GPU's settings could not be read (NVML unavailable): the state guard did not run\n";
  }
  if (s.contended)
    std::cerr << "gpudissect: warning: " << s.contended << " measured point(s) ran while another process used the GPU; "
              << "they are flagged `contended` (extra.contended says what was seen) and are not the card's numbers\n";
  if (db_copy.error())  // exit 74, after everything else was said
    throw OutputError("the database " + db.path() + " could not be written (" + *db_copy.error() + "); the run file " +
                      stem + ".json is whole: `gpudissect import " + stem + ".json --db " + db.path() +
                      "` stores it once the database can be written");
  return run_exit_code(s, !changed.empty());
}

void add_run(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand("run", "Run probes on the GPU and store the results");
  auto args = std::make_shared<RunArgs>();
  add_selection_options(cmd, args->sel);
  cmd->add_flag("--quick,-q", args->quick, "Fewer sweep points and shorter time caps");
  cmd->add_option("--axis,-a", args->axes,
                  "Restrict a probe's axis to some of its declared values: PROBE:AXIS=V1,V2 or PROBE:AXIS=LO..HI "
                  "(K/M/G suffixes; PROBE may be a glob); repeatable");
  cmd->add_option("--min-samples", args->sampling.min_samples, "At least this many samples per measurement")
      ->check(whole_number(1, 1000000));
  cmd->add_option("--max-noise", args->sampling.max_noise,
                  "Target half-width of the median's 95% CI, relative (0.005 = 0.5%), over each probe's own")
      ->check(real_number(1e-6, 1.0));
  cmd->add_option("--min-time", args->sampling.min_time_s, "Sample each measurement at least this many seconds")
      ->check(real_number(1e-6, 1e6));
  cmd->add_option("--timeout", args->sampling.timeout_s, "Time cap per probe in seconds (all its points), over its own")
      ->check(real_number(1e-3, 1e6));
  cmd->add_flag("--single-sample", args->sampling.single_sample,
                "Measure every point once (no repetition, statistics of one): for tools that slow kernels down "
                "a hundredfold, such as compute-sanitizer (scripts/sanitize.sh); the numbers are not a measurement");
  cmd->add_flag("--functional", args->sampling.functional,
                "Run every point at the smallest size that still runs all of its code (a few blocks, one short "
                "trip, small buffers), measured once: for correctness tools whose cost grows with the work, such as "
                "compute-sanitizer's racecheck (scripts/sanitize.sh); implies --single-sample, the numbers describe nothing");
  cmd->add_option("--out,-o", args->out, "Output directory for the run file, report and CSV")->capture_default_str();
  cmd->add_option("--db", args->db, "SQLite database to append the run to (default: OUT/results.db)");
  cmd->add_option("--device", args->device, "CUDA device index")->check(whole_number(0, 1023));
  cmd->add_option("--devices", args->devices,
                  "Run on several GPUs at once, one process each (all | 0,1,...): per-GPU runs under OUT/gpuN, "
                  "one database, fleet.md with the spread per metric");
  cmd->add_flag("--no-progress", args->no_progress,
                "No progress line on stderr (there is none when stderr is not a terminal)");
  cmd->add_flag("--ncu", args->ncu,
                "First profile the selected probes under Nsight Compute (ncu) and store its counters (per-pipe "
                "instruction counts and the probes' own metrics) in each record's extra.ncu");
  cmd->add_option("--ncu-metric", args->ncu_req.extra_metrics, "With --ncu: collect this metric too (repeatable)");
  cmd->add_option("--ncu-kernel", args->ncu_req.kernel_regex,
                  "With --ncu: profile only kernels whose name matches this regular expression (ncu --kernel-name "
                  "regex:); the other launches keep no counters");
  cmd->add_option("--ncu-exe", args->ncu_req.exe, "With --ncu: the ncu to run (default: $GPUDISSECT_NCU, PATH, CUDA_HOME)");
  cmd->add_flag("--ncu-child", args->ncu_child)->group("");  // the profiling pass itself
  auto* all = cmd->add_flag("--isolate", args->isolate_all,
                            "Run every probe in a child process under a watchdog (default: only probes marked risky)");
  cmd->add_flag("--no-isolate", args->isolate_none, "Run every probe in this process, risky ones too")->excludes(all);
  cmd->add_flag("--allow-busy", args->allow_busy,
                "Measure even when another process is using the GPU (default: refuse, exit 75); every point measured "
                "while another tenant is seen is flagged `contended`");
  cmd->add_option("--watchdog", args->watchdog_s,
                  "Seconds an isolated probe may take for one point before it is killed (default: 60 + twice its budget)")
      ->check(real_number(0.1, 1e6));
  cmd->callback([&action, args] { action = [args] { return do_run(*args); }; });
}

// Internal: the child side of an isolated probe (ExecuteOptions::isolate), started by `run`.
void add_probe_child(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand("__probe-child", "internal: run one isolated probe for `run`");
  cmd->group("");  // hidden
  auto job = std::make_shared<std::string>();
  cmd->add_option("job", *job)->required();
  cmd->callback([&action, job] {
    action = [job] {
      return probe_child_main(Registry::global(), *job, 3, [](DeviceInfo& d) {
        GD_CUDA_CHECK(cudaSetDevice(d.index));
        GD_CUDA_CHECK(cudaFree(nullptr));  // the context now, not inside the first timed point
      });
    };
  });
}

}  // namespace

void add_selection_options(CLI::App* cmd, Selection& sel) {
  cmd->add_option("--filter,-f", sel.filters, "Probe id glob or dotted prefix (repeatable)");
  cmd->add_option("--category,-c", sel.category, "Only probes of this category");
}

nlohmann::json json_envelope(const std::string& command) {
  return {{"schema_version", kJsonOutputSchemaVersion},
          {"command", command},
          {"tool", {{"name", "gpudissect"}, {"version", GPUDISSECT_VERSION}, {"git_revision", GPUDISSECT_GIT_REVISION}}}};
}

int run_exit_code(const ExecuteSummary& s, bool gpu_state_changed) {
  if (s.interrupted) return 130;
  return s.failed_any() || gpu_state_changed ? 1 : 0;
}

void add_core_commands(CLI::App& app, std::function<int()>& action) {
  add_info(app, action);
  add_list(app, action);
  add_run(app, action);
  add_probe_child(app, action);
}

}  // namespace gd::cli
