// Host entry points of the harness's own kernels (src/core/device_kernels.cu).
#pragma once
#include <string>

namespace gd {

// Which cubin the runtime loaded for this chip, from a kernel that reports its own
// __CUDA_ARCH__ and arch-specific feature macros: "sm_90a", "sm_90", "sm_80", ...
std::string detect_loaded_arch();

// SM clock in MHz observed over `duration_ms` of a busy kernel: clock64 cycles over
// %globaltimer nanoseconds on one SM.
double measure_sm_clock_mhz(double duration_ms = 2.0);

}  // namespace gd
