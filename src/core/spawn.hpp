// Finding and running other programs: Nsight Compute for `run --ncu`, Python for the HTML report,
// the disassemblers and nvcc. A tool is looked for only where the user or the toolkit put it,
// never relative to the current folder: results folders travel, and one unpacked from a colleague
// may hold a planted `nvdisasm`, `python3` or `nvcc` (issue 36).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace gd {

// The folders a tool is looked for in, in order: PATH's absolute entries (an empty or relative
// entry means the current folder, and is passed over), then $CUDA_HOME/bin, $CUDA_PATH/bin when
// absolute, then /usr/local/cuda/bin.
std::vector<std::string> tool_search_dirs();

// The first executable regular file `name` in tool_search_dirs(), as an absolute path.
std::optional<std::string> find_tool_on_path(const std::string& name);

// A tool named by a setting (GPUDISSECT_NVDISASM=..., --ncu-exe ...): it must be an absolute path,
// since a relative one would resolve against whatever folder the command runs in. Throws UserError
// naming the setting otherwise; returns the path.
std::string require_absolute_tool(const std::string& path, const std::string& setting);

// Runs argv with stdout and stderr appended to `log_path`; returns its exit status, or 128 + the
// signal that ended it. argv[0] is an absolute path, or a bare name found by find_tool_on_path.
// Throws Error when it cannot be started.
int run_program(const std::vector<std::string>& argv, const std::string& log_path);
// run_program in two steps, for children that run side by side (one per GPU): start_program
// returns the pid at once (the log truncated first when `truncate`), wait_program its status.
int start_program(const std::vector<std::string>& argv, const std::string& log_path, bool truncate = false);
int wait_program(int pid, const std::string& name);

// Runs argv (as run_program finds it) and returns its exit status (or 128 + the signal) and what it
// printed: stdout, and stderr too unless `with_stderr` is false (then it is discarded). No shell
// is involved: arguments are passed as they are. Descriptors the caller opened without CLOEXEC
// are inherited (a disassembler reads its input as /dev/fd/N). Throws Error when it cannot start.
struct Captured {
  int status = -1;
  std::string output;
};
Captured run_capture(const std::vector<std::string>& argv, bool with_stderr = true);

// Starts a child that runs beside the caller (core/child_process's watchdog reads it): stdin from
// `in_fd` (-1: /dev/null), stdout and stderr to `out_fd`, descriptor 3 to `record_fd`, in a
// process group of its own (so a kill reaches whatever it starts), SIGINT and SIGTERM at their
// defaults. Returns its pid; throws Error when it cannot start. The caller waits for it.
int start_child(const std::vector<std::string>& argv, int out_fd, int record_fd, int in_fd = -1);

// The last `max_lines` lines of a text file (for error messages quoting a tool's log).
std::string tail_of_file(const std::string& path, int max_lines);

// This executable's own path (/proc/self/exe), for re-running it as a child.
std::string self_exe_path();

}  // namespace gd
