#include "core/temp_paths.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace gd {
namespace {

// Fixed storage, so the signal handler reads it without allocating or locking: a slot is taken
// (Free -> Writing), filled, then published (Ready); the handler only reads Ready slots.
constexpr int kSlots = 512;
constexpr std::size_t kPathMax = 4096;
enum State : int { Free = 0, Writing = 1, Ready = 2 };
std::atomic<int> g_state[kSlots];
char g_path[kSlots][kPathMax];

extern "C" void on_terminating_signal(int sig) {
  remove_registered_temp_paths();
  ::signal(sig, SIG_DFL);  // then end as the signal would have ended us (exit status 128 + sig)
  ::raise(sig);
}

}  // namespace

int register_temp_path(const std::string& path) {
  if (path.empty() || path.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = Free;
    if (!g_state[i].compare_exchange_strong(expected, Writing)) continue;
    std::memcpy(g_path[i], path.c_str(), path.size() + 1);
    g_state[i].store(Ready);
    return i;
  }
  return -1;
}

void unregister_temp_path(int slot) {
  if (slot >= 0 && slot < kSlots) g_state[slot].store(Free);
}

// Async-signal-safe: unlink and rmdir only. Files go first, so the folders they were in are empty.
void remove_registered_temp_paths() {
  for (int i = 0; i < kSlots; ++i)
    if (g_state[i].load() == Ready) ::unlink(g_path[i]);
  for (int i = 0; i < kSlots; ++i)
    if (g_state[i].load() == Ready) ::rmdir(g_path[i]);
}

void install_temp_cleanup() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;  // started with the signal ignored (nohup): keep it so
    struct sigaction sa {};
    sa.sa_handler = on_terminating_signal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace gd
