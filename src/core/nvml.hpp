// NVML opened at run time: a machine without libnvidia-ml still runs the suite, with clocks
// and power reported as unknown.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/device.hpp"

namespace gd {

// Reads NVML's view of the device with this PCI bus id. On failure returns nullopt and
// sets `why` (library missing, init failed, device not found).
std::optional<DeviceInfo::Nvml> read_nvml(const std::string& pci_bus_id, std::string& why);

// Cumulative nanoseconds NVML says the clocks were held down, per reason ("power_cap",
// "sw_thermal", "hw_thermal", "hw_power_brake", "sync_boost", "board_limit", "reliability");
// a reason the driver does not report is absent. nullopt when NVML is unavailable.
using ThrottleCounters = std::map<std::string, unsigned long long>;
std::optional<ThrottleCounters> read_throttle_counters(const std::string& pci_bus_id);
// The reasons whose counters advanced from `before` to `after`, with the nanoseconds.
ThrottleCounters throttle_between(const ThrottleCounters& before, const ThrottleCounters& after);

// How two GPUs are linked, as NVML sees it: NVLink peer-to-peer, and the nearest common
// ancestor on the PCIe tree. nullopt when NVML (or these queries) are unavailable.
struct PeerLink {
  bool nvlink = false;
  std::string common_ancestor;  // "one PCIe switch", "host bridge", ...; empty if unknown
};
std::optional<PeerLink> read_peer_link(const std::string& pci_bus_a, const std::string& pci_bus_b);
// The settings a run must not change and the clocks that move with load, by name, for the GPU
// state guard (core/gpu_state.hpp); a value the driver does not report is absent. nullopt when
// NVML is unavailable or has no device at this PCI bus id.
struct NvmlSettings {
  std::map<std::string, nlohmann::json> settings, observed;
};
std::optional<NvmlSettings> read_nvml_settings(const std::string& pci_bus_id);

// One reading for power traces (core/power_monitor.hpp): board power in W (instantaneous
// where the driver reports it, else its averaged figure; power_source says which), the SM
// clock, the GPU temperature, and the energy counter (mJ since driver load) where present.
// nullopt when NVML is unavailable or has no device at this PCI bus id.
struct PowerReading {
  double power_w = 0;
  std::string power_source;
  unsigned sm_clock_mhz = 0;
  unsigned temperature_c = 0;
  std::optional<unsigned long long> energy_mj;
};
std::optional<PowerReading> read_power(const std::string& pci_bus_id);

// A process with a context on the device, as NVML lists it. The pid is in the pid namespace of
// the driver's host, which may not be this process's (a container).
struct GpuProcess {
  unsigned pid = 0;
  unsigned long long used_memory_bytes = 0;  // 0 when NVML does not say
  std::string type;                          // "compute" or "graphics"
};
// The compute and graphics processes on the device (one entry per pid). nullopt when NVML, the
// device or these queries are unavailable.
std::optional<std::vector<GpuProcess>> read_gpu_processes(const std::string& pci_bus_id);

// How busy the GPU was: the highest utilization (percent of time a kernel ran) among NVML's
// samples taken after `since_us` (microseconds since the epoch, NVML's clock), and how many there
// were; where the driver keeps no samples, its current figure (one sample, source "current").
// nullopt when NVML cannot say.
struct Utilization {
  double max_pct = 0;
  int samples = 0;
  std::string source;  // "samples" or "current"
};
std::optional<Utilization> read_utilization_since(const std::string& pci_bus_id, unsigned long long since_us);

}  // namespace gd
