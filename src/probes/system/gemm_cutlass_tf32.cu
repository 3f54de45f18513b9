// The CUTLASS tf32 GEMM of the ceiling probe (gemm_cutlass.cu): fp32 data multiplied as tf32 by wgmma,
// f32 accumulate and out, 128x256x32 tiles, 2x1 clusters, TMA warp-specialized cooperative.
// Device passes for other targets than sm_90a compile nothing here (not even the interface).
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#include "gemm_cutlass.hpp"
#if GD_CUTLASS_PASS
#include "gemm_cutlass_kernels.cuh"
#endif

namespace gd::gemm {

struct CutlassTf32;
#if GD_CUTLASS_PASS
using CutlassTf32Kernel = Sm90Gemm<float, float, float, float, float,
                        cute::Shape<cute::_128, cute::_256, cute::_32>, cute::Shape<cute::_2, cute::_1, cute::_1>,
                        cutlass::gemm::KernelTmaWarpSpecializedCooperative,
                        cutlass::epilogue::TmaWarpSpecializedCooperative>::Kernel;
#endif

CutlassKernel cutlass_kernel_tf32() {
  CutlassKernel k = cutlass_entry("tf32", "cutlass_sm90_gemm", "CutlassTf32", "HGMMA", CUDA_R_32F,
                                  "CUTLASS 3.x sm90 128x256x32, cluster 2x1x1, TMA warp-specialized cooperative, "
                                  "tf32 multiply, f32 accumulate and D",
                                  GD_CUTLASS_FOUND);
#if GD_CUTLASS_PASS
  k.prepare = prepare_call<Sm90Call<CutlassTf32, CutlassTf32Kernel>>;
#endif
  return k;
}

}  // namespace gd::gemm

#endif
