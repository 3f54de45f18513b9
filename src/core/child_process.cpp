#include "core/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "core/error.hpp"
#include "core/spawn.hpp"

namespace gd {

namespace {

constexpr std::size_t kTailBytes = 600;

// Pipe ends above the standard descriptors and fd 3, so the child's dup2s cannot clobber them.
void high_pipe(int fds[2]) {
  int raw[2];
  if (::pipe2(raw, O_CLOEXEC) != 0) throw Error(std::string("cannot create a pipe for a child process: ") + std::strerror(errno));
  for (int i = 0; i < 2; ++i) {
    fds[i] = ::fcntl(raw[i], F_DUPFD_CLOEXEC, 10);
    ::close(raw[i]);
    if (fds[i] < 0) throw Error(std::string("cannot duplicate a pipe: ") + std::strerror(errno));
  }
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  std::string s = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
  if (const char* d = strsignal(sig)) s += std::string(" (") + d + ")";
  return s;
}

}  // namespace

std::string ChildOutcome::describe(double timeout_s) const {
  std::string s;
  if (interrupted) s = "the run was interrupted; the child was stopped";
  else if (timed_out) s = "hung: no result within " + std::to_string(int(timeout_s + 0.5)) + " s; the watchdog killed the child process";
  else if (signaled) s = "the child process was killed by " + signal_name(status);
  else if (exited) s = "the child process exited with status " + std::to_string(status);
  else s = "the child process ended abnormally";
  std::string tail = output_tail;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  if (!tail.empty()) s += "; its last output: " + tail;
  return s;
}

ChildOutcome run_child(const std::vector<std::string>& argv_in, const std::function<void(const std::string&)>& on_line,
                       double line_timeout_s, const std::function<bool()>& interrupted) {
  if (argv_in.empty()) throw Error("run_child: no command");
  int rec[2], out[2];
  high_pipe(rec);
  high_pipe(out);
  pid_t pid = 0;
  try {
    pid = start_child(argv_in, out[1], rec[1]);
  } catch (const Error& e) {
    // A program that cannot be executed ends as a shell's would (127): a failed child, reported
    // with the reason, not an exception that would end the parent's run.
    for (int fd : {rec[0], rec[1], out[0], out[1]}) ::close(fd);
    ChildOutcome o;
    o.exited = true;
    o.status = 127;
    o.output_tail = std::string("cannot execute the child program: ") + e.what();
    return o;
  }
  for (int fd : {rec[1], out[1]}) ::close(fd);

  ChildOutcome o;
  std::string pending;  // a line the child has not finished
  bool rec_open = true, out_open = true;
  double deadline = now_s() + line_timeout_s;
  const auto kill_child = [&] { ::kill(-pid, SIGKILL), ::kill(pid, SIGKILL); };
  char buf[8192];
  while (rec_open || out_open) {
    if (interrupted && interrupted()) {
      o.interrupted = true;
      kill_child();
      break;
    }
    const double left = deadline - now_s();
    if (left <= 0) {
      o.timed_out = true;
      kill_child();
      break;
    }
    pollfd p[2] = {{rec_open ? rec[0] : -1, POLLIN, 0}, {out_open ? out[0] : -1, POLLIN, 0}};
    const int n = ::poll(p, 2, int(std::min(left, 0.2) * 1000) + 1);
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    if (p[0].revents) {
      const ssize_t k = ::read(rec[0], buf, sizeof buf);
      if (k <= 0) {
        rec_open = false;
      } else {
        pending.append(buf, std::size_t(k));
        for (std::size_t eol; (eol = pending.find('\n')) != std::string::npos;) {
          const std::string line = pending.substr(0, eol);
          pending.erase(0, eol + 1);
          deadline = now_s() + line_timeout_s;  // a result: the child is alive
          try {
            on_line(line);
          } catch (...) {
            // The caller cannot take results any more (its output failed): end the child cleanly.
            kill_child();
            ::close(rec[0]);
            ::close(out[0]);
            int ignored = 0;
            ::waitpid(pid, &ignored, 0);
            throw;
          }
        }
      }
    }
    if (p[1].revents) {
      const ssize_t k = ::read(out[0], buf, sizeof buf);
      if (k <= 0) {
        out_open = false;
      } else {
        o.output_tail.append(buf, std::size_t(k));
        if (o.output_tail.size() > kTailBytes) o.output_tail.erase(0, o.output_tail.size() - kTailBytes);
      }
    }
  }
  ::close(rec[0]);
  ::close(out[0]);
  // Both pipes closed: the child is ending. One that closed them and lingers is killed at the deadline.
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, (o.timed_out || o.interrupted) ? 0 : WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) break;
    if (r == 0 && now_s() > deadline) {
      o.timed_out = true;
      kill_child();
      continue;
    }
    if (r == 0) ::usleep(2000);
  }
  if (WIFEXITED(status)) {
    o.exited = true;
    o.status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    o.signaled = !(o.timed_out || o.interrupted);
    o.status = WTERMSIG(status);
  }
  return o;
}

}  // namespace gd
