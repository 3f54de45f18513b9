#include "core/executor.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <cuda_runtime_api.h>

#include "core/child_process.hpp"
#include "core/clock_check.hpp"
#include "core/error.hpp"
#include "core/match.hpp"
#include "core/nvml.hpp"
#include "core/probe.hpp"
#include "core/spawn.hpp"
#include "core/timing.hpp"

namespace gd {

namespace {

bool has_glob(const std::string& s) { return s.find_first_of("*?") != std::string::npos; }

// "memory" and "memory.latency" select whole subtrees; a glob is matched as written.
bool filter_matches(const std::string& filter, const std::string& id) {
  if (has_glob(filter)) return glob_match(filter, id);
  return id == filter || (id.size() > filter.size() && id.compare(0, filter.size(), filter) == 0 &&
                          id[filter.size()] == '.');
}

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::atomic<bool> g_interrupted{false};
// The first SIGINT/SIGTERM asks the run to stop after the point in flight; the handler then
// steps aside, so a second one ends the process at once (a hung kernel cannot trap the user).
extern "C" void on_interrupt(int sig) {
  g_interrupted = true;
  std::signal(sig, SIG_DFL);
}

// Installs the handlers for the duration of a run and restores the previous ones.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted = false;
    previous_int_ = std::signal(SIGINT, on_interrupt);
    previous_term_ = std::signal(SIGTERM, on_interrupt);
  }
  ~InterruptGuard() {
    std::signal(SIGINT, previous_int_);
    std::signal(SIGTERM, previous_term_);
  }

 private:
  void (*previous_int_)(int);
  void (*previous_term_)(int);
};

std::string format_duration(double s) {
  char buf[32];
  if (s < 90) std::snprintf(buf, sizeof buf, "%.0fs", s);
  else std::snprintf(buf, sizeof buf, "%.0fm%02.0fs", s / 60, s - 60 * int(s / 60));
  return buf;
}

class Progress {
 public:
  Progress(bool enabled, std::size_t total_points) : enabled_(enabled), total_(total_points), start_(steady_now_s()) {}
  void show(const std::string& id, const Params& p) {
    if (!enabled_) return;
    const double elapsed = steady_now_s() - start_;
    std::string eta = "?";
    if (done_ > 0) eta = format_duration(elapsed / double(done_) * double(total_ - done_));
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s %s  elapsed %s  eta %s", done_ + 1, total_, id.c_str(),
                 to_string(p).c_str(), format_duration(elapsed).c_str(), eta.c_str());
    std::fflush(stderr);
  }
  void advance(std::size_t n = 1) { done_ += n; }
  void finish() {
    if (enabled_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool enabled_;
  std::size_t total_, done_ = 0;
  double start_;
};

void emit(const std::vector<RecordSink*>& sinks, const Record& r) {
  for (RecordSink* s : sinks) s->on_record(r);
}

Record base_record(const ProbeSpec& spec, const Params& params) {
  Record r;
  r.id = spec.id;
  r.category = spec.category();
  r.params = params;
  return r;
}

// The point's SASS status from the kernels it launched. A verifier that throws leaves the
// point unverified with the reason, never verified.
SassCheck check_point(const ProbeSpec& spec, const DeviceInfo& device, const Record& r, const SassVerifier& verify) {
  if (r.status == Status::Skipped) return {SassStatus::NotApplicable, "skipped: nothing was measured"};
  if (!verify) return {SassStatus::Unverified, "no SASS verifier in this build"};
  try {
    return verify(spec, device, r.kernels);
  } catch (const std::exception& e) {
    return {SassStatus::Unverified, std::string("verifier failed: ") + e.what()};
  }
}

void count(ExecuteSummary& s, const Record& r) {
  if (r.status == Status::Ok) ++s.ok;
  else if (r.status == Status::Skipped) ++s.skipped;
  else ++s.failed;
  if (r.status == Status::Skipped) return;
  if (r.sass.status == SassStatus::Mismatch) ++s.sass_mismatch;
  if (r.sass.status == SassStatus::Unverified && r.status == Status::Ok) ++s.sass_unverified;
  if (r.status == Status::Ok && !r.derived && r.convergence.recorded && !r.convergence.converged) ++s.unconverged;
  if (const auto by = throttled_by(r); by && !by->empty() && !r.derived) ++s.throttled;
  if (r.status == Status::Ok && !r.derived && has_flag(r, kClockBelowApplicationFlag)) ++s.below_application_clock;
  if (r.status == Status::Ok && !r.derived && has_flag(r, kContendedFlag)) ++s.contended;
}

// Looks for other tenants after every point and flags the point when this look or the one before
// it saw one: a tenant that arrived or left mid-point shared part of it.
class TenantWatch {
 public:
  explicit TenantWatch(const ExecuteOptions& opts) : look_(opts.tenants) {
    if (look_) last_ = look_();
  }
  void mark(Record& r) {
    if (!look_) return;
    std::optional<std::string> now = look_();
    const std::optional<std::string>& seen = now ? now : last_;
    if (seen && r.status != Status::Skipped) {
      add_flag(r, kContendedFlag);
      r.extra["contended"] = *seen;
    }
    last_ = std::move(now);
  }

 private:
  std::function<std::optional<std::string>()> look_;
  std::optional<std::string> last_;
};

// A sticky error poisons the context; a fresh one lets the remaining probes run.
void recover_from(const CudaError& e) {
  if (!e.sticky()) return;
  GD_CUDA_CHECK_NOTHROW(cudaDeviceReset());
  (void)cudaGetLastError();
}

// Measures one point; its SASS check is verify_point's, made when the verifier is ready.
Record run_point(const ProbeSpec& spec, const Params& params, DeviceInfo& device, const ExecuteOptions& opts,
                 double budget_s) {
  Record r = base_record(spec, params);
  const double t0 = steady_now_s();
  ProbeContext ctx(spec, params, device, opts.quick, budget_s, opts.sampling);
  const auto throttle_before = read_throttle_counters(device.pci_bus_id);
  try {
    spec.run(ctx);
    ctx.fill(r);
    if (r.metrics.empty()) throw Error("probe returned without emitting a metric");
  } catch (const SkipProbe& e) {
    r.status = Status::Skipped;
    r.reason = e.what();
  } catch (const CudaError& e) {
    r.status = Status::Failed;
    r.reason = e.what();
    recover_from(e);
  } catch (const std::exception& e) {
    r.status = Status::Failed;
    r.reason = e.what();
    r.metrics.clear();
  }
  if (r.status != Status::Ok) r.kernels = ctx.kernels();  // what ran before it stopped
  if (const auto after = throttle_before ? read_throttle_counters(device.pci_bus_id) : std::nullopt) {
    // Limiters that held the clocks down at any time during the point, by NVML's counters.
    const ThrottleCounters held = throttle_between(*throttle_before, *after);
    nlohmann::json by = nlohmann::json::array(), ns = nlohmann::json::object();
    for (const auto& [name, t] : held) {
      by.push_back(name);
      ns[name] = t;
    }
    r.extra["throttle"] = {{"by", by}, {"ns", ns}};
  }
  refresh_live_state(device);
  if (device.nvml) {
    const auto& n = *device.nvml;
    r.nvml_sm_clock_mhz = n.sm_clock_mhz;
    // The card's state right after the point, so a slow number can be told from a slow card.
    r.extra["device_state"] = {{"sm_clock_mhz", n.sm_clock_mhz}, {"mem_clock_mhz", n.mem_clock_mhz},
                               {"power_w", n.power_w}, {"temperature_c", n.temperature_c}};
  }
  r.elapsed_s = steady_now_s() - t0;
  check_clock(r, opts.application_sm_clock_mhz);
  return r;
}

// The point's SASS check. The first one may read and disassemble the whole binary (seconds): the
// record says how long when it took over half a second.
void verify_point(const ProbeSpec& spec, const DeviceInfo& device, Record& r, const SassVerifier& verify) {
  const double t0 = steady_now_s();
  r.sass = check_point(spec, device, r, verify);
  const double verify_s = steady_now_s() - t0;
  if (verify_s > 0.5) r.extra["sass_verify_s"] = verify_s;
}

// A probe's time cap (all its points), after the user's override and the run's scale.
double probe_cap(const ProbeSpec& spec, const ExecuteOptions& opts) {
  const double own_cap = opts.sampling.timeout_s > 0 ? opts.sampling.timeout_s
                                                     : opts.quick ? spec.quick_time_cap_s : spec.time_cap_s;
  return own_cap * opts.time_cap_scale;
}

// Point i's share of what is left of the probe's cap.
double point_budget(double cap, double probe_start, std::size_t n, std::size_t i) {
  const double left = cap - (steady_now_s() - probe_start);
  return std::max(0.05, left / double(n - i));
}

bool is_isolated(const ProbeSpec& spec, const ExecuteOptions& opts) {
  return opts.isolate == IsolateMode::All || (opts.isolate == IsolateMode::Risky && spec.risky);
}

nlohmann::json sampling_to_json(const SamplingOverride& s) {
  return {{"min_samples", s.min_samples}, {"max_noise", s.max_noise},       {"min_time_s", s.min_time_s},
          {"timeout_s", s.timeout_s},     {"single_sample", s.single_sample}, {"functional", s.functional}};
}

SamplingOverride sampling_from_json(const nlohmann::json& j) {
  SamplingOverride s;
  s.min_samples = j.at("min_samples").get<int>();
  s.max_noise = j.at("max_noise").get<double>();
  s.min_time_s = j.at("min_time_s").get<double>();
  s.timeout_s = j.at("timeout_s").get<double>();
  s.single_sample = j.value("single_sample", false);  // an isolated child of --single-sample or --ncu
  s.functional = j.value("functional", false);        // an isolated child of --functional
  return s;
}

// The job file a child reads: removed when the probe is done.
class JobFile {
 public:
  explicit JobFile(const std::string& content) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir && *dir ? dir : "/tmp") + "/gpudissect-job-XXXXXX";
    const int fd = ::mkstemp(path_.data());
    if (fd < 0)
      throw UserError("cannot create a job file for an isolated probe in " + path_ + ": " + std::strerror(errno) +
                      "; check TMPDIR");
    std::size_t done = 0;
    while (done < content.size()) {
      const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
      if (n <= 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fd);
        ::unlink(path_.c_str());
        throw Error("cannot write the job file " + path_ + ": " + std::strerror(errno));
      }
      done += std::size_t(n);
    }
    ::close(fd);
  }
  ~JobFile() { ::unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs all of a probe's points in one child process under a watchdog. Records stream back as the
// child finishes them and are checked (SASS), counted and emitted here; a child that hangs, traps
// or faults leaves its unfinished points failed with the reason, and the run goes on.
std::vector<Record> run_isolated(const ProbeSpec& spec, const std::vector<Params>& points, DeviceInfo& device,
                                 const ExecuteOptions& opts, const SassVerifier& verify,
                                 const std::vector<RecordSink*>& sinks, ExecuteSummary& summary, Progress& progress,
                                 TenantWatch& tenants) {
  const double cap = probe_cap(spec, opts);
  nlohmann::json job = {{"probe", spec.id}, {"quick", opts.quick}, {"cap_s", cap},
                        {"sampling", sampling_to_json(opts.sampling)}, {"device", to_json(device)},
                        {"points", nlohmann::json::array()}};
  for (const Params& p : points) job["points"].push_back(to_json(p));
  const JobFile file(job.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  std::vector<std::string> argv = opts.child_command;
  if (argv.empty()) argv = {self_exe_path(), "__probe-child"};
  argv.push_back(file.path());
  const double watchdog = opts.watchdog_s > 0 ? opts.watchdog_s : 60 + 2 * cap / double(std::max<std::size_t>(1, points.size()));

  std::vector<Record> records;
  std::string protocol_error;
  const auto on_line = [&](const std::string& line) {
    if (records.size() >= points.size()) return;
    Record r;
    try {
      r = record_from_json(nlohmann::json::parse(line).at("record"));
    } catch (const std::exception& e) {
      if (protocol_error.empty()) protocol_error = std::string("unreadable result from the child process: ") + e.what();
      return;
    }
    verify_point(spec, device, r, verify);
    r.extra["isolated"] = true;
    check_clock(r, opts.application_sm_clock_mhz);
    tenants.mark(r);
    count(summary, r);
    emit(sinks, r);
    records.push_back(std::move(r));
    progress.advance();
    if (records.size() < points.size()) progress.show(spec.id, points[records.size()]);
  };
  progress.show(spec.id, points.front());
  const ChildOutcome o = run_child(argv, on_line, watchdog, [] { return g_interrupted.load(); });
  if (o.interrupted) return records;
  const std::size_t stopped_at = records.size();
  for (std::size_t i = stopped_at; i < points.size(); ++i) {
    Record r = base_record(spec, points[i]);
    r.status = Status::Failed;
    if (i == stopped_at)
      r.reason = "isolated probe failed at this point: " + (protocol_error.empty() ? o.describe(watchdog) : protocol_error);
    else
      r.reason = "not run: the probe's child process ended at point " + to_string(points[stopped_at]) + " before reaching it";
    r.sass = {SassStatus::NotApplicable, "the point did not finish: nothing was measured"};
    r.extra["isolated"] = true;
    count(summary, r);
    emit(sinks, r);
    records.push_back(std::move(r));
    progress.advance();
  }
  return records;
}

// Runs the probe's analysis step; derived records are counted into the summary.
void run_summary(const ProbeSpec& spec, const std::vector<Record>& records, const DeviceInfo& device,
                 const std::vector<RecordSink*>& sinks, ExecuteSummary& summary, double application_mhz) {
  const bool any_ok = std::any_of(records.begin(), records.end(), [](const Record& r) { return r.status == Status::Ok; });
  if (!spec.summarize || !any_ok) return;
  SummaryContext sc(spec, records, device);
  try {
    spec.summarize(sc);
  } catch (const std::exception& e) {
    Record& r = sc.derive({{"analysis", ParamValue{std::string("summary")}}}, {});
    r.status = Status::Failed;
    r.reason = std::string("analysis failed: ") + e.what();
  }
  for (Record& r : sc.derived()) {
    check_clock(r, application_mhz);
    count(summary, r);
    emit(sinks, r);
  }
}

}  // namespace

std::vector<Record> resummarize(const ProbeSpec& spec, const std::vector<Record>& points, const DeviceInfo& device) {
  struct Collect : RecordSink {
    std::vector<Record> out;
    void on_record(const Record& r) override { out.push_back(r); }
  } collect;
  ExecuteSummary ignored;
  run_summary(spec, points, device, {&collect}, ignored, 0);
  return collect.out;
}

std::vector<const ProbeSpec*> select_probes(const Registry& reg, const Selection& sel) {
  if (!sel.category.empty()) {
    const auto cats = reg.categories();
    if (std::find(cats.begin(), cats.end(), sel.category) == cats.end())
      throw UserError("unknown category '" + sel.category + "'; categories are: " + join(cats));
  }
  std::vector<std::string> ids;
  for (const auto& p : reg.probes()) ids.push_back(p.id);
  for (const auto& f : sel.filters) {
    const bool any = std::any_of(ids.begin(), ids.end(), [&](const std::string& id) { return filter_matches(f, id); });
    if (!any)
      throw UserError("filter '" + f + "' matches no probe; closest ids: " + join(closest(f, ids)) +
                      " (see `gpudissect list`)");
  }
  std::vector<const ProbeSpec*> out;
  for (const auto& p : reg.probes()) {
    if (!sel.category.empty() && p.category() != sel.category) continue;
    const bool chosen = sel.filters.empty() ||
                        std::any_of(sel.filters.begin(), sel.filters.end(),
                                    [&](const std::string& f) { return filter_matches(f, p.id); });
    if (chosen) out.push_back(&p);
  }
  if (out.empty())
    throw UserError("no probe matches both the filters and category '" + sel.category + "'");
  return out;
}

std::optional<std::string> unmet_requirement(const Requirements& req, const DeviceInfo& device) {
  const int cc = device.cc();
  if (req.min_cc && cc < req.min_cc)
    return "needs compute capability " + std::to_string(req.min_cc / 10) + "." +
           std::to_string(req.min_cc % 10) + " or newer; this device is " + device.sm_name();
  if (req.max_cc && cc > req.max_cc)
    return "needs compute capability at most " + std::to_string(req.max_cc / 10) + "." +
           std::to_string(req.max_cc % 10) + "; this device is " + device.sm_name();
  for (Feature f : req.features)
    if (!device.has(f))
      return "needs " + to_string(f) + ", which " + device.sm_name() + " with code " +
             (device.arch_code_loaded.empty() ? std::string("(unknown)") : device.arch_code_loaded) +
             " does not provide";
  if (device.gpu_count < req.min_gpus)
    return "needs " + std::to_string(req.min_gpus) + " GPUs; this machine has " + std::to_string(device.gpu_count);
  return std::nullopt;
}

std::string quick_leave_out_reason(const ProbeSpec& spec) {
  return "left out of a quick run (a run without --quick measures it): " + spec.quick_leaves_out;
}

std::vector<PlannedProbe> plan(const std::vector<const ProbeSpec*>& probes, const DeviceInfo& device,
                               bool leave_out_quick) {
  std::vector<PlannedProbe> out;
  for (const ProbeSpec* p : probes) {
    std::optional<std::string> skip = unmet_requirement(p->needs, device);
    if (!skip && leave_out_quick && !p->quick_leaves_out.empty()) skip = quick_leave_out_reason(*p);
    out.push_back({p, std::move(skip), p->axes});
  }
  return out;
}

void apply_axis_overrides(std::vector<PlannedProbe>& planned, const std::vector<AxisOverride>& overrides) {
  for (const AxisOverride& o : overrides) {
    bool matched = false;
    for (PlannedProbe& pp : planned) {
      if (!filter_matches(o.probe, pp.spec->id)) continue;
      matched = true;
      auto axis = std::find_if(pp.axes.begin(), pp.axes.end(), [&](const Axis& a) { return a.name == o.axis; });
      if (axis == pp.axes.end()) {
        std::vector<std::string> names;
        for (const Axis& a : pp.axes) names.push_back(a.name);
        throw UserError("--axis " + o.probe + ":" + o.axis + ": probe " + pp.spec->id + " has no axis '" + o.axis +
                        "' (its axes: " + (names.empty() ? std::string("none") : join(names)) + ")");
      }
      try {
        *axis = restrict_axis(*axis, o.values);
      } catch (const std::invalid_argument& e) {
        throw UserError("--axis for " + pp.spec->id + ": " + e.what());
      }
    }
    if (!matched) throw UserError("--axis " + o.probe + ":" + o.axis + ": '" + o.probe + "' matches none of the selected probes");
  }
}

bool progress_wanted(bool disabled, int fd) { return !disabled && ::isatty(fd) == 1; }

ExecuteSummary execute(const std::vector<PlannedProbe>& planned, DeviceInfo& device,
                       const std::vector<RecordSink*>& sinks, const SassVerifier& verify,
                       const ExecuteOptions& opts) {
  InterruptGuard guard;
  ExecuteSummary summary;
  std::size_t total = 0;
  for (const auto& pp : planned) total += pp.skip_reason ? 1 : expand(pp.axes, opts.quick).size();
  Progress progress(opts.progress, total);
  TenantWatch tenants(opts);
  // Finished points wait here, in order, for their SASS check, count and emission while the
  // verifier is still being prepared (sass::make_run_verifier reads and disassembles the binary
  // on a background thread: seconds the first probes would otherwise wait); the next probe runs
  // meanwhile. Drained whenever the verifier is ready, before an isolated probe, and at the end
  // (also of an interrupted run: nothing finished is lost).
  std::deque<std::function<void()>> pending;
  const auto drain = [&](bool wait) {
    if (!wait && opts.verifier_ready && !opts.verifier_ready()) return;
    while (!pending.empty()) {
      const std::function<void()> job = std::move(pending.front());
      pending.pop_front();
      job();
    }
  };
  const auto defer = [&](std::function<void()> job) {
    pending.push_back(std::move(job));
    drain(false);
  };

  const auto run_probe = [&](const PlannedProbe& pp) {
    const ProbeSpec& spec = *pp.spec;
    if (pp.skip_reason) {
      Record r = base_record(spec, {});
      r.status = Status::Skipped;
      r.reason = *pp.skip_reason;
      r.sass = {SassStatus::NotApplicable, "skipped: nothing was measured"};
      defer([&sinks, &summary, r] {
        emit(sinks, r);
        count(summary, r);
      });
      progress.advance();
      return;
    }
    const auto points = expand(pp.axes, opts.quick);
    if (points.empty()) return;
    if (is_isolated(spec, opts)) {
      drain(true);
      const auto records = run_isolated(spec, points, device, opts, verify, sinks, summary, progress, tenants);
      if (!g_interrupted) run_summary(spec, records, device, sinks, summary, opts.application_sm_clock_mhz);
      return;
    }
    const double cap = probe_cap(spec, opts);
    const double probe_start = steady_now_s();
    auto checked = std::make_shared<std::vector<Record>>();  // the analysis reads the checked points
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (g_interrupted) break;
      progress.show(spec.id, points[i]);
      Record r = run_point(spec, points[i], device, opts, point_budget(cap, probe_start, points.size(), i));
      tenants.mark(r);
      // Explicit captures: the job outlives this call, and spec is a reference to the planned probe.
      defer([&sinks, &summary, &device, &verify, spec = pp.spec, checked, r = std::move(r)]() mutable {
        verify_point(*spec, device, r, verify);
        count(summary, r);
        emit(sinks, r);
        checked->push_back(std::move(r));
      });
      progress.advance();
    }
    if (!g_interrupted)
      defer([&sinks, &summary, &device, mhz = opts.application_sm_clock_mhz, spec = pp.spec, checked] {
        run_summary(*spec, *checked, device, sinks, summary, mhz);
      });
  };
  for (const auto& pp : planned) {
    if (g_interrupted) break;
    const double t0 = steady_now_s();
    run_probe(pp);
    if (opts.probe_wall_s) opts.probe_wall_s->emplace_back(pp.spec->id, steady_now_s() - t0);
  }
  drain(true);
  progress.finish();
  summary.interrupted = g_interrupted;
  for (RecordSink* s : sinks) s->on_finish(!summary.interrupted);
  return summary;
}

int probe_child_main(const Registry& registry, const std::string& job_path, int record_fd,
                     const std::function<void(DeviceInfo&)>& prepare) {
  // Whatever this process starts (a patched launch's own child) must not hold the result pipe
  // open: the parent reads its end until every writer is gone.
  ::fcntl(record_fd, F_SETFD, FD_CLOEXEC);
  nlohmann::json job;
  try {
    std::ifstream in(job_path);
    job = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "probe child: cannot read job %s: %s\n", job_path.c_str(), e.what());
    return 2;
  }
  const ProbeSpec* spec = registry.find(job.value("probe", ""));
  if (!spec) {
    std::fprintf(stderr, "probe child: no probe '%s' in this binary\n", job.value("probe", "").c_str());
    return 2;
  }
  DeviceInfo device = device_from_json(job.at("device"));
  if (prepare) prepare(device);
  ExecuteOptions opts;
  opts.quick = job.at("quick").get<bool>();
  opts.sampling = sampling_from_json(job.at("sampling"));
  std::vector<Params> points;
  for (const auto& p : job.at("points")) points.push_back(params_from_json(p));
  const double cap = job.at("cap_s").get<double>();
  const double start = steady_now_s();
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Record r = run_point(*spec, points[i], device, opts, point_budget(cap, start, points.size(), i));
    const std::string line = nlohmann::json{{"record", to_json(r)}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    for (std::size_t done = 0; done < line.size();) {
      const ssize_t n = ::write(record_fd, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return 3;  // the parent is gone
      done += std::size_t(n);
    }
  }
  return 0;
}

}  // namespace gd
