// Constant-cache latency: a warp chases indices through a __constant__ table, with every lane on
// one address (uniform) or on 2..32 distinct ones; the working set walks the constant-cache levels
// and the distinct count shows how divergent constant indices serialize.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/chain.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"

namespace gd {
namespace probe_constant_cache {

constexpr int kTableWords = 16384;  // 64 KiB: all a kernel may declare
constexpr int kConstUnroll = 8;
__constant__ unsigned gd_const_table[kTableWords];

// Lane l starts at start[l] and follows table[i] (each the next index); lanes sharing a start
// share every address. Lane 0's clock times the chain.
__global__ void __launch_bounds__(32) const_chase_kernel(const unsigned* start, int steps, RegionTiming* timing,
                                                         unsigned* sink) {
  unsigned i = start[threadIdx.x];
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int s = 0; s < steps; s += kConstUnroll) {
#pragma unroll
    for (int k = 0; k < kConstUnroll; ++k) i = gd_const_table[i];
  }
  const RegionTiming t = clock.end();
  if (threadIdx.x == 0) timing[0] = t;
  if (i == 0xffffffffu) sink[0] = i;  // keeps the chain; no index is that large
}

void run_constant(ProbeContext& ctx) {
  const std::int64_t bytes = ctx.int_param("bytes");
  const std::int64_t distinct = ctx.int_param("distinct");
  if (bytes < 256 || bytes > kTableWords * 4 || bytes % 256) throw UserError("bytes must be a multiple of 256 up to 65536");
  if (distinct < 1 || distinct > 32 || (distinct & (distinct - 1))) throw UserError("distinct must be a power of two from 1 to 32");
  // The table is one cycle over the working set with a 64-byte step (a new line each load): it
  // walks the words of residue class 0 mod 16, then class 1, and so on, back to word 0.
  const unsigned n = unsigned(bytes / 4), step = 16, per_class = n / step;
  std::vector<unsigned> table(kTableWords, 0);
  for (unsigned i = 0; i < n; ++i) table[i] = i + step < n ? i + step : (i + step - n + 1) % step;
  const auto at_position = [&](unsigned p) { return (p % per_class) * step + p / per_class; };
  GD_CUDA_CHECK(cudaMemcpyToSymbol(gd_const_table, table.data(), table.size() * sizeof(unsigned)));
  // Lanes of one group start n / distinct positions apart along the cycle and stay that far apart.
  std::vector<unsigned> start(32);
  for (unsigned l = 0; l < 32; ++l) start[l] = at_position(unsigned((l % distinct) * (n / distinct)));
  DeviceBuffer<unsigned> start_dev(32), sink(1);
  start_dev.from_host(start);
  const std::vector<std::int64_t> lengths{256, 512, 1024};
  emit_chain_latency(ctx, measure_launched_chain(ctx, lengths, [&](std::int64_t steps, RegionTiming* timing) {
    launch(ctx, const_chase_kernel, {1, 32}, start_dev.get(), int(steps), timing, sink.get());
    GD_CUDA_CHECK_LAUNCH();
  }));
  ctx.extra()["addresses_per_load"] = distinct;
}

ProbeSpec constant_spec() {
  ProbeSpec s;
  s.id = "memory.latency.constant";
  s.description = "constant-cache load latency (LDC chase) vs working set, uniform vs 2..32 distinct addresses per warp";
  s.axes = {std::move(Axis::list("bytes", {1024, 4096, 16384, 65536})).quick({1024, 65536}),
            std::move(Axis::list("distinct", {1, 2, 4, 8, 32})).quick({1, 32})};
  s.sass = {expect_sass("*const_chase_kernel*", SassRegion::Clocked, {{"LDC", kConstUnroll, -1}}, {"LDL", "STL", "LDG"})};
  s.metrics = chain_latency_metrics("latency of one dependent constant load (LDC) of the warp");
  s.views = {line_view("bytes", "latency/cycles", "distinct")};
  s.run = run_constant;
  s.time_cap_s = 6;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(constant_spec());

}  // namespace probe_constant_cache
}  // namespace gd
