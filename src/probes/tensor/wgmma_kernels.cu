// Every instantiation of the wgmma probes' kernel (wgmma_kernel.cuh): about 340 kernels whose
// ptxas time is paid here, not on every edit of a probe's host code. On a many-core machine the
// file compiles in slices (CMakeLists.txt, GPUDISSECT_SLICED_SOURCES): slice k instantiates the
// operations whose place in kOps is k modulo the slice count, with their in-flight kernels, and
// registers them; the lookups below find an operation in whichever slice compiled it.
#include <string_view>
#include <vector>

#include "wgmma_kernel.cuh"

#ifndef GD_SLICE
#define GD_SLICE 0
#endif
#ifndef GD_SLICES
#define GD_SLICES 1
#endif
static_assert(GD_SLICE >= 0 && GD_SLICE < GD_SLICES, "GD_SLICE must be in [0, GD_SLICES)");

namespace gd::wgmma_probe {

// One operation's kernel lookups, as a slice registers them.
struct OpKernels {
  std::string_view op;
  Kernel (*latency)(int n, bool rs);
  Kernel (*throughput)(int n, bool rs);
  Kernel (*inflight)(int n, int groups);  // nullptr: no in-flight kernels for this operation
};

// Defined once (slice 0); every slice adds its operations during static initialisation, before
// any probe runs.
std::vector<OpKernels>& op_registry();

#if GD_SLICE == 0
std::vector<OpKernels>& op_registry() {
  static std::vector<OpKernels> ops;
  return ops;
}

namespace {
const OpKernels* find_op(std::string_view op) {
  for (const OpKernels& k : op_registry())
    if (k.op == op) return &k;
  return nullptr;
}
}  // namespace

Kernel latency_kernel(std::string_view op, int n, bool rs) {
  const OpKernels* k = find_op(op);
  return k ? k->latency(n, rs) : nullptr;
}
Kernel throughput_kernel(std::string_view op, int n, bool rs) {
  const OpKernels* k = find_op(op);
  return k ? k->throughput(n, rs) : nullptr;
}
Kernel inflight_kernel(std::string_view op, int n, int groups) {
  const OpKernels* k = find_op(op);
  return k && k->inflight ? k->inflight(n, groups) : nullptr;
}
#endif

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
Kernel inflight_groups(int groups) {
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

// The in-flight study's operations, at N = 64 and 256.
template <class Op>
Kernel inflight_for(int n, int groups) {
  return n == 256 ? inflight_groups<Op, 256>(groups) : n == 64 ? inflight_groups<Op, 64>(groups) : nullptr;
}

// Registers operation number `Index` of kOps when this slice compiles it.
template <int Index, class Op, bool Inflight = false>
struct Register {
  explicit Register(std::string_view name) {
    if constexpr (Index % GD_SLICES == GD_SLICE) {  // another slice's operation is not instantiated here
      Kernel (*inflight)(int, int) = nullptr;
      if constexpr (Inflight) inflight = inflight_for<Op>;
      op_registry().push_back({name, kernel_for<Op, 1, 1>, kernel_for<Op, kSteps, 2>, inflight});
    }
  }
};

// kOps: every operation of ptx_wgmma.cuh, by its struct's name. Index is the slice's share
// (Index % GD_SLICES): the two with in-flight kernels (16 more each) sit at 3 and 4, which with
// five slices are the slices of two operations, so no slice compiles much more than another (both
// in slice 0 of four made it 54 s of a 132 s cold build on the 16-core H200 machine).
const Register<0, wgmma::Tf32F32> r0("Tf32F32");
const Register<1, wgmma::F16F16> r1("F16F16");
const Register<2, wgmma::Bf16F32> r2("Bf16F32");
const Register<3, wgmma::F16F32, true> r3("F16F32");
const Register<4, wgmma::E4m3F32, true> r4("E4m3F32");
const Register<5, wgmma::E5m2F32> r5("E5m2F32");
const Register<6, wgmma::E4m3F16> r6("E4m3F16");
const Register<7, wgmma::E5m2F16> r7("E5m2F16");
const Register<8, wgmma::S8S32> r8("S8S32");
const Register<9, wgmma::U8S32> r9("U8S32");
const Register<10, wgmma::B1S32> r10("B1S32");
const Register<11, wgmma::F16F32Sparse> r11("F16F32Sparse");
const Register<12, wgmma::E4m3F32Sparse> r12("E4m3F32Sparse");

}  // namespace
}  // namespace gd::wgmma_probe
