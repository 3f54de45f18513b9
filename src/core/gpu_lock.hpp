// One run per GPU at a time. A second `gpudissect run` on a card already being measured would
// measure beside the first and corrupt both; it refuses instead, naming the first one's pid.
// The lock is an flock(2) on a file named after the GPU's UUID: the kernel releases it when the
// holder exits, however it exits (SIGKILL included), so a stale file never blocks a later run.
#pragma once
#include <optional>
#include <string>

#include "core/error.hpp"

namespace gd {

// The GPU is in use: another process has a context on it (core/tenancy.hpp), or another gpudissect
// run holds its lock: exit code 75 (EX_TEMPFAIL of sysexits.h: try again later).
class GpuBusy : public Error {
 public:
  using Error::Error;
};

// The UUID ("GPU-…") of CUDA device `index`, read from its properties without creating a context,
// so that a run takes its GPU's lock before it becomes a process on the card; nullopt when the
// device cannot be read (no driver, no such device: query_device then says why). In device.cpp.
std::optional<std::string> device_uuid(int index);

// Where lock files live: $GPUDISSECT_LOCK_DIR, else $XDG_RUNTIME_DIR, else /tmp.
std::string gpu_lock_dir();

class GpuLock {
 public:
  // Takes the lock for this GPU, or throws GpuBusy (exit 75) naming the pid and start time the
  // holder wrote. `what` describes the GPU in that message. Throws UserError when the lock file
  // cannot be opened (an unwritable lock folder).
  GpuLock(const std::string& uuid, const std::string& what, const std::string& dir = gpu_lock_dir());
  ~GpuLock();
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace gd
