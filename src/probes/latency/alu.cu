// Dependent-chain latency of the basic ALU operations (FFMA, IADD3, IMAD, LOP3): the number of
// cycles a kernel author must hide with independent work between a result and its use.
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <string>
#include <vector>

#include "analysis/chain.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/ptx.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"

namespace gd {
namespace {

// Chain lengths differ by how many dependent ops one loop trip holds (the unroll), at a fixed
// trip count: the loop's own cost per trip is then the same for every length and falls into
// the intercept with the clock reads, instead of adding overhead/unroll to the slope.
constexpr int kTrips = 64;
constexpr int kUnrolls[] = {32, 64, 128, 256};

// Each op: one dependent step, the same function on host and device (outputs are checked).
struct FfmaStep {
  using T = float;
  __host__ __device__ static T step(T x, T a, T b) { return ptx::ffma(x, a, b); }
};
struct Iadd3Step {
  using T = uint32_t;
  __host__ __device__ static T step(T x, T a, T b) { return ptx::iadd3(x, a, b); }
};
struct ImadStep {
  using T = uint32_t;
  __host__ __device__ static T step(T x, T a, T b) { return ptx::imad(x, a, b); }
};
struct Lop3Step {
  using T = uint32_t;
  __host__ __device__ static T step(T x, T a, T b) { return ptx::lop3_xor3(x, a, b); }
};

template <class Op, int Unroll>
__global__ void alu_chain_kernel(typename Op::T* out, RegionTiming* timing, typename Op::T x0,
                                 typename Op::T a, typename Op::T b, int trips) {
  typename Op::T x = x0;
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

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class Op>
void run_alu_latency(ProbeContext& ctx) {
  using T = typename Op::T;
  std::mt19937_64 rng(std::random_device{}());
  // Values stay finite and non-trivial: a in (0.5, 1) keeps an FFMA chain from overflowing.
  std::uniform_real_distribution<float> real(0.5f, 1.0f);
  const T x0 = std::is_floating_point_v<T> ? T(real(rng)) : T(rng());
  const T a = std::is_floating_point_v<T> ? T(real(rng)) : T(rng() | 1);
  const T b = std::is_floating_point_v<T> ? T(real(rng)) : T(rng());

  DeviceBuffer<T> out(1);
  DeviceBuffer<RegionTiming> timing(1);
  const auto run_chain = [&](std::int64_t steps) {
    const int unroll = int(steps / kTrips);
    const auto go = [&](auto kernel) { launch(ctx, kernel, {1, 32}, out.get(), timing.get(), x0, a, b, kTrips); };
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
    if (!same_bits(out.to_host()[0], expected))
      throw Error("chain result differs from the host reference: the timed code is not the chain");
    return timing.to_host()[0];
  };
  std::vector<std::int64_t> lengths;
  for (int u : kUnrolls) lengths.push_back(std::int64_t(kTrips) * u);
  emit_chain_latency(ctx, measure_chain_latency(ctx, lengths, run_chain));
}

template <class Op>
ProbeSpec alu_latency_spec(const std::string& name, const std::string& opcode, const std::string& kernel_tag) {
  ProbeSpec s;
  s.id = "latency.alu." + name;
  s.description = "dependent-chain latency of " + opcode + " (slope over chain lengths, one warp)";
  // One expectation per chain length: each instantiation holds its own unroll of the named op.
  for (int u : kUnrolls)
    s.sass.push_back(expect_sass("*alu_chain_kernel<*" + kernel_tag + ", " + std::to_string(u) + ">*",
                                 SassRegion::Clocked, {{opcode, u, -1}}));
  s.metrics = chain_latency_metrics("cycles from a result to its dependent use");
  s.run = run_alu_latency<Op>;
  s.time_cap_s = 3;
  s.quick_time_cap_s = 1;
  return s;
}

GD_REGISTER_PROBE(alu_latency_spec<FfmaStep>("ffma", "FFMA", "FfmaStep"));
GD_REGISTER_PROBE(alu_latency_spec<Iadd3Step>("iadd3", "IADD3", "Iadd3Step"));
GD_REGISTER_PROBE(alu_latency_spec<ImadStep>("imad", "IMAD", "ImadStep"));
GD_REGISTER_PROBE(alu_latency_spec<Lop3Step>("lop3", "LOP3.LUT", "Lop3Step"));

}  // namespace
}  // namespace gd
