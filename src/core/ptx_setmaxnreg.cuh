// Warp-group register reallocation (setmaxnreg, USETMAXREG) as named wrappers: arch-specific code
// of sm_90a, sm_100a and sm_120a (GD_HAS_SETMAXNREG); elsewhere they trap and the probes are gated.
#pragma once

#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM120_ALL)
#define GD_HAS_SETMAXNREG 1
#endif

namespace gd::ptx {

// Every warp of the warp group executes the same one (.sync.aligned); N is a multiple of 8 in
// [24, 256]. An increase waits until the CTA's register pool holds the registers (another warp
// group must have released them); ptxas keeps the code after it within N registers a thread.
template <unsigned N>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(N % 8 == 0 && N >= 24 && N <= 256, "setmaxnreg takes a multiple of 8 in [24, 256]");
#ifdef GD_HAS_SETMAXNREG
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N) : "memory");
#else
  __trap();
#endif
}
template <unsigned N>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(N % 8 == 0 && N >= 24 && N <= 256, "setmaxnreg takes a multiple of 8 in [24, 256]");
#ifdef GD_HAS_SETMAXNREG
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N) : "memory");
#else
  __trap();
#endif
}

}  // namespace gd::ptx
