#include "sass/module_copy.hpp"

#include <elf.h>

#include "sass/driver_api.hpp"

namespace gd::sass {

std::string data_symbol_named(const Cubin& cubin, const std::string& part) {
  std::string found;
  for (const ElfSymbol& s : cubin.symbols()) {
    if (s.type() != STT_OBJECT || s.name.find(part) == std::string::npos) continue;
    if (!found.empty())
      throw Error("the " + cubin.arch().name() + " cubin has several data symbols named like '" + part + "': " + found +
                  ", " + s.name);
    found = s.name;
  }
  if (found.empty()) throw Error("the " + cubin.arch().name() + " cubin has no data symbol named like '" + part + "'");
  return found;
}

ModuleCopy::ModuleCopy(const Cubin& cubin) : cubin_(cubin) {
  GD_CUDA_CHECK(cudaFree(nullptr));  // makes the primary context current for the driver calls
  const DriverApi& drv = DriverApi::get();
  CUmodule m = nullptr;
  drv.check(drv.module_load_data(&m, cubin.bytes().data()), "cuModuleLoadData");
  module_ = m;
}

ModuleCopy::~ModuleCopy() {
  if (module_) DriverApi::get().module_unload(static_cast<CUmodule>(module_));
}

void* ModuleCopy::global(const std::string& part, std::size_t* bytes) const {
  const DriverApi& drv = DriverApi::get();
  CUdeviceptr p = 0;
  std::size_t n = 0;
  drv.check(drv.module_get_global(&p, &n, static_cast<CUmodule>(module_), data_symbol_named(cubin_, part).c_str()),
            "cuModuleGetGlobal");
  if (bytes) *bytes = n;
  return reinterpret_cast<void*>(p);
}

void* ModuleCopy::function(const std::string& kernel) const {
  const DriverApi& drv = DriverApi::get();
  CUfunction f = nullptr;
  drv.check(drv.module_get_function(&f, static_cast<CUmodule>(module_), kernel.c_str()), "cuModuleGetFunction");
  return f;
}

void ModuleCopy::launch(const std::string& kernel, dim3 grid, dim3 block, std::size_t shared_bytes,
                        cudaStream_t stream, void** params) const {
  const DriverApi& drv = DriverApi::get();
  drv.check(drv.launch_kernel(static_cast<CUfunction>(function(kernel)), grid.x, grid.y, grid.z, block.x, block.y,
                              block.z, unsigned(shared_bytes), stream, params, nullptr),
            "cuLaunchKernel");
}

void ModuleCopy::allow_dynamic_shared(const std::string& kernel, int bytes) const {
  const DriverApi& drv = DriverApi::get();
  drv.check(drv.func_set_attribute(static_cast<CUfunction>(function(kernel)),
                                    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
            "cuFuncSetAttribute");
}

}  // namespace gd::sass
