// Nsight Compute counters beside the timings (`gpudissect run --ncu`). The selected probes run
// once more in a child process under `ncu`, each kernel launch wrapped in an NVTX range named
// after its sweep point (point_tag); ncu's CSV is parsed back into counters per point and
// kernel, and the timing run attaches them to the matching records as `extra.ncu`.
#pragma once
#include <istream>
#include <map>
#include <string>
#include <vector>

#include "core/json.hpp"

#include "core/sweep.hpp"

namespace gd::ncu {

// The counters every --ncu run collects: instructions executed per pipe (the pipe a
// measured instruction runs on) and in total, and the SM cycles elapsed.
const std::vector<std::string>& default_metrics();
// Checks a metric name (letters, digits, '_', '.', ':'), so nothing odd reaches ncu's command
// line; throws UserError naming the bad one.
void check_metric_name(const std::string& name);

// "@gd:<probe id>:<16 hex digits of the params' canonical JSON hash>": no quotes, commas or
// slashes, which ncu's CSV does not escape in renamed kernel names.
std::string point_tag(const std::string& probe_id, const Params& params);

// Child side: while on, every launch through core/launch.cuh sits in an NVTX range named by
// its point's tag.
void set_tagging(bool on);
bool tagging();
class Range {  // RAII NVTX push/pop; an empty name pushes nothing
 public:
  explicit Range(const std::string& name);
  ~Range();
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;

 private:
  bool pushed_ = false;
};

// Counters of one point: kernel (ncu's demangled name) -> metric -> one value per profiled launch.
using PointCounters = std::map<std::string, std::map<std::string, std::vector<double>>>;
// All points of a profiling run, by point tag.
using Counters = std::map<std::string, PointCounters>;

// Parses ncu's long CSV (`ncu --import R --csv --print-units base --print-nvtx-rename kernel`):
// rows whose "Kernel Name" is "<tag>/<kernel>" with an @gd: tag are kept; other launches (not
// ours) are ignored. Numbers may carry thousands separators. Throws Error on a malformed file
// (no header, missing columns, an unterminated quote, a non-numeric value).
Counters parse_csv(std::istream& in);
// {kernel: {metric: median over its launches}} — the record's extra.ncu.
nlohmann::json to_json(const PointCounters& c);
// {kernel: launches profiled} — the record's extra.ncu_launches.
nlohmann::json launches_json(const PointCounters& c);

// Parent side: the counters the timing run attaches, set once before it starts.
void set_counters(Counters c);
bool have_counters();
const PointCounters* counters_for(const std::string& tag);  // nullptr: none for this point

// ncu to run: `explicit_path` if given, else $GPUDISSECT_NCU, else `ncu` on PATH, else
// $CUDA_HOME/bin/ncu, else /usr/local/cuda/bin/ncu. Throws UserError saying where it looked.
std::string find_exe(const std::string& explicit_path);

}  // namespace gd::ncu
