// A child process under a watchdog, for work that may hang or kill its process (a patched
// kernel, a GPU fault, an abort in a driver): the parent reads the child's results line by line
// from a pipe on fd 3 as they come and survives whatever the child does.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace gd {

struct ChildOutcome {
  bool exited = false;       // ended by itself (exit status in `status`)
  int status = 0;            // exit status, or the signal that ended it
  bool signaled = false;     // ended by a signal it did not ask for
  bool timed_out = false;    // the watchdog killed it: no line within the time allowed
  bool interrupted = false;  // the parent was asked to stop (SIGINT) and killed it
  std::string output_tail;   // the end of what it printed on stdout and stderr
  // One sentence: how it ended ("killed by signal SIGSEGV (Segmentation fault)"), with its last
  // output when it printed something.
  std::string describe(double timeout_s) const;
};

// Runs argv (started by core/spawn's start_child: its own process group, so the watchdog also
// ends whatever it started).
// Each complete line the child writes to fd 3 is passed to on_line as it arrives. The watchdog
// kills the child when no line came for `line_timeout_s` seconds; `interrupted` is polled a few
// times a second and kills it when it returns true. A program that cannot be executed is a child
// that exited 127 with the reason as its output; Error is thrown only when no pipe can be made.
ChildOutcome run_child(const std::vector<std::string>& argv, const std::function<void(const std::string&)>& on_line,
                       double line_timeout_s, const std::function<bool()>& interrupted = {});

}  // namespace gd
