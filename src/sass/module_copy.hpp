// One of this binary's cubins loaded again as a module of its own (cuModuleLoadData) in the
// current device's primary context. Each copy has its own globals and __constant__ banks: a probe
// that needs more constant data in flight than one module may declare (64 KiB) loads several.
// The code is the cubin's, byte for byte, so the SASS the verifier checks is the SASS that runs.
#pragma once
#include <cstddef>
#include <string>

#include <cuda_runtime_api.h>

#include "sass/elf.hpp"

namespace gd::sass {

class ModuleCopy {
 public:
  // Throws gd::CudaError when the driver refuses the cubin (another arch, no context).
  explicit ModuleCopy(const Cubin& cubin);
  ~ModuleCopy();
  ModuleCopy(const ModuleCopy&) = delete;
  ModuleCopy& operator=(const ModuleCopy&) = delete;

  // The device address of the one data symbol whose name contains `part` (a __constant__ array
  // is written like global memory, from the host); throws gd::Error when none or several match.
  void* global(const std::string& part, std::size_t* bytes = nullptr) const;
  // `kernel` is the mangled name; params as cuLaunchKernel takes them. The launch is checked,
  // not the kernel's completion.
  void launch(const std::string& kernel, dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
              void** params) const;
  void allow_dynamic_shared(const std::string& kernel, int bytes) const;

 private:
  const Cubin& cubin_;
  void* module_ = nullptr;  // CUmodule
  void* function(const std::string& kernel) const;
};

// The name of the one data symbol of `cubin` whose name contains `part`; throws gd::Error when
// none or several do (what ModuleCopy::global looks up).
std::string data_symbol_named(const Cubin& cubin, const std::string& part);

}  // namespace gd::sass
