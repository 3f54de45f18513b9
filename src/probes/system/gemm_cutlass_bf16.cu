// The CUTLASS bf16 GEMM of the ceiling probe (gemm_cutlass.cu): bf16 in and out, f32 accumulate,
// 128x256x64 tiles, 2x1 clusters, TMA warp-specialized cooperative (CUTLASS's pick for 8192^3).
// Device passes for other targets than sm_90a compile nothing here (not even the interface).
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#include "gemm_cutlass.hpp"
#if GD_CUTLASS_PASS
#include "gemm_cutlass_kernels.cuh"
#endif

namespace gd::gemm {

struct CutlassBf16;
#if GD_CUTLASS_PASS
using CutlassBf16Kernel = Sm90Gemm<cutlass::bfloat16_t, cutlass::bfloat16_t, cutlass::bfloat16_t, float, float,
                        cute::Shape<cute::_128, cute::_256, cute::_64>, cute::Shape<cute::_2, cute::_1, cute::_1>,
                        cutlass::gemm::KernelTmaWarpSpecializedCooperative,
                        cutlass::epilogue::TmaWarpSpecializedCooperative>::Kernel;
#endif

CutlassKernel cutlass_kernel_bf16() {
  CutlassKernel k = cutlass_entry("bf16", "cutlass_sm90_gemm", "CutlassBf16", "HGMMA", CUDA_R_16BF,
                                  "CUTLASS 3.x sm90 128x256x64, cluster 2x1x1, TMA warp-specialized cooperative, f32 "
                                  "accumulate, bf16 D",
                                  GD_CUTLASS_FOUND);
#if GD_CUTLASS_PASS
  k.prepare = prepare_call<Sm90Call<CutlassBf16, CutlassBf16Kernel>>;
#endif
  return k;
}

}  // namespace gd::gemm

#endif
