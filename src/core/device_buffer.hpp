// RAII device memory. Copies are deleted; moves transfer ownership.
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "core/error.hpp"

namespace gd {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count) GD_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (ptr_) GD_CUDA_CHECK_NOTHROW(cudaFree(ptr_));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      if (ptr_) GD_CUDA_CHECK_NOTHROW(cudaFree(ptr_));
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void fill_zero() { GD_CUDA_CHECK(cudaMemset(ptr_, 0, bytes())); }
  void from_host(const std::vector<T>& h) {
    if (h.size() != count_) throw Error("DeviceBuffer::from_host: size mismatch");
    GD_CUDA_CHECK(cudaMemcpy(ptr_, h.data(), bytes(), cudaMemcpyHostToDevice));
  }
  std::vector<T> to_host() const {
    std::vector<T> h(count_);
    GD_CUDA_CHECK(cudaMemcpy(h.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
    return h;
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// Times GPU work with CUDA events on the default stream; milliseconds.
class EventTimer {
 public:
  EventTimer() {
    GD_CUDA_CHECK(cudaEventCreate(&start_));
    GD_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    GD_CUDA_CHECK_NOTHROW(cudaEventDestroy(start_));
    GD_CUDA_CHECK_NOTHROW(cudaEventDestroy(stop_));
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start() { GD_CUDA_CHECK(cudaEventRecord(start_)); }
  // Records the stop event, waits for it, checks the work for errors, returns milliseconds.
  double stop_ms() {
    GD_CUDA_CHECK(cudaGetLastError());
    GD_CUDA_CHECK(cudaEventRecord(stop_));
    GD_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    GD_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

}  // namespace gd
