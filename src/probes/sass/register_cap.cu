// The most registers one thread may have: a kernel that keeps more values live than any thread
// can hold asks ptxas for more, gets the cap, and spills the rest to local memory. The count
// comes from the driver (cudaFuncGetAttributes), the proof that the kernel wanted more from its
// SASS (it must hold STL and LDL), and the kernel runs and is checked, so the count is the one of
// code that executes. A kernel author's budget before occupancy math starts.
#include <cmath>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/registry.hpp"

namespace gd {
namespace probe_register_cap {

constexpr int kLive = 320;    // values live across every trip: more than 255 registers hold
constexpr int kStride = 7;    // each value mixes in the one kStride places on (wrapping)
constexpr int kTrips = 4;

// One update of every value, in order (a wrapped neighbour may already be this trip's): the same
// arithmetic on host and device, exact (the 0.25 product is a power-of-two scaling, then one fma).
__host__ __device__ inline float mix(float self, float other) { return fmaf(self, 0.5f, other * 0.25f); }

__global__ void __launch_bounds__(32, 1) register_cap_kernel(const float* in, float* out, int trips) {
  float v[kLive];
#pragma unroll
  for (int i = 0; i < kLive; ++i) v[i] = in[i] + float(threadIdx.x);
#pragma unroll 1
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int i = 0; i < kLive; ++i) v[i] = mix(v[i], v[(i + kStride) % kLive]);
  }
#pragma unroll
  for (int i = 0; i < kLive; ++i) out[threadIdx.x * kLive + i] = v[i];
}

std::vector<float> host_reference(const std::vector<float>& in, int lane) {
  std::vector<float> v(kLive);
  for (int i = 0; i < kLive; ++i) v[i] = in[i] + float(lane);
  for (int t = 0; t < kTrips; ++t)
    for (int i = 0; i < kLive; ++i) v[i] = mix(v[i], v[(i + kStride) % kLive]);
  return v;
}

void run_register_cap(ProbeContext& ctx) {
  ctx.no_sm_clock("nothing is timed: the figure is the register count of a kernel that ran");
  std::vector<float> in(kLive);
  for (int i = 0; i < kLive; ++i) in[i] = float(i % 17) - 8.0f;
  DeviceBuffer<float> d_in(kLive), d_out(std::size_t(32) * kLive);
  d_in.from_host(in);
  launch(ctx, register_cap_kernel, LaunchShape{1, 32}, d_in.get(), d_out.get(), kTrips);
  GD_CUDA_CHECK_LAUNCH();
  const std::vector<float> got = d_out.to_host();
  for (int lane : {0, 31}) {
    const std::vector<float> want = host_reference(in, lane);
    for (int i = 0; i < kLive; ++i)
      if (got[std::size_t(lane) * kLive + i] != want[i])
        throw Error("register_cap_kernel: lane " + std::to_string(lane) + " value " + std::to_string(i) +
                    " differs from the host reference: the spilled values did not survive");
  }
  cudaFuncAttributes attr{};
  GD_CUDA_CHECK(cudaFuncGetAttributes(&attr, register_cap_kernel));
  ctx.metric("registers/max_per_thread", double(attr.numRegs));
  ctx.metric("registers/spill_bytes_per_thread", double(attr.localSizeBytes));
  ctx.extra()["method"] = "cudaFuncGetAttributes(numRegs) of a kernel keeping " + std::to_string(kLive) +
                          " floats live across a loop (__launch_bounds__(32, 1): no occupancy limit), whose SASS spills "
                          "to local memory; it ran and matched the host reference";
}

ProbeSpec register_cap_spec() {
  ProbeSpec s;
  s.id = "sass.register_cap";
  s.description = "registers per thread ptxas gives a kernel that needs more than the cap (it spills), read back from "
                  "the driver after the kernel ran";
  // The spill is the point: no forbidden opcodes, and STL/LDL required.
  s.sass = {expect_sass("*register_cap_kernel*", SassRegion::Whole, {{"STL", 1, -1}, {"LDL", 1, -1}}, {})};
  s.metrics = {{"registers/max_per_thread", "registers", "numRegs of the kernel that wanted more: the per-thread cap"},
               {"registers/spill_bytes_per_thread", "bytes", "local memory per thread for what did not fit"}};
  s.covers = {{"platform.registers.max_per_thread", "registers/max_per_thread", {}}};
  s.run = run_register_cap;
  s.time_cap_s = 2;
  s.quick_time_cap_s = 1;
  return s;
}

GD_REGISTER_PROBE(register_cap_spec());

}  // namespace probe_register_cap
}  // namespace gd
