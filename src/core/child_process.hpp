// A child process under a watchdog, for work that may hang or kill its process (a patched
// kernel, a GPU fault, an abort in a driver): the parent reads the child's results line by line
// from a pipe on fd 3 as they come and survives whatever the child does.
#pragma once
#include <functional>
#include <memory>
#include <optional>
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

// A child that serves requests, one line each on its stdin, answered by lines on fd 3, and stays
// alive between them: its start (a process and, for a patched launch, a CUDA context: about
// 0.2 s on the H200 machine) is paid once for many requests. Under the same watchdog as run_child.
// The child ends when its stdin closes (the session is destroyed, or this process dies).
class ChildSession {
 public:
  explicit ChildSession(const std::vector<std::string>& argv);
  ~ChildSession();  // closes the child's stdin, waits a moment for it to end, then kills it
  ChildSession(const ChildSession&) = delete;
  ChildSession& operator=(const ChildSession&) = delete;

  // Sends `line` and passes each answer line to on_line until on_line returns true (the request's
  // last answer). nullopt: answered, and the child serves on. Otherwise the child is gone (it
  // ended, hung past line_timeout_s, or the run was interrupted) and this says how; a session
  // whose child is gone answers every later request with the same outcome.
  std::optional<ChildOutcome> request(const std::string& line, const std::function<bool(const std::string&)>& on_line,
                                      double line_timeout_s, const std::function<bool()>& interrupted = {});
  bool serving() const { return !ended_; }
  int pid() const { return pid_; }

 private:
  struct Pipes;
  std::unique_ptr<Pipes> pipes_;
  int pid_ = 0;
  std::optional<ChildOutcome> ended_;
};

}  // namespace gd
