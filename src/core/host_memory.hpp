// RAII host memory (pinned, mapped or pageable) and a non-blocking stream, for probes that move
// data between host and device or overlap copies. Copies are deleted.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

#include <cuda_runtime_api.h>

#include "core/error.hpp"

namespace gd {

// Pinned (cudaHostAlloc with `flags`) or pageable (malloc) host memory; every byte is written
// once at allocation, so pageable pages exist before anything is timed.
class HostBuffer {
 public:
  HostBuffer(std::size_t bytes, bool pinned, unsigned flags = cudaHostAllocDefault) : pinned_(pinned) {
    if (pinned) {
      GD_CUDA_CHECK(cudaHostAlloc(&p_, bytes, flags));
    } else {
      p_ = std::malloc(bytes);
      if (!p_) throw Error("host allocation of " + std::to_string(bytes) + " bytes failed");
    }
    std::memset(p_, 0x5a, bytes);
  }
  ~HostBuffer() {
    if (pinned_) GD_CUDA_CHECK_NOTHROW(cudaFreeHost(p_));
    else std::free(p_);
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
  bool pinned_;
};

// A stream that does not synchronize with the legacy default stream.
class Stream {
 public:
  Stream() { GD_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { GD_CUDA_CHECK_NOTHROW(cudaStreamDestroy(s_)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_{};
};

}  // namespace gd
