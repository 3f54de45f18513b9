// Host entry points of the harness's own kernels (src/core/device_kernels.cu).
#pragma once
#include <string>
#include <vector>

namespace gd {

// Which cubin the runtime loaded for this chip, from a kernel that reports its own
// __CUDA_ARCH__ and arch-specific feature macros: "sm_90a", "sm_90", "sm_80", ...
std::string detect_loaded_arch();

// SM clock in MHz observed over `duration_ms` of a busy kernel: clock64 cycles over
// %globaltimer nanoseconds on one SM.
double measure_sm_clock_mhz(double duration_ms = 2.0);

// The SM clock between pieces of someone else's work on the default stream (cuBLAS's and
// CUTLASS's kernels read no clock of ours): each sample() enqueues a one-thread kernel that spins
// `spin_us` of %globaltimer and counts clock64 over it, the method of measure_sm_clock_mhz and of
// our own kernels' regions. The clock moves over milliseconds, so a sample taken right after a
// chunk of a library's calls reads the clock those calls ran at. read_mhz() waits for the
// samples taken so far and returns one clock per sample, in order; sampling past `capacity`
// throws Error.
class SmClockSampler {
 public:
  explicit SmClockSampler(int capacity, double spin_us = 50);
  ~SmClockSampler();
  SmClockSampler(const SmClockSampler&) = delete;
  SmClockSampler& operator=(const SmClockSampler&) = delete;
  void sample();
  std::vector<double> read_mhz() const;
  int size() const { return taken_; }

 private:
  long long* slots_ = nullptr;  // device: cycles, ns per sample
  int capacity_ = 0, taken_ = 0;
  unsigned long long spin_ns_ = 0;
};

}  // namespace gd
