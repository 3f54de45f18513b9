// Shared by the memory probes: picking a compile-time instantiation from a run-time axis value,
// and the SASS opcode names of an access width.
#pragma once
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "analysis/sm_rate.hpp"
#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "core/probe.hpp"
#include "core/timing.hpp"

namespace gd::memory {

// Calls f(std::integral_constant<int, V>) for the value of `v` among Vs; throws gd::Error naming
// `what` for a value that was not instantiated.
template <int... Vs, class F>
void with_value(int v, const char* what, F&& f) {
  bool hit = false;
  ((v == Vs ? (f(std::integral_constant<int, Vs>{}), hit = true) : false), ...);
  if (!hit) throw Error(std::string("unsupported ") + what + " " + std::to_string(v));
}

// "", ".64", ".128": the width modifier of LDG/STG/LDS for 4, 8, 16 bytes.
inline std::string width_suffix(int w) { return w == 4 ? "" : w == 8 ? ".64" : ".128"; }

// A pattern for a narrow access also matches the wider opcodes (modifiers are a subsequence),
// so an expectation for width w forbids op.64 / op.128 where wider; plus `more`, LDL and STL.
inline std::vector<std::string> forbid_wider(const std::string& op, int w, std::vector<std::string> more = {}) {
  if (w < 8) more.push_back(op + ".64");
  if (w < 16) more.push_back(op + ".128");
  more.push_back("LDL");
  more.push_back("STL");
  return more;
}

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

}  // namespace gd::memory
