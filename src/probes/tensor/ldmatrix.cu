// ldmatrix / stmatrix (x1, x2, x4, plain and .trans) and movmatrix: dependent latency and
// throughput per SM: what feeding mma.sync fragments from shared memory costs a kernel.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "analysis/chain.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/ptx.cuh"
#include "core/ptx_mma.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "rate_sweep.hpp"

namespace gd {
namespace probe_ldmatrix {

enum class Kind { Load, Store, Move };

// One variant: step(addr, x) runs the instruction once and returns the next x. Loads and moves
// feed their result into the next step's address or operand (a dependent chain); stores cannot,
// so their step only issues (throughput; no latency).
template <Kind K, int N, bool Trans>
struct MatrixOp {
  static constexpr Kind kind = K;
  static constexpr int count = N;
  static constexpr bool trans = Trans;
  __device__ __forceinline__ static uint32_t step(uint32_t addr, uint32_t x) {
    if constexpr (K == Kind::Load) {
      uint32_t r[N];
      ptx::ldmatrix<N, Trans>(r, addr + x);
      return r[0];  // the shared data is zero, so the next address is the same row
    } else if constexpr (K == Kind::Store) {
      uint32_t r[N];
#pragma unroll
      for (int i = 0; i < N; ++i) r[i] = x;
      ptx::stmatrix<N, Trans>(addr, r);
      return x;
    } else {
      return ptx::movmatrix_trans(x);
    }
  }
};

constexpr int kPerTrip = 16;
constexpr int kRegionBytes = 512;  // one x4's 32 rows of 16 bytes
constexpr int kMaxIlp = 4;

// Lane l addresses row l of its stream's region (x1 and x2 read the first 8 and 16). The region
// is zero-filled from a run-time zero, so a load's result adds nothing to the next address.
template <class Op, int Ilp>
__global__ void matrix_kernel(uint32_t* out, RegionTiming* timing, int trips, uint32_t zero) {
  __shared__ __align__(16) uint32_t smem[kMaxIlp * kRegionBytes / 4];
  for (int i = threadIdx.x; i < kMaxIlp * kRegionBytes / 4; i += blockDim.x) smem[i] = zero;
  __syncthreads();
  const uint32_t lane = threadIdx.x % 32, base = uint32_t(__cvta_generic_to_shared(smem));
  uint32_t addr[Ilp], x[Ilp];
#pragma unroll
  for (int k = 0; k < Ilp; ++k) {
    addr[k] = base + k * kRegionBytes + lane * 16;
    x[k] = zero ^ (Op::kind == Kind::Move ? lane * 0x00010001u : 0u);
  }
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int j = 0; j < kPerTrip / Ilp; ++j)
#pragma unroll
      for (int k = 0; k < Ilp; ++k) x[k] = Op::step(addr[k], x[k]);
  }
  __syncthreads();
  const RegionTiming tm = clock.end();
  uint32_t sum = 0;
#pragma unroll
  for (int k = 0; k < Ilp; ++k) sum ^= x[k];
  if ((threadIdx.x == 0 && blockIdx.x == 0) || sum == 0x7ff0deadu) out[0] = sum;
  if (threadIdx.x == 0) timing[blockIdx.x] = tm;
}

template <class Op>
using MatrixKernel = void (*)(uint32_t*, RegionTiming*, int, uint32_t);
template <class Op>
MatrixKernel<Op> matrix_kernel_for(int ilp) {
  if (ilp == 1) return matrix_kernel<Op, 1>;
  if (ilp == kMaxIlp) return matrix_kernel<Op, kMaxIlp>;
  throw Error("matrix ops: ilp must be 1 or 4; got " + std::to_string(ilp));
}

template <class Op>
void run_matrix(ProbeContext& ctx) {
  DeviceBuffer<uint32_t> out(1);
  if (Op::kind != Kind::Store) {
    const std::vector<std::int64_t> lengths{16 * kPerTrip, 32 * kPerTrip, 64 * kPerTrip, 128 * kPerTrip};
    RepeatPolicy lat_policy;
    lat_policy.min_samples = 3;
    lat_policy.time_cap_s = ctx.quick() ? 0.1 : 0.3;
    const ChainLatency lat = measure_launched_chain(
        ctx, lengths,
        [&](std::int64_t steps, RegionTiming* timing) {
          launch(ctx, matrix_kernel_for<Op>(1), {1, 32}, out.get(), timing, int(steps / kPerTrip), 0u);
        },
        lat_policy);
    emit_chain_latency(ctx, lat);
    if (Op::kind == Kind::Move) {
      // movmatrix.trans twice is the identity: the chain's result is the lanes' start values.
      const uint32_t got = out.to_host()[0];
      if (got != 0) throw Error("movmatrix chain result " + std::to_string(got) + " is not its start (0 for lane 0)");
    }
  }
  const DeviceInfo& dev = ctx.device();
  DeviceBuffer<RegionTiming> timing(dev.sm_count);
  const std::vector<int> warps = ctx.quick() ? std::vector<int>{8, 32} : std::vector<int>{4, 8, 16, 32};
  const tensor::RateSweep sw = tensor::sweep_rate(
      ctx, {1, kMaxIlp}, warps, kPerTrip, 50000,
      [&](int, int w) -> std::string {
        return w <= dev.max_warps_per_sm && w * 32 <= dev.max_threads_per_block ? "" : "more warps than a block holds";
      },
      [&](int ilp, int w, int trips) {
        launch(ctx, matrix_kernel_for<Op>(ilp), {unsigned(dev.sm_count), unsigned(w * 32)}, out.get(), timing.get(),
               trips, 0u);
        GD_CUDA_CHECK_LAUNCH();
        return timing.to_host();
      });
  const Summary& best = sw.best;
  const ThroughputKnee& k = sw.knee;
  ctx.metric("throughput/per_clk_per_sm", best);
  ctx.metric("throughput/bytes_per_clk_per_sm", best.median * Op::count * 128);
  ctx.metric("interval/cycles", 4 / best.median);
  ctx.metric("knee/warps_per_sm", k.warps_knee);
  ctx.extra()["sweep"] = sw.grid;
}

template <class Op>
ProbeSpec matrix_spec(const std::string& name, const std::string& opcode, int min_cc, std::vector<SeedCover> covers) {
  ProbeSpec s;
  s.id = "tensor.matrix." + name;
  s.description = name + ": " + (Op::kind == Kind::Store ? "" : "dependent latency, ") +
                  "throughput per SM over warps x independent streams";
  s.needs.min_cc = min_cc;
  const std::string glob = "*matrix_kernel<*" + std::string(Op::kind == Kind::Load ? "Kind)0" : Op::kind == Kind::Store ? "Kind)1" : "Kind)2") +
                           ", " + std::to_string(Op::count) + ", " + (Op::trans ? "true" : "false") + ">, ";
  for (int ilp : {1, kMaxIlp})
    s.sass.push_back(expect_sass(glob + std::to_string(ilp) + ">*", SassRegion::Clocked, {{opcode, kPerTrip}}));
  if (Op::kind != Kind::Store) s.metrics = chain_latency_metrics("cycles from the result to the dependent instruction (loads: plus one IADD3 for the address)");
  s.metrics.push_back({"throughput/per_clk_per_sm", "instr/clk", "warp-level instructions per clock per SM at the best point"});
  s.metrics.push_back({"throughput/bytes_per_clk_per_sm", "B/clk", "128 bytes per 8x8 b16 matrix"});
  s.metrics.push_back({"interval/cycles", "cycles", "cycles between instructions on one SM sub-partition at the plateau"});
  s.metrics.push_back({"knee/warps_per_sm", "warps", "fewest warps per SM reaching 95 % of the plateau"});
  s.views = {bars_view("throughput/per_clk_per_sm")};
  s.covers = std::move(covers);
  s.run = run_matrix<Op>;
  s.time_cap_s = 3;
  s.quick_time_cap_s = 1;
  return s;
}

[[maybe_unused]] const bool registered = [] {
  const std::vector<SeedCover> x4{{"tensor.ldmatrix.x4.latency", "latency/cycles", {}},
                                  {"tensor.ldmatrix.x4.throughput", "interval/cycles", {}}};
  ProbeRegistration{matrix_spec<MatrixOp<Kind::Load, 1, false>>("ldmatrix.x1", "LDSM.16.M88", 80, {})};
  ProbeRegistration{matrix_spec<MatrixOp<Kind::Load, 2, false>>("ldmatrix.x2", "LDSM.16.M88.2", 80, {})};
  ProbeRegistration{matrix_spec<MatrixOp<Kind::Load, 4, false>>("ldmatrix.x4", "LDSM.16.M88.4", 80, x4)};
  ProbeRegistration{matrix_spec<MatrixOp<Kind::Load, 1, true>>("ldmatrix.x1.trans", "LDSM.16.MT88", 80, {})};
  ProbeRegistration{matrix_spec<MatrixOp<Kind::Load, 2, true>>("ldmatrix.x2.trans", "LDSM.16.MT88.2", 80, {})};
  ProbeRegistration{matrix_spec<MatrixOp<Kind::Load, 4, true>>("ldmatrix.x4.trans", "LDSM.16.MT88.4", 80, {})};
  ProbeRegistration{matrix_spec<MatrixOp<Kind::Store, 1, false>>("stmatrix.x1", "STSM.16.M88", 90, {})};
  ProbeRegistration{matrix_spec<MatrixOp<Kind::Store, 2, false>>("stmatrix.x2", "STSM.16.M88.2", 90, {})};
  ProbeRegistration{matrix_spec<MatrixOp<Kind::Store, 4, false>>("stmatrix.x4", "STSM.16.M88.4", 90, {})};
  ProbeRegistration{matrix_spec<MatrixOp<Kind::Store, 1, true>>("stmatrix.x1.trans", "STSM.16.MT88", 90, {})};
  ProbeRegistration{matrix_spec<MatrixOp<Kind::Store, 2, true>>("stmatrix.x2.trans", "STSM.16.MT88.2", 90, {})};
  ProbeRegistration{matrix_spec<MatrixOp<Kind::Store, 4, true>>("stmatrix.x4.trans", "STSM.16.MT88.4", 90, {})};
  ProbeRegistration{matrix_spec<MatrixOp<Kind::Move, 1, true>>("movmatrix.trans", "MOVM.16.MT88", 80, {})};
  return true;
}();

}  // namespace probe_ldmatrix
}  // namespace gd
