// Latency as the slope of cycles over dependent-chain length (DESIGN rule 2), shared by every
// latency probe: the fixed cost of clock reads, loop entry and launch falls into the intercept.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "analysis/fit.hpp"
#include "core/probe.hpp"
#include "core/timing.hpp"

namespace gd {

struct ChainLatency {
  Summary per_step;   // cycles per dependent step, over repeated fits
  LineFit worst_fit;  // the fit with the lowest r2, reported so a noisy slope is visible
  double clock_mhz = 0;
};

// Runs the chain at each length (steps), fits cycles over steps, and repeats the whole fit
// adaptively through ctx.measure. run_chain returns the kernel's timed region for one length.
// Sets the context's observed SM clock from the timed regions themselves. The policy's warm-up
// fits are left out of worst_fit and clock_mhz, as the repetition leaves them out of per_step.
// Throws gd::Error with fewer than 3 distinct lengths: a line through two points always fits.
ChainLatency measure_chain_latency(ProbeContext& ctx, std::span<const std::int64_t> lengths,
                                   const std::function<RegionTiming(std::int64_t steps)>& run_chain,
                                   const RepeatPolicy& policy = {});

// The common case: each chain is one kernel launch that writes its timed region to timing[0], a
// device buffer this function owns; launch_chain enqueues that launch.
ChainLatency measure_launched_chain(ProbeContext& ctx, std::span<const std::int64_t> lengths,
                                    const std::function<void(std::int64_t steps, RegionTiming* timing)>& launch_chain,
                                    const RepeatPolicy& policy = {});

// The same chain counted per instruction, for a chain whose step is `instructions` dependent
// instructions (one loop iteration of several wgmma): every statistic of the per-step cycles and
// the fit's slope divided; the intercept (a launch's fixed cost) kept. Throws gd::Error below 1.
ChainLatency per_instruction(ChainLatency lat, int instructions);

// The metrics emit_chain_latency reports, for a probe's spec; `what` says what one step is.
std::vector<MetricSpec> chain_latency_metrics(const std::string& what);

// Emits latency/cycles, latency/ns and the fit details into the context.
void emit_chain_latency(ProbeContext& ctx, const ChainLatency& lat);

}  // namespace gd
