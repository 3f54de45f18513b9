// The CUTLASS fp8 e4m3 GEMM of the ceiling probe (gemm_cutlass.cu): e4m3 in, f32 accumulate without periodic
// promotion (FP8FastAccum), bf16 out scaled by a device alpha, 128x256x128 tiles, 2x1 clusters, cooperative.
// Device passes for other targets than sm_90a compile nothing here (not even the interface).
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#include "gemm_cutlass.hpp"
#if GD_CUTLASS_PASS
#include "gemm_cutlass_kernels.cuh"
#endif

namespace gd::gemm {

struct CutlassFp8E4m3;
#if GD_CUTLASS_PASS
using CutlassFp8E4m3Kernel = Sm90Gemm<cutlass::float_e4m3_t, cutlass::float_e4m3_t, cutlass::bfloat16_t, float, float,
                        cute::Shape<cute::_128, cute::_256, cute::_128>, cute::Shape<cute::_2, cute::_1, cute::_1>,
                        cutlass::gemm::KernelTmaWarpSpecializedCooperativeFP8FastAccum,
                        cutlass::epilogue::TmaWarpSpecializedCooperative>::Kernel;
#endif

CutlassKernel cutlass_kernel_fp8_e4m3() {
  CutlassKernel k = cutlass_entry("fp8_e4m3", "cutlass_sm90_gemm", "CutlassFp8E4m3", "QGMMA", CUDA_R_16BF,
                                  "CUTLASS 3.x sm90 128x256x128, cluster 2x1x1, TMA warp-specialized cooperative "
                                  "FP8FastAccum, f32 accumulate, bf16 D, alpha (A scale x B scale = 1) from device "
                                  "memory",
                                  GD_CUTLASS_FOUND);
#if GD_CUTLASS_PASS
  k.prepare = prepare_call<Sm90Call<CutlassFp8E4m3, CutlassFp8E4m3Kernel, true>>;
#endif
  return k;
}

}  // namespace gd::gemm

#endif
