// Kernel launches that name themselves to the sweep point: a point's SASS status covers exactly
// the kernels it ran (ProbeContext::launched), so probes launch through here, not <<<>>>.
#pragma once
#include <cstddef>
#include <utility>

#include <cuda_runtime.h>

#include "core/error.hpp"
#include "core/ncu.hpp"
#include "core/probe.hpp"

namespace gd {

struct LaunchShape {
  dim3 grid{1};
  dim3 block{32};
  std::size_t shared_bytes = 0;
  cudaStream_t stream = nullptr;
};

// Records the kernel on the point, then launches it; launch errors are checked (not the
// kernel's completion: synchronize or time it as the probe needs).
template <class... Params, class... Args>
void launch(ProbeContext& ctx, void (*kernel)(Params...), const LaunchShape& shape, Args&&... args) {
  ctx.launched(reinterpret_cast<const void*>(kernel));
  const ncu::Range profiled_as(ctx.ncu_tag());  // names the point to Nsight Compute under run --ncu
  kernel<<<shape.grid, shape.block, shape.shared_bytes, shape.stream>>>(std::forward<Args>(args)...);
  GD_CUDA_CHECK(cudaGetLastError());
}

}  // namespace gd
