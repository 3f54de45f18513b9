// Independent streams of one catalog row (latency/alu_catalog.cuh) across warps: the shared
// kernels and host driver behind compute.alu.* (throughput), compute.peak.fp32 and pipes.*
// (interference, co-issue). One row table serves latency and throughput alike.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/throughput.hpp"
#include "core/device_buffer.hpp"
#include "core/kernel_table.hpp"
#include "core/launch.cuh"
#include "core/timing.cuh"
#include "../latency/alu_catalog.cuh"

namespace gd::alu_streams {

using alu_catalog::Rng;

// Steps of one row per thread per loop trip: Ilp chains of Op::steps_per_trip / Ilp steps each.
template <class Op, int Ilp>
constexpr int unroll() {
  return std::max(1, Op::steps_per_trip / Ilp);
}
template <class Op, int Ilp>
constexpr int steps_per_trip() {
  return unroll<Op, Ilp>() * Ilp;
}

// Inputs: chain k of every lane starts from x0[lane * Ilp + k]; the host fills all lanes of a
// chain with one value (warp-level rows need equal lanes). Results: thread 0 of block 0 stores
// its chains; any other thread stores only when a chain hits `b` exactly, which keeps every
// thread's work live without racing thread 0's slots.
template <class Op, int Ilp, int Unroll = unroll<Op, Ilp>()>
__device__ __forceinline__ void run_streams(typename Op::T (&x)[Ilp], typename Op::T a, typename Op::T b, int trips) {
#pragma unroll 1
  for (int i = 0; i < trips; ++i) {
#pragma unroll
    for (int j = 0; j < Unroll; ++j) {
#pragma unroll
      for (int k = 0; k < Ilp; ++k) x[k] = Op::step(x[k], a, b);
    }
  }
}

template <class Op, int Ilp>
__device__ __forceinline__ void store_streams(typename Op::T (&x)[Ilp], typename Op::T* out, typename Op::T b) {
#pragma unroll
  for (int k = 0; k < Ilp; ++k) {
    if (threadIdx.x == 0 && blockIdx.x == 0) out[k] = x[k];
    else if (x[k] == b) out[Ilp] = x[k];
  }
}

template <class Op, int Ilp>
__device__ __forceinline__ void load_streams(typename Op::T (&x)[Ilp], const typename Op::T* x0) {
#pragma unroll
  for (int k = 0; k < Ilp; ++k) x[k] = x0[(threadIdx.x % 32) * Ilp + k];
}

// One block per SM, every warp running Ilp independent chains; thread 0 times the block.
template <class Op, int Ilp>
__global__ void alu_stream_kernel(typename Op::T* out, RegionTiming* timing, const typename Op::T* x0,
                                  typename Op::T a, typename Op::T b, int trips) {
  typename Op::T x[Ilp];
  load_streams<Op, Ilp>(x, x0);
  __syncthreads();
  RegionClock clock;
  clock.begin();
  run_streams<Op, Ilp>(x, a, b, trips);
  __syncthreads();  // the block's time covers its slowest warp
  const RegionTiming t = clock.end();
  store_streams<Op, Ilp>(x, out, b);
  if (threadIdx.x == 0) timing[blockIdx.x] = t;
}

// Fills x0 for Ilp chains (each chain its own start, equal over lanes) and returns {a, b}.
template <class Op>
std::pair<typename Op::T, typename Op::T> stream_inputs(Rng& rng, int ilp, std::vector<typename Op::T>& x0) {
  const auto [first, a, b] = Op::inputs(rng);
  std::vector<typename Op::T> start(ilp);
  start[0] = first;
  for (int k = 1; k < ilp; ++k) start[k] = Op::inputs(rng)[0];
  x0.resize(32 * std::size_t(ilp));
  for (int lane = 0; lane < 32; ++lane)
    for (int k = 0; k < ilp; ++k) x0[lane * ilp + k] = start[k];
  return {a, b};
}

// Why a device chain is not the host reference's, or "" when it is (alu_catalog::Tolerance).
template <class Op>
std::string chain_mismatch(typename Op::T got, typename Op::T start, typename Op::T a, typename Op::T b,
                           std::int64_t steps) {
  using T = typename Op::T;
  T want = start;
  for (std::int64_t i = 0; i < steps; ++i) want = Op::step(want, a, b);
  if constexpr (Op::tolerance.exact()) {
    if (std::memcmp(&got, &want, sizeof(T)) == 0) return {};
  } else {
    const double g = double(got), w = double(want);
    if (std::isfinite(g) && std::abs(g - w) <= Op::tolerance.abs + Op::tolerance.rel * std::abs(w)) return {};
  }
  return std::string("stream result of ") + Op::name + " differs from the host reference after " +
         std::to_string(steps) + " steps: the timed code is not the row's step";
}

// The stream kernel for a run-time ILP; nullptr for one not instantiated.
inline constexpr int kIlps[] = {1, 2, 4, 8};
template <class Op>
using StreamKernel = void (*)(typename Op::T*, RegionTiming*, const typename Op::T*, typename Op::T, typename Op::T, int);
template <class Op>
StreamKernel<Op> stream_kernel_for(int ilp) {
  switch (ilp) {
    case kIlps[0]: return alu_stream_kernel<Op, kIlps[0]>;
    case kIlps[1]: return alu_stream_kernel<Op, kIlps[1]>;
    case kIlps[2]: return alu_stream_kernel<Op, kIlps[2]>;
    case kIlps[3]: return alu_stream_kernel<Op, kIlps[3]>;
    default: return nullptr;
  }
}
template <class Op>
int stream_steps_per_trip(int ilp) {
  switch (ilp) {
    case kIlps[0]: return steps_per_trip<Op, kIlps[0]>();
    case kIlps[1]: return steps_per_trip<Op, kIlps[1]>();
    case kIlps[2]: return steps_per_trip<Op, kIlps[2]>();
    case kIlps[3]: return steps_per_trip<Op, kIlps[3]>();
    default: return 0;
  }
}

// What Op's stream kernel at `ilp` must hold: the steps of one loop trip. "::Tag, " so that a
// tag never matches inside a longer one.
template <class Op>
SassExpectation stream_sass(int ilp) {
  return alu_catalog::chain_sass<Op>(std::string("*alu_stream_kernel<*::") + Op::tag + ", " + std::to_string(ilp) + ">*",
                                     stream_steps_per_trip<Op>(ilp));
}

// A measured stream rate: steps (thread-level results of the row) per clock per SM.
struct StreamRate {
  Summary rate;
  double clock_mhz = 0;
  int trips = 0;
};

// Runs Op's streams at (ilp, warps per SM), one block per SM, for about `target_cycles` per
// launch (trips calibrated from a first launch), repeated through ctx.measure. The first sample
// is checked against the host reference. Skips the point the device cannot hold.
// blocks_per_sm > 1 splits the warps over that many blocks (for more warps than one block holds).
template <class Op>
StreamRate measure_stream_rate(ProbeContext& ctx, int ilp, int warps, double target_cycles, RepeatPolicy policy = {},
                               int blocks_per_sm = 1) {
  using T = typename Op::T;
  const StreamKernel<Op> kernel = stream_kernel_for<Op>(ilp);
  if (!kernel) throw Error("ilp must be one of 1, 2, 4, 8; got " + std::to_string(ilp));
  const DeviceInfo& d = ctx.device();
  if (warps < 1) throw Error("warps_per_sm must be positive");
  if (blocks_per_sm < 1 || warps % blocks_per_sm) throw Error("warps must split evenly over the blocks per SM");
  const int threads = warps / blocks_per_sm * 32;
  if (warps > d.max_warps_per_sm || threads > d.max_threads_per_block)
    ctx.skip(std::to_string(warps) + " warps per SM in " + std::to_string(blocks_per_sm) +
             " block(s) exceed what the device holds");
  const int blocks = d.sm_count * blocks_per_sm;
  Rng rng(std::random_device{}());
  std::vector<T> x0;
  const auto [a, b] = stream_inputs<Op>(rng, ilp, x0);
  DeviceBuffer<T> in(x0.size());
  in.from_host(x0);
  DeviceBuffer<T> out(std::size_t(ilp) + 1);
  DeviceBuffer<RegionTiming> timing(blocks);
  const double steps_per_trip_thread = stream_steps_per_trip<Op>(ilp);
  const auto run = [&](int trips) {
    launch(ctx, kernel, {unsigned(blocks), unsigned(threads)}, out.get(), timing.get(), in.get(), a, b, trips);
    GD_CUDA_CHECK_LAUNCH();
    return timing.to_host();
  };
  // Calibrate: two trips, then as many as reach the target (at least 2).
  const auto probe = run(2);
  std::vector<double> cyc;
  for (const auto& t : probe) cyc.push_back(double(t.cycles));
  const double per_trip = std::max(1.0, summarize(cyc).median / 2);
  const int trips = std::clamp(int(target_cycles / per_trip), 2, 1 << 20);
  const double work = steps_per_trip_thread * trips * threads;

  bool checked = false;
  std::vector<RegionTiming> all;
  const auto sample = [&] {
    const auto t = run(trips);
    if (!checked) {
      const auto got = out.to_host();
      const std::int64_t steps = std::int64_t(trips) * (std::int64_t(steps_per_trip_thread) / ilp);
      for (int k : {0, ilp - 1})
        if (const std::string why = chain_mismatch<Op>(got[k], x0[k], a, b, steps); !why.empty()) throw Error(why);
      checked = true;
    }
    all.insert(all.end(), t.begin(), t.end());
    return per_sm_rate(t, work);
  };
  StreamRate r;
  r.rate = ctx.measure(sample, policy).summary;
  r.clock_mhz = clock_mhz(all);
  r.trips = trips;
  return r;
}

// --- two rows side by side in one block (pipes.*) ---------------------------------------------
// Warps alternate in groups of four between the two sides, so each scheduler (warp id mod 4)
// holds warps of both. Side X is the row under test, side Y one of the pipe references, chosen
// at run time so one kernel per row covers every reference.
// FFMA issues every clock, so no stream beside it is judged (see judge_interference); IMAD,
// which Hopper executes on the FMA-heavy half alone at half rate, is the FMA pipe's decisive
// reference. The tensor reference is the pure HMMA chain (mma_f16_f16), not the f32-accumulate
// row, whose C-operand copies load the FMA-heavy pipe.
using PipeRefs = std::tuple<alu_catalog::Lop3, alu_catalog::Ffma, alu_catalog::Imad, alu_catalog::Dfma,
                            alu_catalog::MufuEx2, alu_catalog::ShflIdx, alu_catalog::HmmaF16, alu_catalog::F64F32,
                            alu_catalog::SrSmid>;
// The pipe class each reference stands for (analysis/throughput.hpp pipe_classes order).
inline const char* const kRefClasses[] = {"INT", "FP32", "FMAheavy", "FP64", "SFU", "LSU", "tensor", "conversion", "uniform"};
inline constexpr int kPairIlp = 4;
inline constexpr int kPairUnroll = 16;  // 64 steps per trip: a pair kernel holds ten loops

// The ILP-4 stream kernel of a row, which the pipes' families launch alone beside their pair
// kernels. For a catalog row compute/alu_throughput.cu instantiates it for its own sweep and
// registers it (register_pair_stream_kernel); the other families look it up rather than compile
// it again (core/kernel_table.hpp). A row outside the catalog (pipes/pipe_rows.cuh) has its own.
template <class Op>
std::string pair_stream_key() {
  return std::string("alu_stream_kernel<") + Op::tag + ", " + std::to_string(kPairIlp) + ">";
}
template <class Op>
void register_pair_stream_kernel() {
  register_kernel(pair_stream_key<Op>(), reinterpret_cast<const void*>(alu_stream_kernel<Op, kPairIlp>));
}
template <class Op>
StreamKernel<Op> pair_stream_kernel() {
  if constexpr (alu_catalog::kInCatalog<Op>)
    return reinterpret_cast<StreamKernel<Op>>(const_cast<void*>(registered_kernel(pair_stream_key<Op>())));
  else
    return alu_stream_kernel<Op, kPairIlp>;
}

struct PairSide {
  const void* x0 = nullptr;   // 32 lanes x kPairIlp values of the side's type
  void* out = nullptr;        // kPairIlp + 1 values
  unsigned long long a = 0, b = 0;  // operands, as the type's bits
  int trips = 0;
  int active = 0;             // warps of this side that run (of half the block)
};

template <class T>
__host__ __device__ __forceinline__ T from_bits(unsigned long long bits) {
  T v;
  memcpy(&v, &bits, sizeof(T));
  return v;
}
template <class T>
unsigned long long to_bits(T v) {
  unsigned long long bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  return bits;
}

// One side's chains, timed. `first`: the side's first thread of block 0, which stores its
// chains for the host to check; any other thread stores only on hitting `b` (keeps work live).
// The row under test (`Marked`) opens its region after a marker, so the verifier counts its
// code apart from the references' in the same kernel.
template <class Op, bool Marked = false>
__device__ __forceinline__ RegionTiming pair_side(const PairSide& s, bool first) {
  using T = typename Op::T;
  T x[kPairIlp];
  load_streams<Op, kPairIlp>(x, static_cast<const T*>(s.x0));
  const T a = from_bits<T>(s.a), b = from_bits<T>(s.b);
  RegionClock clock;
  if constexpr (Marked) clock.begin_marked();
  else clock.begin();
  run_streams<Op, kPairIlp, std::max(1, Op::steps_per_trip * kPairUnroll / 256)>(x, a, b, s.trips);
  const RegionTiming t = clock.end();
  T* out = static_cast<T*>(s.out);
#pragma unroll
  for (int k = 0; k < kPairIlp; ++k) {
    if (first) out[k] = x[k];
    else if (x[k] == b) out[kPairIlp] = x[k];
  }
  return t;
}
template <class Op>
constexpr int pair_steps_per_trip() {
  return std::max(1, Op::steps_per_trip * kPairUnroll / 256) * kPairIlp;
}

template <class Y, class... Rest>
__device__ __forceinline__ RegionTiming pair_ref_side(int ref, const PairSide& s, bool first) {
  if (ref == 0 || sizeof...(Rest) == 0) return pair_side<Y>(s, first);
  if constexpr (sizeof...(Rest) > 0) return pair_ref_side<Rest...>(ref - 1, s, first);
  return {};
}
template <class... R>
__device__ __forceinline__ RegionTiming pair_refs(int ref, const PairSide& s, bool first, std::tuple<R...>*) {
  return pair_ref_side<R...>(ref, s, first);
}

// timing[block * warps + warp], written by each warp's lane 0; idle warps write 0 cycles.
template <class X>
__global__ void alu_pair_kernel(RegionTiming* timing, PairSide xs, PairSide ys, int y_ref) {
  const int w = threadIdx.x / 32;
  const bool y_side = (w / 4) % 2 != 0;
  const int index = (w / 8) * 4 + w % 4;  // among this side's warps
  const bool first = blockIdx.x == 0 && index == 0 && threadIdx.x % 32 == 0;
  RegionTiming t{};
  if (!y_side && index < xs.active) t = pair_side<X, true>(xs, first);
  else if (y_side && index < ys.active) t = pair_refs(y_ref, ys, first, static_cast<PipeRefs*>(nullptr));
  if (threadIdx.x % 32 == 0) timing[blockIdx.x * (blockDim.x / 32) + w] = t;
}

// What the pair kernel of row X must hold: X's steps of one trip in X's own (marked) region,
// which the references' regions beside it cannot stand in for.
template <class X>
SassExpectation pair_sass() {
  return alu_catalog::chain_sass<X>(std::string("*alu_pair_kernel<*::") + X::tag + ">*", pair_steps_per_trip<X>(),
                                    SassRegion::Marked);
}

}  // namespace gd::alu_streams
