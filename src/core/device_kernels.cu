// The harness's own kernels: which code the chip runs, and how fast its SM clock ticks.
#include "core/device_kernels.hpp"

#include <cuda_runtime.h>

#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "core/ptx.cuh"

namespace gd {
namespace {

__global__ void report_arch_kernel(int* out) {
#if defined(__CUDA_ARCH__)
  out[0] = __CUDA_ARCH__;
#endif
#if defined(__CUDA_ARCH_SPECIFIC__) || defined(__CUDA_ARCH_FEAT_SM90_ALL) || \
    defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM120_ALL)
  out[1] = 1;
#endif
}

// Spins for `ns` of global time and reports cycles and nanoseconds elapsed.
__global__ void clock_ratio_kernel(unsigned long long ns, long long* out) {
  const unsigned long long t0 = ptx::globaltimer_ns();
  const long long c0 = clock64();
  unsigned long long t1 = t0;
  while (t1 - t0 < ns) t1 = ptx::globaltimer_ns();
  const long long c1 = clock64();
  out[0] = c1 - c0;
  out[1] = static_cast<long long>(t1 - t0);
}

}  // namespace

std::string detect_loaded_arch() {
  DeviceBuffer<int> d(2);
  d.fill_zero();
  report_arch_kernel<<<1, 1>>>(d.get());
  GD_CUDA_CHECK_LAUNCH();
  const auto h = d.to_host();
  if (h[0] == 0) throw Error("detect_loaded_arch: kernel did not report its architecture");
  return "sm_" + std::to_string(h[0] / 10) + (h[1] ? "a" : "");
}

double measure_sm_clock_mhz(double duration_ms) {
  DeviceBuffer<long long> d(2);
  const auto ns = static_cast<unsigned long long>(duration_ms * 1e6);
  clock_ratio_kernel<<<1, 1>>>(ns, d.get());
  GD_CUDA_CHECK_LAUNCH();
  const auto h = d.to_host();
  if (h[1] <= 0) throw Error("measure_sm_clock_mhz: globaltimer did not advance");
  return double(h[0]) / double(h[1]) * 1e3;
}

SmClockSampler::SmClockSampler(int capacity, double spin_us)
    : capacity_(capacity), spin_ns_(static_cast<unsigned long long>(spin_us * 1e3)) {
  if (capacity < 1 || !(spin_us > 0)) throw Error("SmClockSampler: capacity and spin time must be positive");
  GD_CUDA_CHECK(cudaMalloc(&slots_, sizeof(long long) * 2 * std::size_t(capacity)));
}

SmClockSampler::~SmClockSampler() { cudaFree(slots_); }

void SmClockSampler::sample() {
  if (taken_ >= capacity_)
    throw Error("SmClockSampler: more than " + std::to_string(capacity_) + " samples (its capacity)");
  clock_ratio_kernel<<<1, 1>>>(spin_ns_, slots_ + 2 * taken_);
  GD_CUDA_CHECK(cudaGetLastError());
  ++taken_;
}

std::vector<double> SmClockSampler::read_mhz() const {
  std::vector<long long> h(2 * std::size_t(taken_));
  GD_CUDA_CHECK(cudaDeviceSynchronize());
  if (taken_ > 0) GD_CUDA_CHECK(cudaMemcpy(h.data(), slots_, sizeof(long long) * h.size(), cudaMemcpyDeviceToHost));
  std::vector<double> mhz;
  for (int i = 0; i < taken_; ++i) {
    if (h[2 * i + 1] <= 0) throw Error("SmClockSampler: globaltimer did not advance");
    mhz.push_back(double(h[2 * i]) / double(h[2 * i + 1]) * 1e3);
  }
  return mhz;
}

}  // namespace gd
