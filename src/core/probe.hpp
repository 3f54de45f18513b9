// What a probe declares (ProbeSpec) and what it is handed when it runs (ProbeContext).
// A probe file defines its kernels, a driver taking a ProbeContext, and one GD_REGISTER_PROBE.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

#include "core/device.hpp"
#include "core/record.hpp"
#include "core/stats.hpp"
#include "core/sweep.hpp"

namespace gd {

struct Requirements {
  int min_cc = 0;                  // e.g. 90 for Hopper and later; 0: any
  int max_cc = 0;                  // inclusive; 0: no upper bound
  std::vector<Feature> features;   // each must be present on the chip and in the loaded code
  int min_gpus = 1;
};

// Where the expectation applies: between the first and last clock read (the timed region);
// anywhere in the kernel; or the timed region opened by the first clock read after a region
// marker (ptx::region_marker, SASS PMTRIG) and closed by the next clock read, for a kernel that
// times several regions and must have one of them counted alone (the pipes' pair kernel).
enum class SassRegion { Clocked, Whole, Marked };
// The region's name in `list` output and JSON.
inline const char* region_key(SassRegion r) {
  switch (r) {
    case SassRegion::Clocked: return "clocked";
    case SassRegion::Whole: return "whole";
    case SassRegion::Marked: return "marked";
  }
  return "?";
}

struct OpcodeExpectation {
  std::string opcode;  // base opcode ("FFMA") or with modifiers ("LDG.E.64.STRONG.GPU")
  int min = 1;
  int max = -1;        // -1: no upper bound
  // Non-empty: min and max count per occurrence of this opcode in the region, for a loop whose
  // unroll ptxas chooses ("a wait per wgmma": WARPGROUP.DEPBAR at least once per HGMMA).
  std::string per{};
};

struct SassExpectation {
  std::string kernel;  // glob over the demangled kernel name, e.g. "*ffma_chain*"
  SassRegion region = SassRegion::Clocked;
  std::vector<OpcodeExpectation> require;
  std::vector<std::string> forbid{"LDL", "STL"};  // local-memory spills hollow out a timing
  // Also count the body of each routine the region CALLs, once (entry to its first RET): for a
  // step that is a call, whose code lies after the kernel's EXIT, outside the clock reads.
  bool callees = false;
};

// Builds an expectation (brace-initialising the aggregate inside templates trips g++ 12).
inline SassExpectation expect_sass(std::string kernel, SassRegion region, std::vector<OpcodeExpectation> require,
                                   std::vector<std::string> forbid = {"LDL", "STL"}, bool callees = false) {
  SassExpectation e;
  e.callees = callees;
  e.kernel = std::move(kernel);
  e.region = region;
  e.require = std::move(require);
  e.forbid = std::move(forbid);
  return e;
}

struct MetricSpec {
  std::string name;
  std::string unit;
  std::string description;
};

// How the report draws a probe's records (python/gpudissect/figures.py). A probe that declares
// none gets the view its parameters suggest (one numeric axis: a line; two: a heatmap; a family
// of parameterless probes: bars), so a new probe has a figure without any change to the report.
struct ReportView {
  enum class Kind { Line, Heatmap, Matrix, Bars, Table };
  Kind kind = Kind::Table;
  std::string metric;        // "": the first declared metric the records carry
  std::string x, y;          // parameter axes: x for a line; columns (x) and rows (y) for a heatmap or matrix
  std::string series;        // a line per value of this parameter ("": of every other varying one)
  std::optional<bool> log_x;  // unset: logarithmic when the axis spans more than 64x
  // A line may also draw the probe's derived records that carry both metrics as bands over
  // [span_first, span_last] at their `metric` value, labelled by the span_label parameter
  // (the cache levels over a latency ladder).
  std::string span_first, span_last, span_label;
};
inline ReportView line_view(std::string x, std::string metric = "", std::string series = "") {
  ReportView v;
  v.kind = ReportView::Kind::Line;
  v.x = std::move(x);
  v.metric = std::move(metric);
  v.series = std::move(series);
  return v;
}
inline ReportView grid_view(ReportView::Kind kind, std::string x, std::string y, std::string metric = "") {
  ReportView v;
  v.kind = kind;
  v.x = std::move(x);
  v.y = std::move(y);
  v.metric = std::move(metric);
  return v;
}
inline ReportView bars_view(std::string metric = "") {
  ReportView v;
  v.kind = ReportView::Kind::Bars;
  v.metric = std::move(metric);
  return v;
}

// A seed item (data/coverage/seed-items.csv, by item_id) this probe measures: the metric that
// answers it, on the records whose params include every one of `where` (a derived level, a best
// point); empty `where`: the first ok record with the metric. An id no seed item has fails CI.
struct SeedCover {
  std::string item;
  std::string metric;
  Params where;
};

class ProbeContext;
class SummaryContext;

struct ProbeSpec {
  std::string id;           // dotted: "<category>.<family>.<variant>"
  std::string description;  // one line
  Requirements needs;
  std::vector<Axis> axes;
  std::vector<SassExpectation> sass;
  std::vector<MetricSpec> metrics;
  std::function<void(ProbeContext&)> run;           // measures one sweep point
  std::function<void(SummaryContext&)> summarize;  // optional: records derived from all points
  // True for a probe that by design runs no SM kernel of ours (copy-engine transfers): its
  // points are SASS not_applicable instead of unverified when they launch nothing.
  bool runs_no_sm_kernel = false;
  // Nsight Compute metrics `run --ncu` collects for this probe's kernels, over the default
  // per-pipe instruction counts (core/ncu.hpp); they land in each record's extra.ncu.
  std::vector<std::string> ncu_metrics;
  // True for a probe that can hang or fault the GPU (patched cubins): it runs in a child process
  // under a watchdog unless the user says --no-isolate (ExecuteOptions::isolate).
  bool risky = false;
  double time_cap_s = 30;        // for the whole probe, all points together
  double quick_time_cap_s = 4;
  // Non-empty: a quick run leaves this probe out and says why (a family of many rows keeps a few
  // that stand for it). The check modes (--single-sample, --functional) run it all the same:
  // they measure nothing and exist to run every kernel.
  std::string quick_leaves_out;
  std::vector<ReportView> views;   // the report's figures of its records (none: inferred)
  std::vector<SeedCover> covers;   // the seed items its metrics measure (gpudissect coverage)

  std::string category() const;  // first component of the id
};

// Handed to a probe for one sweep point. The harness owns repetition, stats and output.
class ProbeContext {
 public:
  ProbeContext(const ProbeSpec& spec, Params params, const DeviceInfo& device, bool quick,
               double time_budget_s, SamplingOverride sampling = {});

  const ProbeSpec& spec() const { return spec_; }
  const Params& params() const { return params_; }
  std::int64_t int_param(const std::string& name) const;
  double real_param(const std::string& name) const;
  std::string str_param(const std::string& name) const;
  const DeviceInfo& device() const { return device_; }
  bool quick() const { return quick_; }
  // --single-sample (run --ncu's profiling pass, scripts/sanitize.sh): one call per measurement
  // and no warm-up, so the timings are not measurements. Checks that judge timing (a patch's
  // effect on cycles, a watchdog sized for native speed) must not fail such a point.
  bool single_sample() const { return sampling_.once(); }
  // --functional (scripts/sanitize.sh, implies single_sample): the point runs its kernels at the
  // smallest size that still executes all of their code, and its numbers describe nothing.
  bool functional() const { return sampling_.functional; }
  // A size the point uses: `full` normally, at most `functional_cap` in a --functional run
  // (blocks, trips, buffer bytes). One call per size keeps the two runs' shapes side by side.
  template <class T>
  T sized(T full, T functional_cap) const {
    return functional() && functional_cap < full ? functional_cap : full;
  }
  double time_budget_s() const { return budget_s_; }

  // Repeats sample() adaptively within this point's time budget. The policy's time cap is
  // clipped to the budget left; the user's sampling override applies over the probe's policy.
  // How it stopped is recorded on the point (Record::convergence).
  RepeatResult measure(const std::function<double()>& sample, RepeatPolicy policy = {});

  // Names a kernel this point launches (its host stub, as passed to <<<>>>): the point is SASS
  // verified only if every kernel it names is covered by an expectation that holds. Launching
  // through core/launch.cuh's launch() does this. Throws CudaError if the runtime cannot name it.
  void launched(const void* kernel);
  // The same for a kernel launched outside the runtime (a patched cubin), by mangled name.
  void launched_by_name(const std::string& mangled_name);
  const std::vector<std::string>& kernels() const { return kernels_; }
  // The NVTX range name of this point's launches under `run --ncu` (core/ncu.hpp); empty when
  // no profiling is going on.
  const std::string& ncu_tag() const { return ncu_tag_; }

  void metric(const std::string& name, const Summary& stats);
  void metric(const std::string& name, double value);  // a derived value (n = 1)
  nlohmann::json& extra() { return extra_; }
  [[noreturn]] void skip(const std::string& reason);

  // The SM clock during the measurement, MHz, from the timed kernels themselves (clock64 over
  // %globaltimer, core/timing.hpp clock_mhz). A probe whose timed work runs no SM code says so
  // with no_sm_clock(why); nothing is borrowed from outside the timed region.
  void set_observed_sm_clock_mhz(double mhz, std::string how = "clock64 cycles over %globaltimer ns in the timed kernels");
  void no_sm_clock(std::string why);
  double observed_sm_clock_mhz() const;  // throws Error when the point has no in-run figure
  bool has_observed_sm_clock() const { return observed_mhz_ > 0; }

  // Fills a record's metrics and extra fields (used by the executor).
  void fill(Record& r) const;

 private:
  const ProbeSpec& spec_;
  Params params_;
  const DeviceInfo& device_;
  bool quick_;
  double budget_s_;
  SamplingOverride sampling_;
  double start_s_;
  double observed_mhz_ = 0;
  std::string clock_detail_;
  std::vector<Metric> metrics_;
  std::vector<std::string> kernels_;
  std::vector<const void*> named_stubs_;  // host stubs already named: launches in timed loops stay cheap
  std::vector<Convergence> convergence_;
  nlohmann::json extra_ = nlohmann::json::object();
  std::string ncu_tag_;

  const MetricSpec& declared(const std::string& name) const;
  void attach_ncu_counters(Record& r) const;
};

// Handed to a probe's summarize step with all the records its points produced.
class SummaryContext {
 public:
  SummaryContext(const ProbeSpec& spec, const std::vector<Record>& records, const DeviceInfo& device)
      : spec_(spec), records_(records), device_(device) {}
  const std::vector<Record>& records() const { return records_; }
  const DeviceInfo& device() const { return device_; }
  // Adds a derived record with these params, computed from `sources` (the points it summarizes):
  // it inherits their SASS status (the worst), convergence and SM clock (their median).
  // Metric names must be declared by the probe.
  Record& derive(Params params, const std::vector<const Record*>& sources);
  // The common case: the best of `candidates` by `metric` (highest, or lowest when !highest)
  // becomes a derived record with `params`, carrying all its metrics and its params as
  // extra.best_point. Returns nullptr when no candidate has the metric.
  Record* derive_best(Params params, const std::vector<const Record*>& candidates, const std::string& metric,
                      bool highest = true);
  // The ok records whose params include every one of `where` (e.g. {{"op", "read"}}).
  std::vector<const Record*> ok_records(const Params& where = {}) const;
  std::vector<Record>& derived() { return derived_; }
  void add_metric(Record& r, const std::string& name, const Summary& stats) const;

 private:
  const ProbeSpec& spec_;
  const std::vector<Record>& records_;
  const DeviceInfo& device_;
  std::vector<Record> derived_;
};

}  // namespace gd
