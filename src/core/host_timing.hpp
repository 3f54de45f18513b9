// Host-timed measurements: the host's steady clock around work that returns only when it is done
// (a copy and its stream's synchronize, a batch of launches), repeated through the point's
// adaptive policy. For what users wait for on the host, or spans no event brackets (two devices).
#pragma once
#include <functional>

#include "core/probe.hpp"
#include "core/timing.hpp"

namespace gd {

// Each sample times one call of work() and reports value_of(seconds).
inline RepeatResult measure_host_timed(ProbeContext& ctx, const std::function<void()>& work,
                                       const std::function<double(double seconds)>& value_of,
                                       const RepeatPolicy& policy) {
  return ctx.measure(
      [&] {
        const double t0 = steady_now_s();
        work();
        return value_of(steady_now_s() - t0);
      },
      policy);
}

// Microseconds per call of one(i), over `calls` calls timed together (one() synchronizes what
// it must; finish() runs once after the batch, inside the timing).
inline Summary host_us_per_call(ProbeContext& ctx, int calls, const std::function<void(int)>& one,
                                const std::function<void()>& finish, const RepeatPolicy& policy) {
  return measure_host_timed(
             ctx,
             [&] {
               for (int i = 0; i < calls; ++i) one(i);
               finish();
             },
             [&](double s) { return s / calls * 1e6; }, policy)
      .summary;
}

}  // namespace gd
