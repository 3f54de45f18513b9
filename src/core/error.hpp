// One error family for the whole tool: library code throws, only the CLI picks exit codes.
#pragma once
#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

namespace gd {

// Anything that went wrong inside gpudissect.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad input from the user (unknown id, malformed file, unwritable directory): exit code 2.
class UserError : public Error {
 public:
  using Error::Error;
};

// Output could not be written after the work was done (disk full, I/O error, closed stream):
// exit code 74. An output path that is wrong from the start is a UserError instead.
class OutputError : public Error {
 public:
  using Error::Error;
};

// A CUDA runtime or driver call failed.
class CudaError : public Error {
 public:
  CudaError(cudaError_t code, const std::string& what) : Error(what), code_(code) {}
  cudaError_t code() const { return code_; }
  // A sticky error leaves the context unusable; the executor must reset before going on.
  bool sticky() const;

 private:
  cudaError_t code_;
};

// Thrown by a probe that cannot run here; the executor records it as skipped with the reason.
class SkipProbe : public std::exception {
 public:
  explicit SkipProbe(std::string reason) : reason_(std::move(reason)) {}
  const char* what() const noexcept override { return reason_.c_str(); }

 private:
  std::string reason_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line);
void report_cuda_error_nothrow(cudaError_t code, const char* expr, const char* file, int line);

}  // namespace gd

#define GD_CUDA_CHECK(expr)                                                 \
  do {                                                                      \
    cudaError_t gd_err_ = (expr);                                           \
    if (gd_err_ != cudaSuccess)                                             \
      ::gd::throw_cuda_error(gd_err_, #expr, __FILE__, __LINE__);           \
  } while (0)

// For destructors and cleanup paths, which must not throw.
#define GD_CUDA_CHECK_NOTHROW(expr)                                         \
  do {                                                                      \
    cudaError_t gd_err_ = (expr);                                           \
    if (gd_err_ != cudaSuccess)                                             \
      ::gd::report_cuda_error_nothrow(gd_err_, #expr, __FILE__, __LINE__);  \
  } while (0)

// Checks both the launch and, once the kernel has finished, its execution.
#define GD_CUDA_CHECK_LAUNCH()                                              \
  do {                                                                      \
    GD_CUDA_CHECK(cudaGetLastError());                                      \
    GD_CUDA_CHECK(cudaDeviceSynchronize());                                 \
  } while (0)
