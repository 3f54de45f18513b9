// The CUDA driver functions src/sass calls, looked up through cudart so that libcuda is not a
// link dependency (cudart opens it at run time). Include only from .cpp files: it brings <cuda.h>.
#pragma once
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <string>

#include "core/error.hpp"

namespace gd::sass {

struct DriverApi {
  PFN_cuModuleLoadData_v2000 module_load_data = nullptr;
  PFN_cuModuleGetFunction_v2000 module_get_function = nullptr;
  PFN_cuModuleGetGlobal_v3020 module_get_global = nullptr;
  PFN_cuModuleUnload_v2000 module_unload = nullptr;
  PFN_cuFuncSetAttribute_v9000 func_set_attribute = nullptr;
  PFN_cuLaunchKernel_v4000 launch_kernel = nullptr;
  PFN_cuGetErrorString_v6000 get_error_string = nullptr;

  static const DriverApi& get() {
    static const DriverApi api = [] {
      DriverApi a;
      lookup("cuModuleLoadData", a.module_load_data);
      lookup("cuModuleGetFunction", a.module_get_function);
      lookup("cuModuleGetGlobal", a.module_get_global);
      lookup("cuModuleUnload", a.module_unload);
      lookup("cuFuncSetAttribute", a.func_set_attribute);
      lookup("cuLaunchKernel", a.launch_kernel);
      lookup("cuGetErrorString", a.get_error_string);
      return a;
    }();
    return api;
  }

  void check(CUresult r, const char* what) const {
    if (r == CUDA_SUCCESS) return;
    const char* msg = nullptr;
    if (get_error_string) get_error_string(r, &msg);
    throw CudaError(cudaErrorUnknown, std::string(what) + " failed: " + (msg ? msg : "CUresult " + std::to_string(r)));
  }

 private:
  template <class Fn>
  static void lookup(const char* symbol, Fn& fn) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
    GD_CUDA_CHECK(cudaGetDriverEntryPointByVersion(symbol, &p, 12000, cudaEnableDefault, &status));
    if (status != cudaDriverEntryPointSuccess || !p)
      throw Error(std::string("the CUDA driver does not provide ") + symbol);
    fn = reinterpret_cast<Fn>(p);
  }
};

}  // namespace gd::sass
