// The CUTLASS int8 GEMM of the ceiling probe (gemm_cutlass.cu): s8 in, s32 accumulate and out (exact),
// 128x256x128 tiles, 2x1 clusters, TMA warp-specialized cooperative.
// Device passes for other targets than sm_90a compile nothing here (not even the interface).
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#include "gemm_cutlass.hpp"
#if GD_CUTLASS_PASS
#include "gemm_cutlass_kernels.cuh"
#endif

namespace gd::gemm {

struct CutlassInt8;
#if GD_CUTLASS_PASS
using CutlassInt8Kernel = Sm90Gemm<int8_t, int8_t, int32_t, int32_t, int32_t,
                        cute::Shape<cute::_128, cute::_256, cute::_128>, cute::Shape<cute::_2, cute::_1, cute::_1>,
                        cutlass::gemm::KernelTmaWarpSpecializedCooperative,
                        cutlass::epilogue::TmaWarpSpecializedCooperative>::Kernel;
#endif

CutlassKernel cutlass_kernel_int8() {
  CutlassKernel k = cutlass_entry("int8", "cutlass_sm90_gemm", "CutlassInt8", "IGMMA", CUDA_R_32I,
                                  "CUTLASS 3.x sm90 128x256x128, cluster 2x1x1, TMA warp-specialized cooperative, "
                                  "s32 accumulate, s32 D",
                                  GD_CUTLASS_FOUND);
#if GD_CUTLASS_PASS
  k.prepare = prepare_call<Sm90Call<CutlassInt8, CutlassInt8Kernel>>;
#endif
  return k;
}

}  // namespace gd::gemm

#endif
