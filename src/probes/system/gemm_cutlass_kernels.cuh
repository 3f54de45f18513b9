// CUTLASS's Hopper GEMM kernels as the ceiling probe runs them: a CUTLASS 3.x TMA warp-specialized
// kernel assembled by the CollectiveBuilder (16-bit, tf32, fp8, int8) and a CUTLASS 2.x DMMA kernel
// (fp64), each launched through core/launch_ex.cuh under a wrapper whose name says the precision.
// Included only by gemm_cutlass_<type>.cu, and there only in the host pass and the sm_90a device
// pass (GD_CUTLASS_PASS): the other targets' device passes skip CUTLASS entirely.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/epilogue/thread/linear_combination.h>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/kernel/default_gemm.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/threadblock/threadblock_swizzle.h>

#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "core/launch_ex.cuh"
#include "gemm_cutlass.hpp"

namespace gd::gemm {

// --- CUTLASS 3.x, sm_90a: TMA loads, warp-specialized producer/consumer warpgroups, wgmma ------

// A, B and D in the probe's TN layout: A row-major M x K and B column-major K x N (both K-major, as
// fp8 and int8 wgmma require), D column-major M x N. C is not read (void): D = alpha A B.
template <class A, class B, class D, class Acc, class Compute, class Tile, class Cluster, class Schedule,
          class EpilogueSchedule>
struct Sm90Gemm {
  using LayoutA = cutlass::layout::RowMajor;
  using LayoutB = cutlass::layout::ColumnMajor;
  using LayoutD = cutlass::layout::ColumnMajor;
  static constexpr int kAlignA = 128 / cutlass::sizeof_bits<A>::value;  // 16-byte TMA rows
  static constexpr int kAlignB = 128 / cutlass::sizeof_bits<B>::value;
  static constexpr int kAlignD = 128 / cutlass::sizeof_bits<D>::value;
  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Tile, Cluster,
      cutlass::epilogue::collective::EpilogueTileAuto, Acc, Compute, void, LayoutD, kAlignD, D, LayoutD, kAlignD,
      EpilogueSchedule>::CollectiveOp;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, A, LayoutA, kAlignA, B, LayoutB, kAlignB, Acc, Tile,
      Cluster,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      Schedule>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop, Epilogue>;
};

// CUTLASS's device_kernel under a name of ours: Tag (one per precision) tells the kernels apart
// in the SASS expectations.
template <class Tag, class Kernel>
__global__ void __launch_bounds__(Kernel::MaxThreadsPerBlock, Kernel::MinBlocksPerMultiprocessor)
    cutlass_sm90_gemm(const __grid_constant__ typename Kernel::Params params) {
  extern __shared__ char smem[];
  Kernel op;
  op(params, smem);
}

inline void check_cutlass(cutlass::Status status, const char* what) {
  if (status != cutlass::Status::kSuccess)
    throw Error(std::string("CUTLASS ") + what + ": " + cutlassGetStatusString(status));
}

// A packed stride of the kernel's stride type: the leading dimension in its one dynamic mode,
// the batch stride (one batch here) in the last.
template <class Stride>
Stride packed_stride(long long leading, long long batch) {
  Stride s{};
  if constexpr (cute::is_static_v<cute::remove_cvref_t<decltype(cute::get<0>(s))>>) cute::get<1>(s) = leading;
  else cute::get<0>(s) = leading;
  cute::get<2>(s) = batch;
  return s;
}

// kScaled: alpha is read from device memory, as FP8 GEMMs take the product of A's and B's
// per-tensor scales (1 here); else alpha = 1 is a kernel argument.
template <class Tag, class Kernel, bool kScaled = false>
class Sm90Call final : public CutlassGemm {
 public:
  Sm90Call(const void* a, const void* b, void* d, Shape s, const DeviceInfo& device) {
    using EA = typename Kernel::ElementA;
    using EB = typename Kernel::ElementB;
    using ED = typename Kernel::ElementD;
    typename Kernel::Arguments args{};
    args.mode = cutlass::gemm::GemmUniversalMode::kGemm;
    args.problem_shape = {int(s.m), int(s.n), int(s.k), 1};
    args.mainloop.ptr_A = static_cast<const EA*>(a);
    args.mainloop.dA = packed_stride<typename Kernel::StrideA>(s.k, s.m * s.k);
    args.mainloop.ptr_B = static_cast<const EB*>(b);
    args.mainloop.dB = packed_stride<typename Kernel::StrideB>(s.k, s.n * s.k);
    args.epilogue.ptr_D = static_cast<ED*>(d);
    args.epilogue.dD = packed_stride<typename Kernel::StrideD>(s.m, s.m * s.n);
    args.epilogue.dC = args.epilogue.dD;
    args.epilogue.thread.alpha = 1;
    args.epilogue.thread.beta = 0;
    if constexpr (kScaled) {
      alpha_ = DeviceBuffer<float>(1);
      alpha_.from_host({1.f});
      args.epilogue.thread.alpha_ptr = alpha_.get();
    }
    args.hw_info.device_id = device.index;
    args.hw_info.sm_count = device.sm_count;
    if (!Kernel::can_implement(args))
      throw SkipProbe("CUTLASS cannot implement this kernel for M=" + std::to_string(s.m) + " N=" +
                      std::to_string(s.n) + " K=" + std::to_string(s.k));
    workspace_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(Kernel::get_workspace_size(args), 1));
    check_cutlass(Kernel::initialize_workspace(args, workspace_.get()), "initialize_workspace");
    params_ = Kernel::to_underlying_arguments(args, workspace_.get());
    shape_.grid = Kernel::get_grid_shape(params_);
    shape_.block = Kernel::get_block_shape();
    shape_.shared_bytes = Kernel::SharedStorageSize;
    using Cluster = typename Kernel::ClusterShape;
    static_assert(cute::size<1>(Cluster{}) == 1 && cute::size<2>(Cluster{}) == 1, "launch_ex clusters along x only");
    attrs_.cluster = cute::size<0>(Cluster{});
    allow_cluster_launch(cutlass_sm90_gemm<Tag, Kernel>, shape_.shared_bytes);
  }
  void operator()(ProbeContext& ctx) override {
    launch_ex(ctx, cutlass_sm90_gemm<Tag, Kernel>, shape_, attrs_, params_);
  }

 private:
  typename Kernel::Params params_{};
  LaunchShape shape_;
  LaunchAttrs attrs_;
  DeviceBuffer<unsigned char> workspace_;
  DeviceBuffer<float> alpha_;
};

// --- CUTLASS 2.x: multistage cp.async main loop, warp-level mma.sync (FP64: DMMA) --------------

template <class Tag, class Kernel>
__global__ void __launch_bounds__(Kernel::kThreadCount) cutlass_2x_gemm(const typename Kernel::Params params) {
  extern __shared__ char smem[];
  Kernel op;
  op(params, *reinterpret_cast<typename Kernel::SharedStorage*>(smem));
}

// The 2.x kernel writes a row-major C: the probe's column-major D = A^T B is computed as its
// transpose D^T = B^T A, with B^T (N x K) row-major and A (K x M) column-major, both K-major.
template <class Tag, class Kernel>
class Cutlass2xCall final : public CutlassGemm {
 public:
  Cutlass2xCall(const void* a, const void* b, void* d, Shape s, const DeviceInfo&) {
    using RefA = typename Kernel::Mma::IteratorA::TensorRef;
    using RefB = typename Kernel::Mma::IteratorB::TensorRef;
    using RefC = typename Kernel::Epilogue::OutputTileIterator::TensorRef;
    using TB = typename Kernel::Mma::Shape;
    const cutlass::gemm::GemmCoord problem(int(s.n), int(s.m), int(s.k));
    typename Kernel::ThreadblockSwizzle swizzle;
    const cutlass::gemm::GemmCoord tiles = swizzle.get_tiled_shape(problem, {TB::kM, TB::kN, TB::kK}, 1);
    const RefA ra(static_cast<typename RefA::Element*>(const_cast<void*>(b)), int(s.k));
    const RefB rb(static_cast<typename RefB::Element*>(const_cast<void*>(a)), int(s.k));
    const RefC rc(static_cast<typename RefC::Element*>(d), int(s.m));
    if (Kernel::can_implement(problem, ra, rb, rc, rc) != cutlass::Status::kSuccess)
      throw SkipProbe("CUTLASS cannot implement this kernel for M=" + std::to_string(s.m) + " N=" +
                      std::to_string(s.n) + " K=" + std::to_string(s.k));
    params_ = typename Kernel::Params(problem, tiles, ra, rb, rc, rc, {1.0, 0.0});
    shape_.grid = swizzle.get_grid_shape(tiles);
    shape_.block = dim3(Kernel::kThreadCount);
    shape_.shared_bytes = sizeof(typename Kernel::SharedStorage);
    GD_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(cutlass_2x_gemm<Tag, Kernel>),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, int(shape_.shared_bytes)));
  }
  void operator()(ProbeContext& ctx) override { launch(ctx, cutlass_2x_gemm<Tag, Kernel>, shape_, params_); }

 private:
  typename Kernel::Params params_{};
  LaunchShape shape_;
};

// A CutlassKernel::prepare for a call type.
template <class Call>
std::unique_ptr<CutlassGemm> prepare_call(const void* a, const void* b, void* d, Shape s, const DeviceInfo& device) {
  return std::make_unique<Call>(a, b, d, s, device);
}

}  // namespace gd::gemm
