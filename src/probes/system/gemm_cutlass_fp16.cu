// The CUTLASS fp16 GEMM of the ceiling probe (gemm_cutlass.cu): fp16 in and out, f32 accumulate,
// 128x256x64 tiles, 2x1 clusters, TMA warp-specialized cooperative (as bf16).
// Device passes for other targets than sm_90a compile nothing here (not even the interface).
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#include "gemm_cutlass.hpp"
#if GD_CUTLASS_PASS
#include "gemm_cutlass_kernels.cuh"
#endif

namespace gd::gemm {

struct CutlassFp16;
#if GD_CUTLASS_PASS
using CutlassFp16Kernel = Sm90Gemm<cutlass::half_t, cutlass::half_t, cutlass::half_t, float, float,
                        cute::Shape<cute::_128, cute::_256, cute::_64>, cute::Shape<cute::_2, cute::_1, cute::_1>,
                        cutlass::gemm::KernelTmaWarpSpecializedCooperative,
                        cutlass::epilogue::TmaWarpSpecializedCooperative>::Kernel;
#endif

CutlassKernel cutlass_kernel_fp16() {
  CutlassKernel k = cutlass_entry("fp16", "cutlass_sm90_gemm", "CutlassFp16", "HGMMA", CUDA_R_16F,
                                  "CUTLASS 3.x sm90 128x256x64, cluster 2x1x1, TMA warp-specialized cooperative, f32 "
                                  "accumulate, fp16 D",
                                  GD_CUTLASS_FOUND);
#if GD_CUTLASS_PASS
  k.prepare = prepare_call<Sm90Call<CutlassFp16, CutlassFp16Kernel>>;
#endif
  return k;
}

}  // namespace gd::gemm

#endif
