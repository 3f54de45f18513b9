#include "core/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "core/error.hpp"

namespace gd {

namespace fs = std::filesystem;

namespace {

std::string temp_path_for(const fs::path& target) {
  static std::atomic<unsigned> counter{0};
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string chains.
  std::string name = ".";
  name += target.filename().string();
  name += '.';
  name += std::to_string(::getpid());
  name += '.';
  name += std::to_string(counter++);
  name += ".tmp";
  return (dir / name).string();
}

// Writes everything; returns 0, or the errno of the write that failed.
int write_all(int fd, const std::string& content) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return 0;
}

// Names the kernel provides (/dev/stdout, /proc/self/fd/1) stand for files that someone else
// already holds open: replacing one by rename would cut it away from its holder.
bool kernel_provided(const std::string& path) {
  const std::string p = fs::absolute(path).lexically_normal().string();
  return p.rfind("/dev/", 0) == 0 || p.rfind("/proc/", 0) == 0;
}

// The final target of a chain of symlinks, also when it does not exist yet: writing through a
// dangling link creates its target, as the shell's `>` does.
fs::path follow_links(const std::string& given) {
  fs::path cur = given;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(cur.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
    const fs::path link = fs::read_symlink(cur);
    cur = link.is_absolute() ? link : cur.parent_path() / link;
  }
  throw UserError("cannot write " + given + ": too many levels of symbolic links");
}

// 0 when a file can be created in `dir`, else the errno. Tried rather than asked with access(),
// which says yes to root on /proc and on folders it could not in fact write.
int creatable_in(const fs::path& dir) {
  const std::string probe = temp_path_for(dir / ".gpudissect-write-test");
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return errno;
  ::close(fd);
  ::unlink(probe.c_str());
  return 0;
}

}  // namespace

OutputPath OutputPath::resolve(const std::string& given) {
  OutputPath out;
  out.given_ = out.target_ = given;
  if (given == "-") return out;
  if (given.empty()) throw UserError("the output path is empty (use - for standard output)");
  struct stat st {};
  if (::stat(given.c_str(), &st) == 0) {  // follows links
    if (S_ISDIR(st.st_mode)) throw UserError("cannot write " + given + ": it is a directory");
    if (!S_ISREG(st.st_mode) || kernel_provided(given)) {
      if (::access(given.c_str(), W_OK) != 0) throw UserError("cannot write " + given + ": " + std::strerror(errno));
      out.kind_ = Kind::Direct;
      return out;
    }
  }
  out.kind_ = Kind::Atomic;
  const fs::path target = follow_links(given);
  out.target_ = target.string();
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string where = target.string() == given ? given : given + " (a link to " + target.string() + ")";
  if (::stat(dir.c_str(), &st) != 0) throw UserError("cannot write " + where + ": folder " + dir.string() + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) throw UserError("cannot write " + where + ": " + dir.string() + " is not a directory");
  if (const int err = creatable_in(dir)) throw UserError("cannot write " + where + ": " + std::strerror(err));
  return out;
}

void OutputPath::write(const std::string& content) const {
  if (kind_ == Kind::Atomic) return write_file_atomic(target_, content);
  if (kind_ == Kind::Stdout) {
    // What the command already printed through std::cout goes first.
    if (!std::cout.flush()) throw OutputError("cannot write standard output");
    if (const int err = write_all(STDOUT_FILENO, content))
      throw OutputError(std::string("cannot write standard output: ") + std::strerror(err));
    return;
  }
  // Opened as found: never created, never truncated. O_APPEND matters only for a regular file
  // reached through /dev/stdout (`>>` must keep what the file held); FIFOs and devices ignore it.
  const int fd = ::open(target_.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw UserError("cannot write " + target_ + ": " + std::strerror(errno));
  int err = write_all(fd, content);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err) throw OutputError("cannot write " + target_ + ": " + std::strerror(err));
}

void write_output(const std::string& given, const std::string& content) { OutputPath::resolve(given).write(content); }

void check_output_dir(const std::string& dir) {
  if (dir.empty()) throw UserError("the output directory is empty");
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw UserError("output directory '" + dir + "' is not a directory");
    if (const int err = creatable_in(dir))
      throw UserError("output directory '" + dir + "' is not writable: " + std::strerror(err));
    return;
  }
  fs::path ancestor = fs::absolute(dir).lexically_normal().parent_path();
  while (::stat(ancestor.c_str(), &st) != 0 && ancestor.has_relative_path()) ancestor = ancestor.parent_path();
  const std::string head = "cannot create output directory '" + dir + "': ";
  if (!S_ISDIR(st.st_mode)) throw UserError(head + ancestor.string() + " is not a directory");
  if (const int err = creatable_in(ancestor))
    throw UserError(head + "cannot create anything in " + ancestor.string() + " (" + std::strerror(err) + ")");
}

void check_free_space(const std::string& dir, unsigned long long bytes, const std::string& what) {
  fs::path at = fs::absolute(dir).lexically_normal();
  struct stat st {};
  while (::stat(at.c_str(), &st) != 0 && at.has_relative_path()) at = at.parent_path();
  struct statvfs vfs {};
  if (::statvfs(at.c_str(), &vfs) != 0) return;  // cannot tell: the writes themselves will say
  const unsigned long long free_bytes = static_cast<unsigned long long>(vfs.f_bavail) * vfs.f_frsize;
  if (free_bytes >= bytes) return;
  const auto mb = [](unsigned long long b) { return std::to_string((b + 999999) / 1000000) + " MB"; };
  throw UserError(what + " needs about " + mb(bytes) + " in '" + dir + "', and its file system has " + mb(free_bytes) +
                  " free: free some space or choose another --out");
}

void create_output_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UserError("cannot create output directory '" + dir + "': " + ec.message());
}

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::string tmp = temp_path_for(fs::path(path));
  struct stat old {};
  const bool replacing = ::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode);
  // O_EXCL rather than mkstemp: mkstemp's 0600 would make results unreadable to others.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) throw UserError("cannot write " + path + ": " + std::strerror(errno));
  int err = write_all(fd, content);
  // A private file replaced by a world-readable one would leak what its owner protected.
  if (err == 0 && replacing && ::fchmod(fd, old.st_mode & 07777) != 0) err = errno;
  // fsync before rename: otherwise a crash can leave the renamed file empty on some filesystems.
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err) {
    ::unlink(tmp.c_str());
    throw OutputError("cannot write " + path + ": " + std::strerror(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw UserError("cannot write " + path + ": " + std::strerror(e));
  }
}

}  // namespace gd
