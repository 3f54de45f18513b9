#include "core/power_monitor.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "core/timing.hpp"

namespace gd {

double PowerTrace::mean_power_w() const {
  if (power_w.empty()) return std::nan("");
  return std::accumulate(power_w.begin(), power_w.end(), 0.0) / double(power_w.size());
}

double PowerTrace::energy_power_w() const {
  return energy_j && duration_s > 0 ? *energy_j / duration_s : std::nan("");
}

double PowerTrace::mean_sm_clock_mhz() const {
  if (sm_clock_mhz.empty()) return std::nan("");
  return std::accumulate(sm_clock_mhz.begin(), sm_clock_mhz.end(), 0.0) / double(sm_clock_mhz.size());
}

double PowerTrace::min_sm_clock_mhz() const {
  return sm_clock_mhz.empty() ? std::nan("") : *std::min_element(sm_clock_mhz.begin(), sm_clock_mhz.end());
}

double PowerTrace::max_power_w() const {
  return power_w.empty() ? std::nan("") : *std::max_element(power_w.begin(), power_w.end());
}

nlohmann::json PowerTrace::summary() const {
  nlohmann::json j;
  j["interval_s"] = interval_s;
  j["duration_s"] = duration_s;
  j["samples"] = power_w.size();
  j["power_source"] = power_source;
  j["mean_power_w"] = mean_power_w();
  j["mean_power_from"] = "samples";
  if (energy_j) {
    j["energy_j"] = *energy_j;
    j["energy_counter_power_w"] = energy_power_w();
  }
  j["max_sample_power_w"] = max_power_w();
  j["mean_sm_clock_mhz"] = mean_sm_clock_mhz();
  j["min_sm_clock_mhz"] = min_sm_clock_mhz();
  if (!temperature_c.empty()) j["max_temperature_c"] = *std::max_element(temperature_c.begin(), temperature_c.end());
  j["power_limit_w"] = power_limit_w;
  j["throttled_by"] = throttled_by;
  return j;
}

PowerTrace PowerTrace::within(std::span<const std::pair<double, double>> windows) const {
  PowerTrace w;
  w.interval_s = interval_s;
  w.power_source = power_source;
  w.throttled_by = throttled_by;
  w.power_limit_w = power_limit_w;
  for (const auto& [begin, end] : windows) {
    if (!(end >= begin)) throw std::invalid_argument("PowerTrace::within: a window ends before it begins");
    w.duration_s += end - begin;
  }
  for (std::size_t i = 0; i < t_s.size(); ++i) {
    const bool inside = std::any_of(windows.begin(), windows.end(),
                                    [&](const auto& win) { return t_s[i] >= win.first && t_s[i] <= win.second; });
    if (!inside) continue;
    w.t_s.push_back(t_s[i]);
    if (i < power_w.size()) w.power_w.push_back(power_w[i]);
    if (i < sm_clock_mhz.size()) w.sm_clock_mhz.push_back(sm_clock_mhz[i]);
    if (i < temperature_c.size()) w.temperature_c.push_back(temperature_c[i]);
  }
  return w;
}

bool PowerMonitor::available(const std::string& pci_bus_id, std::string& why) {
  if (read_power(pci_bus_id)) return true;
  why = "NVML cannot read this GPU's power (library missing or no device at PCI " + pci_bus_id + ")";
  return false;
}

PowerMonitor::PowerMonitor(std::string pci_bus_id, double interval_s) : pci_(std::move(pci_bus_id)) {
  trace_.interval_s = interval_s;
  std::string why;
  if (const auto n = read_nvml(pci_, why)) trace_.power_limit_w = n->power_limit_w;
  throttle0_ = read_throttle_counters(pci_);
  t0_ = steady_now_s();
  if (const auto r = read_power(pci_)) energy0_mj_ = r->energy_mj;
  sample(t0_);
  thread_ = std::thread([this, interval_s] {
    const auto period = std::chrono::duration<double>(interval_s);
    auto next = std::chrono::steady_clock::now() + period;
    while (!stop_.load()) {
      std::this_thread::sleep_until(next);
      next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
      sample(t0_);
    }
  });
}

PowerMonitor::~PowerMonitor() {
  if (!stopped_) stop();
}

void PowerMonitor::sample(double t0) {
  const auto r = read_power(pci_);
  if (!r) return;
  trace_.t_s.push_back(steady_now_s() - t0);
  trace_.power_w.push_back(r->power_w);
  trace_.sm_clock_mhz.push_back(r->sm_clock_mhz);
  trace_.temperature_c.push_back(r->temperature_c);
  trace_.power_source = r->power_source;
}

PowerTrace PowerMonitor::stop() {
  if (stopped_) return trace_;
  stop_.store(true);
  thread_.join();
  stopped_ = true;
  sample(t0_);
  trace_.duration_s = steady_now_s() - t0_;
  if (const auto r = read_power(pci_); r && r->energy_mj && energy0_mj_ && *r->energy_mj >= *energy0_mj_)
    trace_.energy_j = double(*r->energy_mj - *energy0_mj_) / 1000.0;
  if (throttle0_)
    if (const auto after = read_throttle_counters(pci_))
      for (const auto& [name, ns] : throttle_between(*throttle0_, *after)) trace_.throttled_by.push_back(name);
  return trace_;
}

}  // namespace gd
