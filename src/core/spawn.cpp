#include "core/spawn.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <filesystem>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.hpp"

extern char** environ;

namespace gd {

std::vector<std::string> tool_search_dirs() {
  std::vector<std::string> dirs;
  const auto add_absolute = [&](const std::string& d) {
    if (!d.empty() && d.front() == '/') dirs.push_back(d);
  };
  if (const char* path = std::getenv("PATH")) {
    const std::string s = path;
    for (std::size_t b = 0, e; b <= s.size(); b = e + 1) {
      e = s.find(':', b);
      if (e == std::string::npos) e = s.size();
      add_absolute(s.substr(b, e - b));
    }
  }
  for (const char* home : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* h = std::getenv(home); h && *h) add_absolute(std::string(h) + "/bin");
  dirs.emplace_back("/usr/local/cuda/bin");
  return dirs;
}

std::optional<std::string> find_tool_on_path(const std::string& name) {
  for (const auto& d : tool_search_dirs()) {
    const std::filesystem::path p = std::filesystem::path(d) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return std::nullopt;
}

std::string require_absolute_tool(const std::string& path, const std::string& setting) {
  if (path.empty() || path.front() != '/')
    throw UserError(setting + " '" + path + "': give an absolute path (a relative one would be looked up in "
                    "whatever folder the command runs in)");
  return path;
}

namespace {

std::string resolved_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const auto found = find_tool_on_path(name);
  if (!found) throw Error("cannot start " + name + ": not found in PATH's absolute folders or the CUDA toolkit");
  return *found;
}

int wait_for(pid_t pid, const std::string& name) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw Error("waiting for " + name + ": " + std::strerror(errno));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// Starts argv[0] (as resolved_program finds it) with `actions` applied to its descriptors, and
// destroys `actions`. Returns the pid; 0 with the error in *error when it could not start.
pid_t start(const std::vector<std::string>& argv, posix_spawn_file_actions_t& actions, std::string* error,
            const posix_spawnattr_t* attr = nullptr) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  std::string program;
  try {
    program = resolved_program(argv[0]);
  } catch (...) {
    posix_spawn_file_actions_destroy(&actions);
    throw;
  }
  const int rc = ::posix_spawn(&pid, program.c_str(), &actions, attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc == 0) return pid;
  *error = "cannot start " + program + ": " + std::strerror(rc);
  return 0;
}

}  // namespace

int start_program(const std::vector<std::string>& argv, const std::string& log_path, bool truncate) {
  if (argv.empty()) throw Error("start_program: no program given");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | (truncate ? O_TRUNC : O_APPEND), 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::string error;
  const pid_t pid = start(argv, actions, &error);
  if (!pid) throw Error(error);
  return pid;
}

int wait_program(int pid, const std::string& name) { return wait_for(pid, name); }

int run_program(const std::vector<std::string>& argv, const std::string& log_path) {
  return wait_program(start_program(argv, log_path), argv.empty() ? std::string() : argv[0]);
}

Captured run_capture(const std::vector<std::string>& argv, bool with_stderr) {
  if (argv.empty()) throw Error("run_capture: no program given");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(std::string("cannot make a pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  if (with_stderr) posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  else posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::string error;
  pid_t pid = 0;
  try {
    pid = start(argv, actions, &error);
  } catch (...) {  // not found: nothing started
    ::close(fds[0]);
    ::close(fds[1]);
    throw;
  }
  ::close(fds[1]);
  if (!pid) {
    ::close(fds[0]);
    throw Error(error);
  }
  Captured out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n > 0) out.output.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR) break;
  }
  ::close(fds[0]);
  out.status = wait_for(pid, argv[0]);
  return out;
}

int start_child(const std::vector<std::string>& argv, int out_fd, int record_fd, int in_fd) {
  if (argv.empty()) throw Error("start_child: no program given");
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Group 0: the child leads a new group. Default SIGINT/SIGTERM: the parent's handlers (which
  // stop a run cleanly) are not the child's; an empty mask, whatever the parent blocked.
  sigset_t defaults, none;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigemptyset(&none);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (in_fd >= 0) posix_spawn_file_actions_adddup2(&actions, in_fd, 0);
  else posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 2);
  posix_spawn_file_actions_adddup2(&actions, record_fd, 3);
  std::string error;
  pid_t pid = 0;
  try {
    pid = start(argv, actions, &error, &attr);
  } catch (...) {
    posix_spawnattr_destroy(&attr);
    throw;
  }
  posix_spawnattr_destroy(&attr);
  if (!pid) throw Error(error);
  return pid;
}

std::string tail_of_file(const std::string& path, int max_lines) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  for (std::string l; std::getline(in, l);) {
    lines.push_back(l);
    if (int(lines.size()) > max_lines) lines.pop_front();
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::string self_exe_path() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find this program's own path (/proc/self/exe): " + ec.message());
  return p.string();
}

}  // namespace gd
