// Runs another program and waits for it, its output going to a log file: the Nsight Compute
// profiling pass of `run --ncu` (the CLI's only child that is not a patched-cubin runner).
#pragma once
#include <string>
#include <vector>

namespace gd {

// Runs argv[0] (searched on PATH when it has no '/') with stdout and stderr appended to
// `log_path`; returns its exit status, or 128 + the signal that ended it. Throws Error when
// it cannot be started.
int run_program(const std::vector<std::string>& argv, const std::string& log_path);

// The last `max_lines` lines of a text file (for error messages quoting a tool's log).
std::string tail_of_file(const std::string& path, int max_lines);

// This executable's own path (/proc/self/exe), for re-running it as a child.
std::string self_exe_path();

}  // namespace gd
