// Shared by the newer memory probes: a random single-cycle permutation for pointer chases, and
// the per-SM rate measurement of the bandwidth probes (repeated launches, median over SMs).
#pragma once
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "analysis/sm_rate.hpp"
#include "core/device_buffer.hpp"
#include "core/probe.hpp"
#include "core/timing.hpp"

namespace gd::memory {

// Repeats `launch_once` (a launch whose blocks each write their RegionTiming into `timing`)
// through ctx.measure; a sample is the median over SMs of bytes per SM clock (each block moving
// bytes_per_block). Sets the point's observed SM clock from the last launch and returns the
// samples' summary with that clock.
struct SmRateResult {
  Summary bytes_per_clock;
  double mhz = 0;
};
template <class Launch>
SmRateResult measure_sm_rate(ProbeContext& ctx, DeviceBuffer<RegionTiming>& timing, double bytes_per_block,
                             Launch&& launch_once) {
  std::vector<RegionTiming> last;
  const RepeatResult r = ctx.measure([&] {
    launch_once();
    last = timing.to_host();
    std::vector<double> rates;
    for (const SmRate& s : per_sm_rates(last, bytes_per_block)) rates.push_back(s.bytes_per_clock);
    return summarize(rates).median;
  });
  const double mhz = clock_mhz(last);
  ctx.set_observed_sm_clock_mhz(mhz, "clock64 over %globaltimer, thread 0 of every block of the last launch");
  return {r.summary, mhz};
}

// Sattolo's algorithm: next[i] is the line after i in a uniformly random permutation that is one
// cycle over all n lines, so a chase through next visits every line before it repeats.
inline std::vector<std::uint32_t> random_cycle(std::size_t n, std::mt19937_64& rng) {
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  for (std::size_t i = n - 1; i > 0; --i) {
    std::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  std::vector<std::uint32_t> next(n);
  for (std::size_t i = 0; i < n; ++i) next[order[i]] = order[(i + 1) % n];
  return next;
}

// The L2's read lookups from the SMs, hits and misses: what `run --ncu` collects for the probes whose
// answer is where L2 stops holding a footprint.
inline std::vector<std::string> l2_read_lookup_metrics() {
  return {"lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"};
}

}  // namespace gd::memory
