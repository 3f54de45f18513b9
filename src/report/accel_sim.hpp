// A run as an Accel-Sim configuration: gpgpusim.config and trace.config lines derived from the
// run's records, each naming the record it came from (or that it is the driver's property, or not
// measured and why), and the per-opcode latency and issue interval table behind trace.config's
// classes. `gpudissect export --format accel-sim` writes them; `--diff` sets them beside another
// configuration (Accel-Sim's tested SM90_H100, data/accel-sim/).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/run_file.hpp"

namespace gd {

struct ConfigLine {
  std::string option;  // "-gpgpu_l1_latency"
  std::string value;   // "32"
  std::string source;  // "memory.latency.chase (analysis) level=L1 variant=ca: latency/cycles 32", or why not measured
  bool measured = false;  // from a record of this run (not a driver property, not a convention)
};

// One SASS opcode's dependent-issue latency and issue interval, from a latency.alu.* record and
// its compute.alu.* twin.
struct OpcodeTiming {
  std::string probe;   // "ffma": latency.alu.ffma and compute.alu.ffma
  std::string opcode;  // the SASS the latency kernels were verified to run: "FFMA", "MUFU.EX2"
  double latency_cycles = 0;
  double interval_cycles = 0;  // cycles between one sub-partition's warp instructions; 0 when unknown
  double per_clk_per_sm = 0;   // lanes per clock per SM; 0 when unknown
  // The pipe the interference study (pipes.interference.<probe>'s analysis) found it issues to:
  // "FP32", "SFU", ...; empty when the run has none or the study could not tell.
  std::string pipe;
};

struct AccelSimExport {
  std::vector<ConfigLine> gpgpusim;  // gpgpusim.config
  std::vector<ConfigLine> trace;     // trace.config
  std::vector<OpcodeTiming> opcodes;
};

AccelSimExport accel_sim_export(const RunDocument& run);
// Every latency.alu.* record with a verified opcode, beside its compute.alu.* twin's interval.
std::vector<OpcodeTiming> opcode_timings(const RunDocument& run);
// The SM clock the timed kernels saw: the median in-kernel clock (clock64 over %globaltimer) of the
// run's ALU latency records; 0 when none has one. `how` says so.
double kernel_sm_clock_mhz(const RunDocument& run, std::string* how = nullptr);
// A configuration file's text: each option on its own line, a comment giving its source above it.
std::string render_config(const std::vector<ConfigLine>& lines, const RunDocument& run, const std::string& title);
std::string render_opcode_table(const AccelSimExport& e);  // CSV

// "-option value" lines of a gpgpu-sim configuration (comments, blank lines and trailing comments
// left out); a later line of the same option wins, as in the simulator's parser.
std::map<std::string, std::string> parse_config(const std::string& text);
// Markdown: every option we emit beside the other configuration's value, with our/their ratio where
// both are numbers (per element for comma lists) and where ours came from.
std::string diff_config(const AccelSimExport& e, const std::map<std::string, std::string>& theirs, const std::string& theirs_name);

}  // namespace gd
