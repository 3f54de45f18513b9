#include "core/spawn.hpp"

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <filesystem>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.hpp"

extern char** environ;

namespace gd {

int run_program(const std::vector<std::string>& argv, const std::string& log_path) {
  if (argv.empty()) throw Error("run_program: no program given");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw Error("cannot start " + argv[0] + ": " + std::strerror(rc));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw Error("waiting for " + argv[0] + ": " + std::strerror(errno));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
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
