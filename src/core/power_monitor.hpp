// NVML power, SM clock and energy sampled on a host thread while GPU work runs: what the board
// drew and how fast it clocked during a measurement. Observes only; never sets a clock or limit.
#pragma once
#include <atomic>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/json.hpp"

#include "core/nvml.hpp"

namespace gd {

// What a monitor saw between its start and stop().
struct PowerTrace {
  double interval_s = 0;   // requested sampling interval
  double duration_s = 0;   // start to stop, host steady clock
  std::string power_source;  // "instant" or "averaged" (core/nvml.hpp read_power)
  std::vector<double> t_s;   // seconds since start, one per sample
  std::vector<double> power_w, sm_clock_mhz, temperature_c;
  std::optional<double> energy_j;   // the energy counter's advance, where the board has one
  std::vector<std::string> throttled_by;  // NVML throttle reasons whose counters advanced
  double power_limit_w = 0;

  // The samples' mean: the instantaneous readings come every interval, whereas the energy
  // counter advances in steps of about 100 ms, too coarse for a window under a few seconds.
  double mean_power_w() const;
  // Energy counter advance over duration, where the board has the counter; NaN otherwise.
  double energy_power_w() const;
  double mean_sm_clock_mhz() const;
  double min_sm_clock_mhz() const;
  double max_power_w() const;
  // Interval, duration, sample count, the means, energy and throttling, for a record's extra.
  nlohmann::json summary() const;
  // The samples taken inside any of `windows` ([begin, end] in t_s's seconds), for a measurement
  // whose timed work is interleaved with idle (GEMM groups after a rest): the means then describe
  // the work, not the pauses. The energy counter cannot be split, so the result has none; its
  // duration is the windows' total. Throws std::invalid_argument on a window that ends before it begins.
  PowerTrace within(std::span<const std::pair<double, double>> windows) const;
};

// Samples read_power() every interval_s from construction until stop() (or destruction).
class PowerMonitor {
 public:
  PowerMonitor(std::string pci_bus_id, double interval_s);
  ~PowerMonitor();
  PowerMonitor(const PowerMonitor&) = delete;
  PowerMonitor& operator=(const PowerMonitor&) = delete;

  // Whether NVML can read power on this device; `why` says what is missing when not.
  static bool available(const std::string& pci_bus_id, std::string& why);
  // Stops sampling and returns the trace (at least the start and stop readings).
  PowerTrace stop();
  // The host steady-clock time (core/timing.hpp steady_now_s) the trace's t_s counts from.
  double start_s() const { return t0_; }

 private:
  void sample(double t0);
  std::string pci_;
  PowerTrace trace_;
  std::optional<unsigned long long> energy0_mj_;
  std::optional<ThrottleCounters> throttle0_;
  double t0_ = 0;
  std::atomic<bool> stop_{false};
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace gd
