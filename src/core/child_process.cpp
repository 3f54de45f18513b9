#include "core/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>

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

namespace {

// A child's pipes as the parent holds them, and what the watchdog loop read from them.
struct Watch {
  pid_t pid = 0;
  int rec = -1, out = -1;
  bool rec_open = true, out_open = true;
  std::string pending;  // a line the child has not finished
  ChildOutcome o;
  double deadline = 0;
  void kill() const { ::kill(-pid, SIGKILL), ::kill(pid, SIGKILL); }
};

enum class Pumped { Answered, Closed, TimedOut, Interrupted };

// Reads the child's lines and output until on_line returns true (Answered), both pipes close,
// no line came for line_timeout_s (the child is killed), or `interrupted` (killed too). An
// exception from on_line kills the child and propagates.
Pumped pump(Watch& w, const std::function<bool(const std::string&)>& on_line, double line_timeout_s,
            const std::function<bool()>& interrupted) {
  w.deadline = now_s() + line_timeout_s;
  char buf[8192];
  while (w.rec_open || w.out_open) {
    if (interrupted && interrupted()) {
      w.o.interrupted = true;
      w.kill();
      return Pumped::Interrupted;
    }
    const double left = w.deadline - now_s();
    if (left <= 0) {
      w.o.timed_out = true;
      w.kill();
      return Pumped::TimedOut;
    }
    pollfd p[2] = {{w.rec_open ? w.rec : -1, POLLIN, 0}, {w.out_open ? w.out : -1, POLLIN, 0}};
    const int n = ::poll(p, 2, int(std::min(left, 0.2) * 1000) + 1);
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    if (p[0].revents) {
      const ssize_t k = ::read(w.rec, buf, sizeof buf);
      if (k <= 0) {
        w.rec_open = false;
      } else {
        w.pending.append(buf, std::size_t(k));
        for (std::size_t eol; (eol = w.pending.find('\n')) != std::string::npos;) {
          const std::string line = w.pending.substr(0, eol);
          w.pending.erase(0, eol + 1);
          w.deadline = now_s() + line_timeout_s;  // a result: the child is alive
          bool answered = false;
          try {
            answered = on_line(line);
          } catch (...) {
            w.kill();  // the caller cannot take results any more (its output failed)
            throw;
          }
          if (answered) return Pumped::Answered;
        }
      }
    }
    if (p[1].revents) {
      const ssize_t k = ::read(w.out, buf, sizeof buf);
      if (k <= 0) {
        w.out_open = false;
      } else {
        w.o.output_tail.append(buf, std::size_t(k));
        if (w.o.output_tail.size() > kTailBytes) w.o.output_tail.erase(0, w.o.output_tail.size() - kTailBytes);
      }
    }
  }
  return Pumped::Closed;
}

// Closes the pipes and reaps the child: how it ended. One that closed its pipes and lingers is
// killed at the watchdog's deadline.
ChildOutcome reap(Watch& w) {
  for (int* fd : {&w.rec, &w.out})
    if (*fd >= 0) ::close(std::exchange(*fd, -1));
  ChildOutcome o = w.o;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(w.pid, &status, (o.timed_out || o.interrupted) ? 0 : WNOHANG);
    if (r == w.pid || (r < 0 && errno != EINTR)) break;
    if (r == 0 && now_s() > w.deadline) {
      o.timed_out = true;
      w.kill();
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

// A program that cannot be executed ends as a shell's would (127): a failed child, reported with
// the reason, not an exception that would end the parent's run.
ChildOutcome not_started(const Error& e) {
  ChildOutcome o;
  o.exited = true;
  o.status = 127;
  o.output_tail = std::string("cannot execute the child program: ") + e.what();
  return o;
}

// Writes all of `text`, or false when the reader is gone; the SIGPIPE that a write to a closed
// pipe raises is blocked and consumed here, so it cannot end this process.
bool write_quietly(int fd, const std::string& text) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  bool ok = true;
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    done += std::size_t(n);
  }
  if (!ok) {
    const timespec zero{0, 0};
    (void)sigtimedwait(&pipe_set, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

}  // namespace

ChildOutcome run_child(const std::vector<std::string>& argv_in, const std::function<void(const std::string&)>& on_line,
                       double line_timeout_s, const std::function<bool()>& interrupted) {
  if (argv_in.empty()) throw Error("run_child: no command");
  int rec[2], out[2];
  high_pipe(rec);
  high_pipe(out);
  Watch w;
  try {
    w.pid = start_child(argv_in, out[1], rec[1]);
  } catch (const Error& e) {
    for (int fd : {rec[0], rec[1], out[0], out[1]}) ::close(fd);
    return not_started(e);
  }
  for (int fd : {rec[1], out[1]}) ::close(fd);
  w.rec = rec[0];
  w.out = out[0];
  try {
    (void)pump(w, [&](const std::string& line) { return on_line(line), false; }, line_timeout_s, interrupted);
  } catch (...) {
    (void)reap(w);
    throw;
  }
  return reap(w);
}

struct ChildSession::Pipes {
  Watch w;
  int in = -1;  // the child's stdin
};

ChildSession::ChildSession(const std::vector<std::string>& argv) : pipes_(std::make_unique<Pipes>()) {
  if (argv.empty()) throw Error("ChildSession: no command");
  int rec[2], out[2], in[2];
  high_pipe(rec);
  high_pipe(out);
  high_pipe(in);
  try {
    pid_ = start_child(argv, out[1], rec[1], in[0]);
  } catch (const Error& e) {
    for (int fd : {rec[0], rec[1], out[0], out[1], in[0], in[1]}) ::close(fd);
    ended_ = not_started(e);
    return;
  }
  for (int fd : {rec[1], out[1], in[0]}) ::close(fd);
  pipes_->w.pid = pid_;
  pipes_->w.rec = rec[0];
  pipes_->w.out = out[0];
  pipes_->in = in[1];
}

ChildSession::~ChildSession() {
  if (ended_) return;
  ::close(std::exchange(pipes_->in, -1));  // end of requests: a serving child exits
  Watch& w = pipes_->w;
  const double give_up = now_s() + 2;
  int status = 0;
  while (::waitpid(w.pid, &status, WNOHANG) == 0) {
    if (now_s() > give_up) {
      w.kill();
      (void)::waitpid(w.pid, &status, 0);
      break;
    }
    ::usleep(2000);
  }
  for (int fd : {w.rec, w.out}) ::close(fd);
}

std::optional<ChildOutcome> ChildSession::request(const std::string& line,
                                                  const std::function<bool(const std::string&)>& on_line,
                                                  double line_timeout_s, const std::function<bool()>& interrupted) {
  if (ended_) return ended_;
  Watch& w = pipes_->w;
  // A child that is gone has closed its stdin: the write fails, and the pump reads its end.
  (void)write_quietly(pipes_->in, line + "\n");
  Pumped how = Pumped::Closed;
  try {
    how = pump(w, on_line, line_timeout_s, interrupted);
  } catch (...) {
    ::close(std::exchange(pipes_->in, -1));
    ended_ = reap(w);
    throw;
  }
  if (how == Pumped::Answered) return std::nullopt;
  ::close(std::exchange(pipes_->in, -1));
  ended_ = reap(w);
  return ended_;
}

}  // namespace gd
