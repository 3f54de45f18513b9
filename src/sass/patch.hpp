// Cubin patching for control-bit experiments: edit the control fields (or whole words) of chosen
// instructions in place, load the result through the driver API and launch it in a child process,
// so a patched kernel that corrupts memory or traps cannot take the measuring process down.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/json.hpp"

#include "sass/control.hpp"
#include "sass/elf.hpp"

namespace gd::sass {

struct InstructionEdit {
  std::string kernel;                 // mangled or demangled name
  std::size_t index = 0;              // instruction index (byte offset / 16)
  std::optional<Instruction128> word; // replaces the whole instruction first, when set
  std::optional<ControlWord> control; // then replaces its control fields, when set
};

struct PatchOptions {
  // Blackwell cubins carry a second copy of the code the driver may finalize from instead of
  // .text; clearing the .nv.compat opt-in keeps it on the edited .text.
  bool disable_opportunistic_finalization = true;
};

// A copy of `cubin` with the edits applied. Sizes and offsets never change, so relocations and
// .nv.info stay valid. Throws gd::Error for an unknown kernel or an index past its end.
Cubin apply_patch(const Cubin& cubin, const std::vector<InstructionEdit>& edits, const PatchOptions& opts = {});

// The longest run of consecutive identical instruction words (ignoring control bits) in a kernel:
// how an unrolled dependent chain looks in SASS, found without a disassembler.
struct InstructionRun {
  std::size_t first = 0, count = 0;
};
InstructionRun longest_identical_run(const Cubin& cubin, const Kernel& kernel);
// Every maximal run of identical words at least min_count long, in program order.
std::vector<InstructionRun> identical_runs(const Cubin& cubin, const Kernel& kernel, std::size_t min_count);

// ---------------------------------------------------------------------------- launching

// One kernel launch from a cubin: arguments are raw little-endian bytes; a buffer argument is
// copied to device memory before the launch and read back after it.
struct LaunchArg {
  bool buffer = false;
  std::vector<std::uint8_t> bytes;
  static LaunchArg value(const void* p, std::size_t n);
  static LaunchArg device_buffer(const void* p, std::size_t n);
  template <class T>
  static LaunchArg of(const T& v) { return value(&v, sizeof v); }
};

struct LaunchJob {
  std::string kernel;  // mangled name
  int device = 0;
  unsigned grid = 1, block = 32;
  std::vector<LaunchArg> args;
};

struct LaunchOutcome {
  enum class Kind { Completed, CudaError, Crashed, TimedOut, NotRun };
  Kind kind = Kind::NotRun;
  std::string message;                              // the error, signal or reason
  std::vector<std::vector<std::uint8_t>> buffers;   // buffer arguments after the kernel, in order
  bool completed() const { return kind == Kind::Completed; }
};
std::string to_string(LaunchOutcome::Kind k);

nlohmann::json to_json(const LaunchJob& job);
LaunchJob launch_job_from_json(const nlohmann::json& j);  // throws gd::UserError
nlohmann::json to_json(const LaunchOutcome& o);
LaunchOutcome launch_outcome_from_json(const nlohmann::json& j);

// In this process: loads the cubin with cuModuleLoadData (the driver API reached through
// cudaGetDriverEntryPointByVersion, libcuda is not linked) and launches. Throws gd::CudaError.
LaunchOutcome launch_here(const std::vector<std::uint8_t>& cubin, const LaunchJob& job);

// One patched launch of a batch: the cubin is borrowed, it must outlive the call.
struct PatchedLaunch {
  PatchedLaunch(const Cubin* c, LaunchJob j, std::string g = {}) : cubin(c), job(std::move(j)), group(std::move(g)) {}
  const Cubin* cubin = nullptr;
  LaunchJob job;
  std::string group;  // the sweep it belongs to, for launch_batch_in_child's stop_after; empty: none
};

// Runs the launches in order in a child process (`executable __patch-child --serve`, our own
// binary by default) under a watchdog: a child that prints no outcome for `timeout_s` seconds is
// killed and that launch is TimedOut; a child that dies makes it Crashed, with the signal. A child
// stops after the first launch that did not complete (a CUDA error poisons its context), and the
// rest of the batch goes on in a fresh child, so one bad patch never costs the other launches. A
// child whose batch all completed serves the next batch (the next probe's) if it comes within a
// second (kPatchChildReuse_s), so consecutive patch probes pay for one process and CUDA context;
// an idle child ends by itself after twice that.
// With `stop_after` > 0, once that many consecutive launches of one group failed the same way
// (kind and message), the group's following launches are not run: NotRun, naming the failure. A
// sweep whose every point faults costs a fresh child per point (about a second after a memory
// fault on an H200); quick runs stop it early. Returns one outcome per launch, in order.
std::vector<LaunchOutcome> launch_batch_in_child(const std::vector<PatchedLaunch>& launches, double timeout_s = 20,
                                                 const std::string& executable = {}, int stop_after = 0);
// A batch of one.
LaunchOutcome launch_in_child(const Cubin& cubin, const LaunchJob& job, double timeout_s = 20,
                              const std::string& executable = {});
// The child's side: reads the batch file (a JSON array of {"cubin": path, "job": {...}}), launches
// each in turn and writes each outcome as one JSON line to `out_fd` as soon as it is known;
// returns after the first launch that did not complete. Returns the process exit code.
int patch_child_main(const std::string& batch_path, int out_fd);
// Serving: one batch path per line on `in_fd`, each batch run as patch_child_main runs it and,
// when every launch completed, closed by the line {"end":true}; returns after a launch that did
// not complete, at the end of `in_fd`, or after `idle_exit_s` without a request.
inline constexpr double kPatchChildReuse_s = 1.0;
int patch_child_serve(int in_fd, int out_fd, double idle_exit_s = 2 * kPatchChildReuse_s);

}  // namespace gd::sass
