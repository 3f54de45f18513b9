// Throughput and pipe analysis shared by the instruction probes: per-SM rates from per-block
// clock spans, the ILP x warps knee, and pipe assignment by interference and by profiler counters.
#pragma once
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/json.hpp"

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
// the highest same-pipe score above 0.5, scores counted up to 1 (see
// pipes_tied_by_interference); a near tie (within 0.15) goes to a class that brought X to the
// shared-pipe split or below, the one whose ratio is nearest the split, then to the class listed
// first in pipe_classes(); "" when none qualifies.
std::string pipe_by_interference(const std::map<std::string, InterferenceVerdict>& by_class);
// Every class that near tie holds, in pipe_by_interference's order (its first is the answer):
// interference cannot tell these apart, so each is its answer.
// On sm_90 MATCH and REDUX slow beside the SHFL (LSU) and the S2UR (ADU) references alike.
// A ratio below the split (score above 1) ranks as 1: it says the reference holds the shared
// pipe longer per instruction, not that the pipe is more the row's own. On the H200 DADD runs
// at 0.50 beside DFMA (one pipe, fairly split) and at 0.25 beside the HMMA reference, while HMMA
// beside DFMA keeps its rate (0.999): HMMA occupies the FP64/tensor shared pipe for several of
// DADD's slots, and DADD's pipe is FP64's.
std::vector<std::string> pipes_tied_by_interference(const std::map<std::string, InterferenceVerdict>& by_class);
// The verdicts as a probe stores them (class -> {"decisive", "same_pipe_score", ...}); entries
// without both fields are left out.
std::map<std::string, InterferenceVerdict> verdicts_from_json(const nlohmann::json& verdicts);

// --- pipe assignment by Nsight Compute counters ------------------------------------------------
// From a kernel's counters (ncu metric name -> value). With ncu's utilization metrics
// (<unit>__inst_executed_pipe_<pipe>.avg.pct_of_peak_sustained_active and
// sm__pipe_<pipe>_cycles_active.avg.pct_of_peak_sustained_active, see
// pipe_utilization_metrics()) the pipe is the one busiest against its own peak: the pipe that
// bounds the stream, which is what interference measures. A software sequence of 3 FFMA and one
// MUFU is then bound by the SFU (xu at 100 %), not by its most frequent opcode. Without them it
// falls back to the largest smsp__inst_executed_pipe_<pipe>[.sum] count, with its share of all
// counts ("fmaheavy" and "fmalite" roll into "fma", tensor_op_* into "tensor").
struct CounterPipe {
  std::string pipe;
  double share = 0;                              // count mode: the top count's share of all
  std::map<std::string, double> counts;          // count mode: per folded pipe
  std::map<std::string, double> utilization;     // utilization mode: percent of peak per pipe
  std::vector<std::string> busiest;              // pipes within 10 % of the top (count mode: the top)
  bool by_utilization = false;
};
CounterPipe pipe_by_counters(const std::map<std::string, double>& ncu_metrics);
// The utilization metrics pipe_by_counters reads (for ProbeSpec::ncu_metrics).
const std::vector<std::string>& pipe_utilization_metrics();

// The same from a record's extra: extra.ncu = {"<kernel name>": {"<ncu metric>": value}}, as
// `gpudissect run --ncu` stores it, taking the first kernel whose name contains `kernel_part`.
// nullopt when the record has no such counters (the run was not under ncu).
std::optional<CounterPipe> pipe_from_ncu(const nlohmann::json& extra, const std::string& kernel_part);
// What a record says about the counters: {pipe, class, busiest, utilization or counts}, or the
// string "ncu counters absent".
nlohmann::json describe_ncu_pipe(const nlohmann::json& extra, const std::string& kernel_part);

// The pipe classes of the co-issue matrix and interference (in tie-break order), the class a
// counter pipe belongs to ("alu" -> "INT", "fma" -> "FP32", ...; "" outside the classes), and
// the counter pipes a class's reference executes on. Hopper's "shared pipe" (ncu's
// sm__pipe_shared_cycles_active) is the one FP64 and the tensor cores both use, so the FP64 and
// tensor classes both include it; each reference row checks its own counters against this
// table (the reference_check of pipes.interference, in its derived record).
const std::vector<std::string>& pipe_classes();
std::string class_of_counter_pipe(const std::string& pipe);
const std::vector<std::string>& counter_pipes_of_class(const std::string& cls);
// The class ncu's counters name: the first class in pipe_classes() whose pipes include one of
// the busiest; "" when none does.
std::string class_by_counters(const CounterPipe& c);
// Interference's class and the counters agree when one of the busiest pipes is a pipe of that
// class (an FMA-heavy row collides with IMAD while ncu finds fma, fmaheavy and fmalite all busy).
bool pipe_methods_agree(const std::string& interference_class, const CounterPipe& c);

// Mixed throughput over the best single stream: (x_work + y_work) / mixed_time divided by
// max(x_work / x_time, y_work / y_time), with work in issue slots and both run on the same
// warps split in half. 2 is perfect co-issue, 1 no gain. Throws std::invalid_argument on
// non-positive input.
double coissue_gain(double x_rate_alone, double y_rate_alone, double x_rate_mixed, double y_rate_mixed);

}  // namespace gd
