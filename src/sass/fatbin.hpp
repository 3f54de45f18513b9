// The cubins nvcc embeds in a host executable: the .nv_fatbin section holds one container per
// translation unit, each a list of entries (a cubin for an SM, or PTX for a virtual arch).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sass/elf.hpp"

namespace gd::sass {

inline constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;

struct FatbinEntry {
  enum class Kind { Ptx, Cubin, Other };
  Kind kind = Kind::Other;
  int sm = 0;                 // as the container declares it (no 'a': that is in the cubin)
  std::uint64_t flags = 0;
  bool compressed = false;
  std::uint64_t container_offset = 0;  // where its container starts in the section
  std::vector<std::uint8_t> payload;   // as stored (compressed bytes when compressed)
};

// All entries of every container in a .nv_fatbin section image. Throws gd::Error on a
// container or entry that runs past the end.
std::vector<FatbinEntry> parse_fatbin(Bytes section);
// The entries embedded in an ELF executable or shared object; empty when it has no .nv_fatbin.
std::vector<FatbinEntry> fatbin_entries_of(const std::string& executable_path);

// The cubins of an executable, parsed, in container order.
struct EmbeddedCubins {
  std::vector<Cubin> cubins;
  std::vector<std::string> problems;  // entries that could not be read, and why
  std::vector<Arch> archs() const;    // distinct, sorted
};
EmbeddedCubins embedded_cubins(const std::string& executable_path);

// Kernels that some cubin of a translation unit carries and another cubin of the same unit
// lacks: the CUDA runtime registers a unit's kernels from one device pass, so a kernel compiled
// for one arch only is either unregistered (launches fail with "invalid resource handle", on
// the GPU only) or missing on the other arch. Our rule: every kernel in every device pass (stub
// bodies where an arch lacks the instructions). One sentence per kernel and unit; compressed or
// unreadable cubins are skipped (embedded_cubins reports them).
std::vector<std::string> kernels_missing_from_a_pass(const std::vector<FatbinEntry>& entries);
// Those of the running gpudissect binary (/proc/self/exe), read once per process: each patch
// experiment looks its kernel up here, and reading and parsing 170 MB each time cost a second.
const EmbeddedCubins& own_cubins();
std::string own_executable_path();

}  // namespace gd::sass
