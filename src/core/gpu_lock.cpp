#include "core/gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "core/run_file.hpp"

namespace gd {

namespace {

// A UUID as a file name: letters, digits and '-' only.
std::string file_safe(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return out;
}

std::string read_all(int fd) {
  std::string text;
  char buf[256];
  ssize_t n;
  (void)::lseek(fd, 0, SEEK_SET);
  while ((n = ::pread(fd, buf, sizeof buf, off_t(text.size()))) > 0) text.append(buf, std::size_t(n));
  return text;
}

}  // namespace

std::string gpu_lock_dir() {
  for (const char* var : {"GPUDISSECT_LOCK_DIR", "XDG_RUNTIME_DIR"})
    if (const char* v = std::getenv(var); v && *v) return v;
  return "/tmp";
}

GpuLock::GpuLock(const std::string& uuid, const std::string& what, const std::string& dir)
    : path_(dir + "/gpudissect-" + file_safe(uuid) + ".lock") {
  // Not inherited by the run's child processes: the lock is the run's, and dies with it.
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  // Another user's lock file in a shared /tmp can still be locked through a read-only descriptor.
  if (fd_ < 0 && errno == EACCES) fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw UserError("cannot open the GPU lock file " + path_ + ": " + std::strerror(errno) +
                               " (set GPUDISSECT_LOCK_DIR to a writable folder)");
  (void)::fchmod(fd_, 0666);  // any user's run on this GPU must be able to take it after us
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string holder = read_all(fd_);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    ::close(fd_);
    fd_ = -1;
    if (err != EWOULDBLOCK) throw UserError("cannot lock " + path_ + ": " + std::strerror(err));
    throw GpuBusy(what + " is being measured by another gpudissect run (" +
                  (holder.empty() ? std::string("its pid not yet written") : holder) + "; lock " + path_ +
                  "): one run per GPU at a time. Wait for it to finish, or choose another GPU with --device.");
  }
  const std::string me = "pid " + std::to_string(::getpid()) + ", started " + utc_now_iso8601() + "\n";
  if (::ftruncate(fd_, 0) == 0) (void)::pwrite(fd_, me.data(), me.size(), 0);
}

GpuLock::~GpuLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock; the file stays for the next run to lock
}

}  // namespace gd
