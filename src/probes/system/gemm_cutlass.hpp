// The CUTLASS GEMM kernels of the ceiling probe (gemm_cutlass.cu), one per precision, each
// compiled in its own translation unit (gemm_cutlass_<type>.cu) so the build runs them in parallel.
// This interface needs no CUTLASS header: a unit built without them reports why it has no kernel.
#pragma once
#include <memory>
#include <string>
#include <utility>

#include <library_types.h>

#include "core/probe.hpp"
#include "gemm_inputs.hpp"

// Where a gemm_cutlass_<type>.cu unit compiles its CUTLASS kernel: in the host pass and the sm_90a
// device pass of a build that found the headers (CMake defines GPUDISSECT_CUTLASS for these units).
// CMake builds these units for sm_90a alone (gpudissect_cutlass: a kernel missing from a unit's
// first device pass goes unregistered); the guard keeps any other device pass empty.
#if defined(GPUDISSECT_CUTLASS) && (!defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL))
#define GD_CUTLASS_PASS 1
#else
#define GD_CUTLASS_PASS 0
#endif
#ifdef GPUDISSECT_CUTLASS
#define GD_CUTLASS_FOUND true
#else
#define GD_CUTLASS_FOUND false
#endif

namespace gd::gemm {

// One prepared GEMM (arguments converted, workspace set up): each call launches it once.
class CutlassGemm {
 public:
  virtual ~CutlassGemm() = default;
  virtual void operator()(ProbeContext& ctx) = 0;
};

// What one precision's translation unit offers.
struct CutlassKernel {
  std::string type;        // a GemmType name (gemm_inputs.hpp)
  std::string missing;     // why there is no kernel (empty: there is one)
  std::string config;      // tile, cluster, schedule: for the record
  std::string kernel_glob; // its demangled name, for the SASS expectation
  std::string mma_opcode;  // the tensor-core instruction its main loop must contain
  cudaDataType_t out = CUDA_R_32F;  // D's type (C is not read: D = alpha A B)
  // Prepares D = A^T B for `shape` (TN, column-major: A K x M, B K x N, D M x N, each K-major
  // operand packed). Throws SkipProbe when CUTLASS cannot implement the shape.
  std::unique_ptr<CutlassGemm> (*prepare)(const void* a, const void* b, void* d, Shape shape,
                                          const DeviceInfo& device) = nullptr;
};

// A precision's entry before its kernel is attached: `tag` names the kernel wrapper's first
// template argument (gd::gemm::<tag>), which the SASS expectation matches. The glob is over the
// mangled name (<length><name> for each), since CUTLASS's kernel names do not demangle.
// `found`: whether the unit was built with the headers (GD_CUTLASS_FOUND there).
inline CutlassKernel cutlass_entry(std::string type, const std::string& wrapper, const std::string& tag,
                                   std::string mma_opcode, cudaDataType_t out, std::string config, bool found) {
  CutlassKernel k;
  k.type = std::move(type);
  // Appended piece by piece: g++ 12 reports a false -Wrestrict on the chained operator+ here.
  for (const std::string& piece : {std::string("*"), std::to_string(wrapper.size()), wrapper, std::string("I*"),
                                   std::to_string(tag.size()), tag, std::string("E*")})
    k.kernel_glob += piece;
  k.mma_opcode = std::move(mma_opcode);
  k.out = out;
  k.config = std::move(config);
  if (!found) k.missing = "CUTLASS headers not found: run scripts/setup.sh";
  return k;
}

CutlassKernel cutlass_kernel_bf16();
CutlassKernel cutlass_kernel_fp16();
CutlassKernel cutlass_kernel_tf32();
CutlassKernel cutlass_kernel_fp8_e4m3();
CutlassKernel cutlass_kernel_int8();
CutlassKernel cutlass_kernel_fp64();

}  // namespace gd::gemm
