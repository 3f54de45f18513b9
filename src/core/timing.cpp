#include "core/timing.hpp"

#include <chrono>

namespace gd {

double steady_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double clock_mhz(std::span<const RegionTiming> timings) {
  double cycles = 0, ns = 0;
  for (const auto& t : timings) {
    cycles += double(t.cycles);
    ns += double(t.ns);
  }
  return ns > 0 ? cycles / ns * 1e3 : 0.0;
}

}  // namespace gd
