// Experiment: launch the driver's memset and device-to-device memcpy once, for ncu to inspect.
#include <cuda_runtime.h>
int main() {
  const size_t B = 1ull << 30;
  void *a, *b;
  cudaMalloc(&a, B); cudaMalloc(&b, B);
  cudaMemsetAsync(a, 3, B);
  cudaMemcpyAsync(b, a, B, cudaMemcpyDeviceToDevice);
  return cudaDeviceSynchronize() != cudaSuccess;
}
