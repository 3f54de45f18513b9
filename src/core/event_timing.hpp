// Host-timed measurements: CUDA events around a launch, repeated through the point's adaptive
// policy. Used where the work is a whole grid (or a copy engine), not an in-kernel region.
#pragma once
#include <functional>

#include "core/device_buffer.hpp"
#include "core/probe.hpp"

namespace gd {

// Each sample times one launch() with events and reports value_of(seconds) (for example
// bytes / seconds). The launch must enqueue its work on the default stream and return.
inline RepeatResult measure_event_timed(ProbeContext& ctx, const std::function<void()>& launch,
                                        const std::function<double(double seconds)>& value_of,
                                        const RepeatPolicy& policy) {
  EventTimer timer;
  return ctx.measure(
      [&] {
        timer.start();
        launch();
        return value_of(timer.stop_ms() * 1e-3);
      },
      policy);
}

}  // namespace gd
