// Whether a run had the GPU to itself. A second process running GEMMs on the card moved 977 of a
// quick run's 4184 metrics by more than 10 % (launch overhead 3x, a DRAM point 0.45x) and left no
// trace but power-cap flags, so a run looks for other tenants before it starts (and refuses: exit
// 75) and between its points (and flags each point measured beside one `contended`).
//
// The evidence is NVML's list of processes with a context on the card, each pid set against this
// process's own tree (its isolated probe children and their patched launches are part of the run),
// and, for the start check only, the card's utilization and power over a window in which the run
// launched nothing.
#pragma once
#include <functional>
#include <map>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

#include "core/clock_check.hpp"  // kContendedFlag
#include "core/nvml.hpp"

namespace gd {

// While the run is idle, utilization above this or board power above this fraction of its limit
// means someone else is using the card (an idle H200 reads 0 % and about 80 W of 700 W).
inline constexpr double kBusyUtilizationPct = 10;
inline constexpr double kBusyPowerFraction = 0.5;
// A listed pid that this machine cannot see (it exited, or it is in another pid namespace) counts
// as a tenant once it has been listed this long: a context being torn down lingers briefly.
inline constexpr double kUnseenPidGraceS = 0.5;

// One look at the card.
struct TenancyReading {
  std::optional<std::vector<GpuProcess>> processes;  // nullopt: NVML cannot list them
  std::optional<Utilization> utilization;            // read for the idle window only
  std::optional<double> power_w, power_limit_w;      // likewise
};
// Reads the card: the process list, and with `idle_since_us` > 0 the utilization samples taken
// after it (microseconds since the epoch) and the board power.
using TenancySource = std::function<TenancyReading(unsigned long long idle_since_us)>;
TenancySource nvml_tenancy_source(const std::string& pci_bus_id);

// How a pid NVML lists relates to this run.
enum class PidRelation {
  Own,     // this process or one it started, at any depth
  Other,   // a live process that is not ours
  Unseen,  // no such process here: it exited, or it lives in another pid namespace
};
// The machine's processes as this run sees them (/proc); tests pass fakes.
struct ProcessView {
  std::function<PidRelation(unsigned pid)> relation;
  std::function<int()> own_count;                 // this process and its live descendants
  std::function<std::string(unsigned pid)> name;  // "" when not visible
};
ProcessView this_process_view();

struct TenancyVerdict {
  bool checked = false;  // false: NVML could list no processes and had no utilization
  bool busy = false;
  std::vector<std::string> evidence;  // what was seen, one phrase each
  nlohmann::json reading;             // the processes, utilization and power, for the run file
  std::string text() const;           // the evidence joined with "; "
};

class TenancyMonitor {
 public:
  // `now_s` is a monotonic clock in seconds; `sleep_s` waits (tests pass fakes for both).
  TenancyMonitor(TenancySource source, ProcessView view, std::function<double()> now_s = {},
                 std::function<void(double)> sleep_s = {});
  // Before the first probe: a look, `window_s` in which this run launches nothing, and a second
  // look with the utilization over the window and the board power.
  TenancyVerdict check_idle(double window_s);
  // Between points: the process list only (the run's own kernels are the utilization now).
  TenancyVerdict sample();
  // Cost of the looks so far, for the run's timing.
  double sampling_s() const { return sampling_s_; }
  int samples() const { return samples_; }

 private:
  TenancyVerdict judge(const TenancyReading& r);
  TenancySource source_;
  ProcessView view_;
  std::function<double()> now_s_;
  std::function<void(double)> sleep_s_;
  std::map<unsigned, double> unseen_since_;  // pid -> when first listed
  std::optional<double> excess_since_;       // another namespace: when the list first outgrew the run
  double sampling_s_ = 0;
  int samples_ = 0;
};

// The refusal's message when the card is busy at the start of a run.
std::string busy_message(const std::string& gpu, const TenancyVerdict& v);

// Whether a run is a measurement, and so takes its GPU's lock (core/gpu_lock.hpp) and looks for
// tenants: not the profiling pass under --ncu (its parent did both), nor a --single-sample or
// --functional run, whose numbers describe nothing (scripts/sanitize.sh starts several at once).
bool run_takes_the_gpu(bool ncu_child, bool single_sample, bool functional);

// Before a run's first probe: the idle-window look (0.8 s). Throws GpuBusy (exit 75) with
// busy_message when the card is busy, unless `allow_busy`, which warns on `notes` and returns;
// a card NVML cannot describe is said to be unchecked, not assumed idle.
TenancyVerdict require_alone(TenancyMonitor& tenancy, const std::string& gpu, bool allow_busy, std::ostream& notes);

}  // namespace gd
