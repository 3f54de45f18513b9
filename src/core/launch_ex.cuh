// Launches with attributes <<<>>> cannot express: thread-block clusters, programmatic dependent
// launch (PDL) and cooperative grids, through cudaLaunchKernelEx. Like launch(), each names its
// kernel to the sweep point so the point's SASS status covers it.
#pragma once
#include <utility>

#include <cuda_runtime.h>

#include "core/error.hpp"
#include "core/launch.cuh"

namespace gd {

struct LaunchAttrs {
  unsigned cluster = 0;      // blocks per cluster along x; 0: no cluster attribute
  bool pdl = false;          // programmatic stream serialization: may start before the previous kernel ends
  bool cooperative = false;  // all blocks co-resident; grid-wide sync allowed
};

inline cudaLaunchConfig_t launch_config(const LaunchShape& shape, const LaunchAttrs& a, cudaLaunchAttribute (&at)[3]) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = shape.grid;
  cfg.blockDim = shape.block;
  cfg.dynamicSmemBytes = shape.shared_bytes;
  cfg.stream = shape.stream;
  unsigned n = 0;
  if (a.cluster > 0) {
    at[n].id = cudaLaunchAttributeClusterDimension;
    at[n].val.clusterDim.x = a.cluster;
    at[n].val.clusterDim.y = 1;
    at[n].val.clusterDim.z = 1;
    ++n;
  }
  if (a.pdl) {
    at[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[n].val.programmaticStreamSerializationAllowed = 1;
    ++n;
  }
  if (a.cooperative) {
    at[n].id = cudaLaunchAttributeCooperative;
    at[n].val.cooperative = 1;
    ++n;
  }
  cfg.attrs = at;
  cfg.numAttrs = n;
  return cfg;
}

template <class... Params, class... Args>
void launch_ex(ProbeContext& ctx, void (*kernel)(Params...), const LaunchShape& shape, const LaunchAttrs& a,
               Args&&... args) {
  ctx.launched(reinterpret_cast<const void*>(kernel));
  cudaLaunchAttribute at[3];
  const cudaLaunchConfig_t cfg = launch_config(shape, a, at);
  GD_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

// Lets `kernel` take `shared_bytes` of dynamic shared memory and clusters past the portable 8.
template <class... Params>
void allow_cluster_launch(void (*kernel)(Params...), std::size_t shared_bytes) {
  const void* f = reinterpret_cast<const void*>(kernel);
  GD_CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_bytes)));
  GD_CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
}

// Dynamic shared memory that, added to the kernel's static shared memory, is the most one block
// may have: the launch then holds one block per SM.
template <class... Params>
std::size_t one_block_per_sm_shared_bytes(void (*kernel)(Params...), long long shared_per_block_optin) {
  cudaFuncAttributes attr{};
  GD_CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)));
  return std::size_t(shared_per_block_optin) - attr.sharedSizeBytes;
}

// The largest cluster the driver will schedule for this kernel and shape (0 if it cannot say).
template <class... Params>
int max_cluster_size(void (*kernel)(Params...), const LaunchShape& shape) {
  cudaLaunchAttribute at[3];
  cudaLaunchConfig_t cfg = launch_config(shape, LaunchAttrs{}, at);
  int n = 0;
  if (cudaOccupancyMaxPotentialClusterSize(&n, reinterpret_cast<const void*>(kernel), &cfg) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

// The driver's answer to "how many clusters of this size run at once".
template <class... Params>
int max_active_clusters(void (*kernel)(Params...), const LaunchShape& shape, unsigned cluster) {
  cudaLaunchAttribute at[3];
  cudaLaunchConfig_t cfg = launch_config(shape, LaunchAttrs{cluster}, at);
  int n = 0;
  GD_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, reinterpret_cast<const void*>(kernel), &cfg));
  return n;
}

}  // namespace gd
