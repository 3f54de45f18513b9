// Plan (filter, gate) and execute probes; stream every finished record to the sinks at once.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/device.hpp"
#include "core/record.hpp"
#include "core/registry.hpp"

namespace gd {

struct Selection {
  std::vector<std::string> filters;  // id globs; empty: all
  std::string category;              // empty: all
};

struct PlannedProbe {
  const ProbeSpec* spec = nullptr;
  std::optional<std::string> skip_reason;  // set when the device cannot run it
  std::vector<Axis> axes;                  // the probe's axes, after any --axis restriction
};

// Probes matching the selection, in registry order. Throws UserError when a filter matches
// nothing (naming the closest ids) or the category is unknown (listing the known ones).
std::vector<const ProbeSpec*> select_probes(const Registry& reg, const Selection& sel);
// Why `device` cannot run a probe with these requirements, or nullopt.
std::optional<std::string> unmet_requirement(const Requirements& req, const DeviceInfo& device);
// `leave_out_quick`: a quick run that measures, where probes with a quick_leaves_out skip with it.
std::vector<PlannedProbe> plan(const std::vector<const ProbeSpec*>& probes, const DeviceInfo& device,
                               bool leave_out_quick = false);
// The reason a quick run's skipped record gives for a probe the quick run leaves out.
std::string quick_leave_out_reason(const ProbeSpec& spec);
// Restricts the planned probes' axes. Throws UserError when an override's probe matches none of
// the selected probes, or names an axis the probe lacks, or values it did not declare.
void apply_axis_overrides(std::vector<PlannedProbe>& planned, const std::vector<AxisOverride>& overrides);

// Receives each record as soon as it is final.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void on_record(const Record& r) = 0;
  virtual void on_finish(bool complete) { (void)complete; }
};

// Checks one point against the code the device runs: the probe's declared expectations, and
// that every kernel the point launched (mangled names) is covered by one of them.
using SassVerifier =
    std::function<SassCheck(const ProbeSpec&, const DeviceInfo&, const std::vector<std::string>& kernels)>;

// Which probes run in a child process under a watchdog (core/child_process.hpp): a hang, trap
// or fault there fails that probe's unfinished points with the reason and the run goes on.
enum class IsolateMode {
  Risky,  // the probes that declare ProbeSpec::risky (the default)
  All,    // every probe (--isolate)
  None,   // none, not even the risky ones (--no-isolate)
};

struct ExecuteOptions {
  bool quick = false;
  IsolateMode isolate = IsolateMode::Risky;
  // The child's command line before the job file; empty: this executable's `__probe-child`.
  std::vector<std::string> child_command;
  double watchdog_s = 0;         // seconds a child may take for one point; 0: 60 s plus twice its budget
  SamplingOverride sampling;     // the user's repetition settings over every probe's policy
  bool progress = true;          // progress line with ETA on stderr
  double time_cap_scale = 1.0;   // multiplies each probe's time cap
  // The card's application SM clock (core/clock_check.hpp): every record whose in-run clock is
  // more than 3 % under it is flagged clock_below_application; 0 leaves records unflagged.
  double application_sm_clock_mhz = 0;
  // Where each probe's wall time goes when set: its points (an isolated child's start included),
  // SASS checks and analysis, in run order. Read by the run file's finish line.
  std::vector<std::pair<std::string, double>>* probe_wall_s = nullptr;
  // Another tenant on the GPU right now (core/tenancy.hpp): what was seen, or nullopt while the run
  // has the card to itself. Asked once before the first point and after every point; a point is
  // flagged `contended` (extra.contended says why) when the look before it or after it saw one.
  // Empty: nobody looks.
  std::function<std::optional<std::string>()> tenants;
  // Whether the SASS verifier answers without waiting (sass::make_run_verifier prepares it on a
  // background thread). While it does not, finished points wait, in order, for their check,
  // count and emission, and the next probe runs. Empty: always ready.
  std::function<bool()> verifier_ready;
};

struct ExecuteSummary {
  int ok = 0, skipped = 0, failed = 0;
  int sass_mismatch = 0;   // records whose measured code is not what the probe declares
  int sass_unverified = 0; // measured records with something left unchecked
  int unconverged = 0;     // measured points whose repetition stopped before its target
  int throttled = 0;       // measured points during which NVML saw a clock limiter act
  int below_application_clock = 0;  // measured points whose in-run SM clock was > 3 % under the application clock
  int contended = 0;       // measured points during which another process had a context on the GPU
  bool interrupted = false;
  // A run fails when a point failed or measured code that is not the code intended.
  bool failed_any() const { return failed > 0 || sass_mismatch > 0; }
};

// Whether a progress line goes to `fd`: only a terminal reads its escape codes; in a log file or
// a pipe they would leave one line per point.
bool progress_wanted(bool disabled, int fd);

// Runs every planned probe and sweep point; each point's SASS status comes from the kernels it
// launched (verify). A probe that throws is recorded as failed and the
// run goes on (a sticky CUDA error resets the context first). SIGINT or SIGTERM stops after the
// point in flight (a second one ends the process); everything finished is already with the sinks.
ExecuteSummary execute(const std::vector<PlannedProbe>& plan, DeviceInfo& device,
                       const std::vector<RecordSink*>& sinks, const SassVerifier& verify,
                       const ExecuteOptions& opts);

// A probe's analysis step run again over its measured points (records of a run file, no GPU):
// the derived records the current code makes from them, an "analysis failed" record included.
// Lets a fixed analysis re-read an old run (`gpudissect resummarize`).
std::vector<Record> resummarize(const ProbeSpec& spec, const std::vector<Record>& points, const DeviceInfo& device);

// The child's side of an isolated probe: reads the job file the parent wrote (probe id, points,
// options, device), runs the points with `registry`'s probe and writes each record as one JSON
// line to `record_fd` as soon as it is done. `prepare` runs first (the CLI selects the CUDA
// device there). Returns the process exit code.
int probe_child_main(const Registry& registry, const std::string& job_path, int record_fd,
                     const std::function<void(DeviceInfo&)>& prepare = {});

}  // namespace gd
