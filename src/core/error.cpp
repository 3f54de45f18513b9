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

// Built by appending: g++ 12 warns (-Wrestrict, a known false positive) on the operator+ chain.
static std::string describe(cudaError_t code, const char* expr, const char* file, int line) {
  std::string s(file);
  s.append(":").append(std::to_string(line)).append(": ").append(expr).append(" failed: ");
  s.append(cudaGetErrorName(code)).append(" (").append(cudaGetErrorString(code)).append(")");
  return s;
}

void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  throw CudaError(code, describe(code, expr, file, line));
}

void report_cuda_error_nothrow(cudaError_t code, const char* expr, const char* file, int line) {
  std::fprintf(stderr, "gpudissect: warning: %s\n", describe(code, expr, file, line).c_str());
}

}  // namespace gd
