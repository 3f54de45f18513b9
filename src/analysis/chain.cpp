#include "analysis/chain.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/error.hpp"

namespace gd {

namespace {

// Any two points lie exactly on a line, so a fit over two lengths always has r2 = 1 and says
// nothing about how straight the chain really is; the third length is what makes r2 a check.
constexpr std::size_t kMinChainLengths = 3;

void require_enough_lengths(std::span<const std::int64_t> lengths) {
  const std::set<std::int64_t> distinct(lengths.begin(), lengths.end());
  if (distinct.size() < kMinChainLengths)
    throw Error("measure_chain_latency: needs at least " + std::to_string(kMinChainLengths) +
                " distinct chain lengths so that the fit's r2 can show a bent line; got " +
                std::to_string(distinct.size()));
}

// The fit with the lowest r2. A NaN r2 (timings with no variance at all) counts as worst:
// it is never a sign of a good measurement.
LineFit worst_of(std::span<const LineFit> fits) {
  LineFit worst;
  worst.r2 = 2;
  for (const LineFit& f : fits)
    if (!(f.r2 >= worst.r2)) worst = f;
  return worst;
}

}  // namespace

ChainLatency measure_chain_latency(ProbeContext& ctx, std::span<const std::int64_t> lengths,
                                   const std::function<RegionTiming(std::int64_t steps)>& run_chain,
                                   const RepeatPolicy& policy) {
  require_enough_lengths(lengths);
  std::vector<LineFit> fits;
  std::vector<RegionTiming> timings;  // lengths.size() per fit, in call order
  const auto one_fit = [&] {
    std::vector<double> x, y;
    for (std::int64_t steps : lengths) {
      const RegionTiming t = run_chain(steps);
      timings.push_back(t);
      x.push_back(double(steps));
      y.push_back(double(t.cycles));
    }
    fits.push_back(fit_chain_slope(x, y));
    return fits.back().slope;
  };
  const RepeatResult result = ctx.measure(one_fit, policy);
  // The first calls were the policy's warm-up, whose slopes the repetition discarded; their fit
  // quality and clock (cold caches, clocks still ramping) are left out the same way.
  const std::size_t kept = std::min(result.samples.size(), fits.size());
  const std::size_t warmup = fits.size() - kept;
  ChainLatency out;
  out.per_step = result.summary;
  out.worst_fit = worst_of(std::span(fits).subspan(warmup));
  out.clock_mhz = clock_mhz(std::span(timings).subspan(warmup * lengths.size()));
  if (out.clock_mhz > 0) ctx.set_observed_sm_clock_mhz(out.clock_mhz);
  return out;
}

ChainLatency measure_launched_chain(ProbeContext& ctx, std::span<const std::int64_t> lengths,
                                    const std::function<void(std::int64_t steps, RegionTiming* timing)>& launch_chain,
                                    const RepeatPolicy& policy) {
  DeviceBuffer<RegionTiming> timing(1);
  return measure_chain_latency(
      ctx, lengths,
      [&](std::int64_t steps) {
        launch_chain(steps, timing.get());
        return timing.to_host()[0];
      },
      policy);
}

namespace {
// Every statistic of a summary times `factor` (a change of unit), the sample count kept.
Summary scaled(Summary s, double factor) {
  for (double* v : {&s.median, &s.min, &s.max, &s.mean, &s.stddev}) *v *= factor;
  return s;
}
}  // namespace

ChainLatency per_instruction(ChainLatency lat, int instructions) {
  if (instructions < 1) throw Error("a chain step holds at least one instruction; got " + std::to_string(instructions));
  lat.per_step = scaled(lat.per_step, 1.0 / instructions);
  lat.worst_fit.slope /= instructions;
  return lat;
}

std::vector<MetricSpec> chain_latency_metrics(const std::string& what) {
  return {{"latency/cycles", "cycles", what},
          {"latency/ns", "ns", "the same at the observed SM clock"}};
}

void emit_chain_latency(ProbeContext& ctx, const ChainLatency& lat) {
  ctx.metric("latency/cycles", lat.per_step);
  const double mhz = ctx.observed_sm_clock_mhz();
  ctx.metric("latency/ns", scaled(lat.per_step, 1e3 / mhz));
  ctx.extra()["fit_worst_r2"] = lat.worst_fit.r2;
  ctx.extra()["fit_intercept_cycles"] = lat.worst_fit.intercept;
}

}  // namespace gd
