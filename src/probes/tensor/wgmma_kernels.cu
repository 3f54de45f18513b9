// Every instantiation of the wgmma probes' kernel (wgmma_kernel.cuh), in one translation unit:
// about 340 kernels whose ptxas time is paid once, not on every edit of a probe's host code.
#include <string_view>

#include "wgmma_kernel.cuh"

namespace gd::wgmma_probe {
namespace {

// The kernel for a run-time N and operand source; U and G are the caller's compile-time loop.
template <class Op, int U, int G>
Kernel kernel_for(int n, bool rs) {
#define GD_WG_KERNEL_CASE(N) \
  case N: return rs ? wgmma_kernel<Op, N, true, U, G> : wgmma_kernel<Op, N, false, U, G>;
  switch (n) {
    GD_WG_KERNEL_CASE(8)
    GD_WG_KERNEL_CASE(16)
    GD_WG_KERNEL_CASE(32)
    GD_WG_KERNEL_CASE(64)
    GD_WG_KERNEL_CASE(128)
    GD_WG_KERNEL_CASE(192)
    GD_WG_KERNEL_CASE(256)
    default: return nullptr;
  }
#undef GD_WG_KERNEL_CASE
}

// U = 1, G = 1..8 at one N, operands in shared memory.
template <class Op, int N>
Kernel inflight_for(int groups) {
  switch (groups) {
    case 1: return wgmma_kernel<Op, N, false, 1, 1>;
    case 2: return wgmma_kernel<Op, N, false, 1, 2>;
    case 3: return wgmma_kernel<Op, N, false, 1, 3>;
    case 4: return wgmma_kernel<Op, N, false, 1, 4>;
    case 5: return wgmma_kernel<Op, N, false, 1, 5>;
    case 6: return wgmma_kernel<Op, N, false, 1, 6>;
    case 7: return wgmma_kernel<Op, N, false, 1, 7>;
    case 8: return wgmma_kernel<Op, N, false, 1, 8>;
    default: return nullptr;
  }
}

template <int U, int G>
Kernel by_name(std::string_view op, int n, bool rs) {
  if (op == "F16F32") return kernel_for<wgmma::F16F32, U, G>(n, rs);
  if (op == "F16F16") return kernel_for<wgmma::F16F16, U, G>(n, rs);
  if (op == "Bf16F32") return kernel_for<wgmma::Bf16F32, U, G>(n, rs);
  if (op == "Tf32F32") return kernel_for<wgmma::Tf32F32, U, G>(n, rs);
  if (op == "E4m3F32") return kernel_for<wgmma::E4m3F32, U, G>(n, rs);
  if (op == "E5m2F32") return kernel_for<wgmma::E5m2F32, U, G>(n, rs);
  if (op == "E4m3F16") return kernel_for<wgmma::E4m3F16, U, G>(n, rs);
  if (op == "E5m2F16") return kernel_for<wgmma::E5m2F16, U, G>(n, rs);
  if (op == "S8S32") return kernel_for<wgmma::S8S32, U, G>(n, rs);
  if (op == "U8S32") return kernel_for<wgmma::U8S32, U, G>(n, rs);
  if (op == "B1S32") return kernel_for<wgmma::B1S32, U, G>(n, rs);
  if (op == "F16F32Sparse") return kernel_for<wgmma::F16F32Sparse, U, G>(n, rs);
  if (op == "E4m3F32Sparse") return kernel_for<wgmma::E4m3F32Sparse, U, G>(n, rs);
  return nullptr;
}

}  // namespace

Kernel latency_kernel(std::string_view op, int n, bool rs) { return by_name<1, 1>(op, n, rs); }
Kernel throughput_kernel(std::string_view op, int n, bool rs) { return by_name<kSteps, 2>(op, n, rs); }
Kernel inflight_kernel(std::string_view op, int n, int groups) {
  if (op == "F16F32" && n == 256) return inflight_for<wgmma::F16F32, 256>(groups);
  if (op == "F16F32" && n == 64) return inflight_for<wgmma::F16F32, 64>(groups);
  if (op == "E4m3F32" && n == 256) return inflight_for<wgmma::E4m3F32, 256>(groups);
  if (op == "E4m3F32" && n == 64) return inflight_for<wgmma::E4m3F32, 64>(groups);
  return nullptr;
}

}  // namespace gd::wgmma_probe
