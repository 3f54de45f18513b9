// Where a command's output goes, checked before the work starts and written so that nothing at
// the path is destroyed or left half-written. Every command that writes a file goes through here.
//
//   "-"                        standard output
//   a FIFO, a character device written directly (opened, never replaced or created)
//   or a name under /dev, /proc
//   a symlink                  its final target, written as below (the link stays a link)
//   anything else              a regular file: written to a temporary file in the same folder,
//                              then renamed over the target (a reader sees old or new, never half)
#pragma once
#include <string>

namespace gd {

class OutputPath {
 public:
  enum class Kind { Stdout, Direct, Atomic };

  // Resolves `given` and checks that it can be written, creating nothing that stays. Throws
  // UserError (exit 2) when it cannot: a directory, a missing or unwritable folder, a device
  // without write permission.
  static OutputPath resolve(const std::string& given);

  Kind kind() const { return kind_; }
  const std::string& given() const { return given_; }
  const std::string& target() const { return target_; }  // the file written (a link's target)

  // Writes all of `content`. Throws OutputError (exit 74) when the data cannot be written (disk
  // full, I/O error, a reader that went away), UserError when the path stopped being writable.
  void write(const std::string& content) const;

 private:
  Kind kind_ = Kind::Stdout;
  std::string given_, target_;
};

// resolve + write, for callers that have nothing to do between the two.
void write_output(const std::string& given, const std::string& content);

// For commands that fill a folder (run, isa): throws UserError unless `dir` is a writable folder
// or could be created (its nearest existing ancestor is a writable folder). Creates nothing, so
// a command that fails later (no GPU) leaves no empty folder behind.
void check_output_dir(const std::string& dir);
// Throws UserError unless the file system that holds `dir` (or would: its nearest existing
// ancestor) has `bytes` free for an unprivileged writer, naming what needs them. A run checks this
// before measuring, so a disk that cannot take its output refuses in a second, not after minutes.
void check_free_space(const std::string& dir, unsigned long long bytes, const std::string& what);
// Creates `dir` and its parents; throws UserError naming it.
void create_output_dir(const std::string& dir);

// A regular file written whole or not at all: temporary file in the target's folder, fsync,
// rename. The file keeps the mode of the one it replaces. Throws UserError when the file cannot
// be created or renamed (bad path) and OutputError when its data cannot be written.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace gd
