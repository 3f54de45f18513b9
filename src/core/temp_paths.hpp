// Temporary files and folders that must not outlive an interrupted command. A Ctrl-C ends a
// command (other than `run`, which stops after the point in flight) without unwinding, so no
// destructor removes what it made under /tmp: each such path is registered while it exists, and
// the handler install_temp_cleanup() sets removes every registered path, then ends the process
// with the signal as before.
#pragma once
#include <string>

namespace gd {

// Registers `path` (a file, or an empty-at-exit folder: register the files in it too) for
// removal on SIGINT, SIGTERM or SIGHUP. Thread-safe; at most a few hundred at once (more are
// simply not tracked). Returns a slot to release with unregister_temp_path, or -1.
int register_temp_path(const std::string& path);
void unregister_temp_path(int slot);

// Installs the handler for SIGINT, SIGTERM and SIGHUP (main calls it once). A handler a command
// installs itself (run's InterruptGuard) takes precedence while it is installed.
void install_temp_cleanup();

// The removal the handler does, callable directly (tests): files first, then folders.
void remove_registered_temp_paths();

// A registration that lasts as long as the object.
class TempPathGuard {
 public:
  explicit TempPathGuard(const std::string& path) : slot_(register_temp_path(path)) {}
  ~TempPathGuard() { unregister_temp_path(slot_); }
  TempPathGuard(const TempPathGuard&) = delete;
  TempPathGuard& operator=(const TempPathGuard&) = delete;

 private:
  int slot_;
};

}  // namespace gd
