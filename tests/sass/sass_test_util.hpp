// Shared by the sass tests: compile small kernels with nvcc during the test run, so every check
// stands on what the real compiler emits for each target, not on hand-typed constants.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sass/disasm.hpp"
#include "sass/elf.hpp"
#include "support/shell.hpp"

namespace gd::sass::testing {

inline const std::vector<std::string>& target_archs() {
  static const std::vector<std::string> archs = {"sm_90a", "sm_100a", "sm_120a"};
  return archs;
}

// A folder of this test process's compiled kernels, removed when the process exits (ctest runs
// every test in a process of its own: left behind, they were hundreds of folders a run).
struct ScratchDir {
  std::string path;
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

inline std::string scratch_dir() {
  static const ScratchDir dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("gpudissect-sass-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return ScratchDir{d.string()};
  }();
  return dir.path;
}

inline std::string gencode(const std::string& arch) {
  const std::string n = arch.substr(3);
  return "-gencode arch=compute_" + n + ",code=sm_" + n;
}

// Compiles `source` (CUDA C++) to a cubin or an executable; cached per source and flags.
inline std::string nvcc_build(const std::string& source, const std::string& flags, const std::string& ext) {
  static std::map<std::string, std::string> cache;
  const std::string key = flags + "\n" + source;
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const std::string stem = scratch_dir() + "/k" + std::to_string(cache.size());
  std::ofstream(stem + ".cu") << source;
  const std::string out = stem + ext;
  const std::string cmd = std::string(GPUDISSECT_NVCC) + " " + flags + " -o " + out + " " + stem + ".cu 2>&1";
  const CommandResult r = run_command(cmd);
  if (r.status != 0) throw std::runtime_error("nvcc failed: " + cmd + "\n" + r.output);
  cache[key] = out;
  return out;
}

inline Cubin compile_cubin(const std::string& source, const std::string& arch) {
  return Cubin::from_file(nvcc_build(source, "-cubin -O3 " + gencode(arch), ".cubin"));
}

inline std::vector<std::uint8_t> compile_cubin_bytes(const std::string& source, const std::string& arch) {
  return read_file_bytes(nvcc_build(source, "-cubin -O3 " + gencode(arch), ".cubin"));
}

#define GD_REQUIRE_DISASSEMBLER()                                                        \
  do {                                                                                   \
    if (!::gd::sass::disassembler_tools().any())                                         \
      GTEST_SKIP() << ::gd::sass::disassembler_tools().missing_reason();                 \
  } while (0)

// Kernels used across the tests. A clock-bracketed dependent FFMA chain; a global load whose
// value is consumed; a "hollow" variant whose chain result is never stored (dead code).
inline const char* kChainSource = R"(
extern "C" __global__ void ffma_chain(float* io, long long* t, float a, float b) {
  float x = io[threadIdx.x];
  long long c0 = clock64();
#pragma unroll
  for (int i = 0; i < 32; ++i) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b));
  long long c1 = clock64();
  io[threadIdx.x] = x;
  t[0] = c1 - c0;
}
extern "C" __global__ void hollow_chain(float* io, long long* t, float a, float b) {
  float x = io[threadIdx.x];
  long long c0 = clock64();
#pragma unroll
  for (int i = 0; i < 32; ++i) x = fmaf(x, a, b);
  long long c1 = clock64();
  t[0] = c1 - c0;
}
extern "C" __global__ void no_clock(float* io, float a) { io[threadIdx.x] *= a; }
extern "C" __global__ void spills(float* io, int k) {
  float local[64];
#pragma unroll 1
  for (int i = 0; i < 64; ++i) local[i] = io[i * k];
  long long c0 = clock64();
  float s = local[(threadIdx.x * k) & 63] + local[(threadIdx.x + k) & 63];
  long long c1 = clock64();
  io[threadIdx.x] = s + float(c1 - c0);
}
template <typename T> __global__ void templated(T* p, int n) { p[threadIdx.x] += T(n); }
template __global__ void templated<int>(int*, int);
)";

// Two timed regions of FFMA, the second opened after a region marker (ptx::region_marker's
// pmevent), as the pipes' pair kernel has them; and a chain of 64-bit divisions, each a CALL to
// the division routine.
inline const char* kRegionSource = R"(
extern "C" __global__ void two_regions(float* io, long long* t, float a, float b) {
  float x = io[threadIdx.x], y = io[threadIdx.x + 32];
  long long c0 = clock64();
#pragma unroll
  for (int i = 0; i < 16; ++i) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(y) : "f"(a), "f"(b));
  long long c1 = clock64();
  asm volatile("pmevent 7;");
  long long c2 = clock64();
#pragma unroll
  for (int i = 0; i < 8; ++i) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b));
  long long c3 = clock64();
  io[threadIdx.x] = x + y;
  t[0] = c1 - c0;
  t[1] = c3 - c2;
}
extern "C" __global__ void u64_div(unsigned long long* io, long long* t) {
  unsigned long long x = io[threadIdx.x], a = io[32 + threadIdx.x];
  long long c0 = clock64();
#pragma unroll
  for (int i = 0; i < 4; ++i) x = a / (x | 1);
  long long c1 = clock64();
  io[threadIdx.x] = x;
  t[0] = c1 - c0;
}
)";

}  // namespace gd::sass::testing
