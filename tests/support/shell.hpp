// Shell commands for the tests: they drive the built binary as a user's shell would (pipes,
// redirections, environment prefixes). The tool itself starts programs through core/spawn
// (argv, no shell); a shell belongs here only.
#pragma once
#include <array>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <sys/wait.h>

namespace gd {

struct CommandResult {
  int status = -1;      // exit status; -1 when the shell ended by a signal
  std::string output;   // stdout (the command redirects stderr where it wants it)
};

inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run: " + command);
  std::array<char, 65536> buf;
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) r.output.append(buf.data(), n);
  const int status = ::pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// 'text' for a POSIX shell, whatever it holds.
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

#ifdef GPUDISSECT_BINARY
// The built binary with `args` (shell words), its stderr merged into the output.
inline CommandResult gpudissect(const std::string& args) {
  return run_command(std::string(GPUDISSECT_BINARY) + " " + args + " 2>&1");
}
#endif

}  // namespace gd
