#include "core/error.hpp"

#include <cstdio>

namespace gd {

bool CudaError::sticky() const {
  switch (code_) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

static std::string describe(cudaError_t code, const char* expr, const char* file, int line) {
  return std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " +
         cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")";
}

void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  throw CudaError(code, describe(code, expr, file, line));
}

void report_cuda_error_nothrow(cudaError_t code, const char* expr, const char* file, int line) {
  std::fprintf(stderr, "gpudissect: warning: %s\n", describe(code, expr, file, line).c_str());
}

}  // namespace gd
