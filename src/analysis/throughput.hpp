// Throughput and pipe analysis shared by the instruction probes: per-SM rates from per-block
// clock spans, the ILP x warps knee, and pipe assignment by interference and by profiler counters.
#pragma once
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/timing.hpp"

namespace gd {

// Work per clock per SM: for each SM, the work of all blocks that ran there over the span from
// its first block's start to its last block's end; the median over SMs. Blocks that doubled up
// on one SM are accounted on that SM's real elapsed cycles. 0 when no block has cycles.
double per_sm_rate(std::span<const RegionTiming> blocks, double work_per_block);

// One point of an ILP x warps-per-SM sweep.
struct RatePoint {
  double ilp = 0, warps = 0, rate = 0;
};

// Where a throughput sweep saturates: the plateau (best rate), and the smallest ILP (at the
// plateau's warp count) and smallest warp count (at the plateau's ILP) reaching `fraction` of it.
struct ThroughputKnee {
  double plateau = 0;
  double plateau_ilp = 0, plateau_warps = 0;
  double ilp_knee = 0, warps_knee = 0;
};
// Throws std::invalid_argument on an empty sweep or a non-finite rate.
ThroughputKnee throughput_knee(std::span<const RatePoint> sweep, double fraction = 0.95);

// --- pipe assignment by interference ---------------------------------------------------------
// Rates in warp-instructions per clock per scheduler (SMSP), the unit the issue limit (1) is in.
struct InterferenceInput {
  double x_alone = 0;   // X's issue rate with its warps alone
  double y_alone = 0;   // the reference Y's, alone
  double x_beside = 0;  // X's issue rate while Y saturates in the other warps
};
struct InterferenceVerdict {
  double ratio = 0;          // x_beside / x_alone
  double separate = 0;       // the ratio expected if X and Y share only the issue slots
  double shared = 0;         // the ratio expected if they share one pipe (time split fairly: 0.5)
  bool decisive = false;     // the streams fit the issue slots and the expectations are far apart
  double same_pipe_score = 0;  // 0: as separate pipes, 1: as one pipe (clamped to [-0.5, 1.5])
};
// Throws std::invalid_argument on non-positive or non-finite rates.
InterferenceVerdict judge_interference(const InterferenceInput& in);

// The pipe class of X from its verdicts beside each class's reference: the decisive class with
// the highest same-pipe score above 0.5, a near tie (within 0.15) going to the class listed
// first in pipe_classes(); "" when none qualifies.
std::string pipe_by_interference(const std::map<std::string, InterferenceVerdict>& by_class);

// --- pipe assignment by Nsight Compute counters ------------------------------------------------
// From a kernel's counters (ncu metric name -> value), the pipe whose
// smsp__inst_executed_pipe_<pipe>[.sum] count is largest, with its share of all pipe counts.
// The aggregate pipes that double-count (fp16 inside fma on some chips is kept; "fmaheavy"
// and "fmalite" roll into "fma") are folded. Empty pipe when no pipe counter is present.
struct CounterPipe {
  std::string pipe;
  double share = 0;
  std::map<std::string, double> counts;  // per folded pipe
};
CounterPipe pipe_by_counters(const std::map<std::string, double>& ncu_metrics);

// The same from a record's extra: extra.ncu = {"<kernel name>": {"<ncu metric>": value}}, as
// `gpudissect run --ncu` stores it, taking the first kernel whose name contains `kernel_part`.
// nullopt when the record has no such counters (the run was not under ncu).
std::optional<CounterPipe> pipe_from_ncu(const nlohmann::json& extra, const std::string& kernel_part);
// What a record says about the counters: {pipe, class, share, counts}, or the string
// "ncu counters absent".
nlohmann::json describe_ncu_pipe(const nlohmann::json& extra, const std::string& kernel_part);

// The pipe classes of the co-issue matrix, and which class a counter pipe name belongs to
// ("alu" -> "INT", "fma" -> "FP32", ...); "" for a pipe outside the classes.
const std::vector<std::string>& pipe_classes();
std::string class_of_counter_pipe(const std::string& pipe);

// Mixed throughput over the best single stream: (x_work + y_work) / mixed_time divided by
// max(x_work / x_time, y_work / y_time), with work in issue slots and both run on the same
// warps split in half. 2 is perfect co-issue, 1 no gain. Throws std::invalid_argument on
// non-positive input.
double coissue_gain(double x_rate_alone, double y_rate_alone, double x_rate_mixed, double y_rate_mixed);

}  // namespace gd
