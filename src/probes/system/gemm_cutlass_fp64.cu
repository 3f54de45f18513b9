// The CUTLASS fp64 GEMM of the ceiling probe (gemm_cutlass.cu): CUTLASS 2.x multistage kernel on the FP64
// tensor cores (mma.sync m16n8k4, DMMA), 128x128x16 tiles, 8 warps of 32x64, 3 stages (CUTLASS's sm_90
// DGEMM).
// Device passes for other targets than sm_90a compile nothing here (not even the interface).
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#include "gemm_cutlass.hpp"
#if GD_CUTLASS_PASS
#include "gemm_cutlass_kernels.cuh"
#endif

namespace gd::gemm {

struct CutlassFp64;
#if GD_CUTLASS_PASS
using CutlassFp64Kernel = cutlass::gemm::kernel::DefaultGemm<
    double, cutlass::layout::RowMajor, 1, double, cutlass::layout::ColumnMajor, 1, double, cutlass::layout::RowMajor,
    double, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm90, cutlass::gemm::GemmShape<128, 128, 16>,
    cutlass::gemm::GemmShape<32, 64, 16>, cutlass::gemm::GemmShape<16, 8, 4>,
    cutlass::epilogue::thread::LinearCombination<double, 1, double, double>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, 3, false, cutlass::arch::OpMultiplyAdd>::GemmKernel;
#endif

CutlassKernel cutlass_kernel_fp64() {
  CutlassKernel k = cutlass_entry("fp64", "cutlass_2x_gemm", "CutlassFp64", "DMMA", CUDA_R_64F,
                                  "CUTLASS 2.x sm90 DGEMM 128x128x16, warps 32x64x16, mma.sync m16n8k4 f64, 3-stage "
                                  "cp.async",
                                  GD_CUTLASS_FOUND);
#if GD_CUTLASS_PASS
  k.prepare = prepare_call<Cutlass2xCall<CutlassFp64, CutlassFp64Kernel>>;
#endif
  return k;
}

}  // namespace gd::gemm

#endif
