// The dependent-chain latency measurement of one instruction-catalog row (alu_catalog.cuh):
// its chain kernel at several lengths, the host reference check, and the slope. latency/alu.cu
// times every row with it; other latency probes reuse it for rows they compare.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "alu_catalog.cuh"
#include "analysis/chain.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/timing.cuh"

namespace gd::alu_chain {

// Chain lengths differ by how many dependent ops one loop trip holds (the unroll), at a fixed
// trip count: the loop's own cost per trip is then the same for every length and falls into
// the intercept with the clock reads, instead of adding overhead/unroll to the slope.
constexpr int kTrips = 64;
constexpr int kUnrolls[] = {32, 64, 128, 256};

// x starts from memory, one value per lane: a kernel parameter would be warp-uniform, and
// ptxas then runs integer chains on the uniform datapath (UIADD3, UPOPC), not the one named.
template <class Op, int Unroll>
__global__ void alu_chain_kernel(typename Op::T* out, RegionTiming* timing, const typename Op::T* x0,
                                 typename Op::T a, typename Op::T b, int trips) {
  typename Op::T x = x0[threadIdx.x];
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < trips; ++i) {
#pragma unroll
    for (int j = 0; j < Unroll; ++j) x = Op::step(x, a, b);
  }
  const RegionTiming t = clock.end();
  if (threadIdx.x == 0) {
    out[0] = x;
    timing[0] = t;
  }
}

// Why a device result is not the host reference's, or empty when it is.
template <class Op>
std::string reference_mismatch(typename Op::T got, typename Op::T want) {
  using T = typename Op::T;
  if constexpr (Op::tolerance.exact()) {
    if (std::memcmp(&got, &want, sizeof(T)) == 0) return {};
  } else {
    const double g = double(got), w = double(want);
    if (std::isfinite(g) && std::abs(g - w) <= Op::tolerance.abs + Op::tolerance.rel * std::abs(w)) return {};
  }
  const auto show = [](T v) {
    if constexpr (std::is_floating_point_v<T>) return std::to_string(v);
    else return std::to_string(static_cast<unsigned long long>(v));
  };
  return "chain result " + show(got) + " differs from the host reference " + show(want) +
         (Op::tolerance.exact() ? " (bit-exact expected)" : " (beyond the tolerance)") +
         ": the timed code is not the chain";
}

template <class Op>
void run_alu_latency(ProbeContext& ctx) {
  using T = typename Op::T;
  alu_catalog::Rng rng(std::random_device{}());
  const auto [x0, a, b] = Op::inputs(rng);
  constexpr int kLanes = 32;
  DeviceBuffer<T> in(kLanes);
  in.from_host(std::vector<T>(kLanes, x0));
  DeviceBuffer<T> out(1);
  DeviceBuffer<RegionTiming> timing(1);
  const auto run_chain = [&](std::int64_t steps) {
    const int unroll = int(steps / kTrips);
    const auto go = [&](auto kernel) { launch(ctx, kernel, {1, kLanes}, out.get(), timing.get(), in.get(), a, b, kTrips); };
    switch (unroll) {
      case kUnrolls[0]: go(alu_chain_kernel<Op, kUnrolls[0]>); break;
      case kUnrolls[1]: go(alu_chain_kernel<Op, kUnrolls[1]>); break;
      case kUnrolls[2]: go(alu_chain_kernel<Op, kUnrolls[2]>); break;
      case kUnrolls[3]: go(alu_chain_kernel<Op, kUnrolls[3]>); break;
      default: throw Error("no chain kernel with " + std::to_string(unroll) + " ops per trip");
    }
    GD_CUDA_CHECK_LAUNCH();
    T expected = x0;
    for (std::int64_t i = 0; i < steps; ++i) expected = Op::step(expected, a, b);
    if (const std::string why = reference_mismatch<Op>(out.to_host()[0], expected); !why.empty()) throw Error(why);
    return timing.to_host()[0];
  };
  std::vector<std::int64_t> lengths;
  for (int u : kUnrolls) lengths.push_back(std::int64_t(kTrips) * u);
  emit_chain_latency(ctx, measure_chain_latency(ctx, lengths, run_chain));
}

// The SASS a row's chain kernels must hold: one expectation per chain length, each instantiation
// holding its own unroll of the named ops. "::Tag, " so that a tag never matches inside a longer
// one (Fadd in Dadd).
template <class Op>
std::vector<SassExpectation> chain_latency_sass() {
  std::vector<SassExpectation> out;
  for (int u : kUnrolls)
    out.push_back(alu_catalog::chain_sass<Op>(std::string("*alu_chain_kernel<*::") + Op::tag + ", " + std::to_string(u) + ">*", u));
  return out;
}

// latency.alu.<row>: the row's chain latency, without seed covers (the caller adds them).
template <class Op>
ProbeSpec chain_latency_spec() {
  ProbeSpec s;
  s.id = std::string("latency.alu.") + Op::name;
  s.description = std::string("dependent-chain latency of ") + Op::description + " (slope over chain lengths, one warp)";
  s.needs = alu_catalog::requirements<Op>();
  s.sass = chain_latency_sass<Op>();
  s.metrics = chain_latency_metrics("cycles from a result to its dependent use");
  s.views = {bars_view("latency/cycles")};  // one bar per variant of the family
  s.run = run_alu_latency<Op>;
  s.time_cap_s = 3;
  s.quick_time_cap_s = 1;
  return s;
}

}  // namespace gd::alu_chain
