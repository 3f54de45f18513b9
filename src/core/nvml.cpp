#include "core/nvml.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <iterator>
#include <vector>
#include <mutex>

#include <nvml.h>

namespace gd {
namespace {

// Function pointers typed from the official header, so a signature change is a compile error.
struct NvmlApi {
  void* lib = nullptr;
  decltype(&nvmlInit_v2) init = nullptr;
  decltype(&nvmlErrorString) error_string = nullptr;
  decltype(&nvmlDeviceGetHandleByPciBusId_v2) by_pci = nullptr;
  decltype(&nvmlDeviceGetClockInfo) clock = nullptr;
  decltype(&nvmlDeviceGetMaxClockInfo) max_clock = nullptr;
  decltype(&nvmlDeviceGetPowerUsage) power = nullptr;
  decltype(&nvmlDeviceGetEnforcedPowerLimit) power_limit = nullptr;
  decltype(&nvmlDeviceGetTemperature) temperature = nullptr;
  decltype(&nvmlDeviceGetCurrPcieLinkGeneration) pcie_gen = nullptr;
  decltype(&nvmlDeviceGetCurrPcieLinkWidth) pcie_width = nullptr;
  decltype(&nvmlDeviceGetMaxPcieLinkGeneration) pcie_max_gen = nullptr;
  decltype(&nvmlDeviceGetMaxPcieLinkWidth) pcie_max_width = nullptr;
  decltype(&nvmlSystemGetDriverVersion) driver_version = nullptr;
  decltype(&nvmlDeviceGetFieldValues) field_values = nullptr;  // optional: throttle counters
  decltype(&nvmlDeviceGetP2PStatus) p2p_status = nullptr;      // optional: peer links
  decltype(&nvmlDeviceGetTopologyCommonAncestor) common_ancestor = nullptr;
  // Optional: the settings the GPU state guard compares.
  decltype(&nvmlDeviceGetClock) clock_by_id = nullptr;
  decltype(&nvmlDeviceGetPowerManagementLimit) power_management_limit = nullptr;
  decltype(&nvmlDeviceGetPersistenceMode) persistence_mode = nullptr;
  decltype(&nvmlDeviceGetComputeMode) compute_mode = nullptr;
  decltype(&nvmlDeviceGetTotalEnergyConsumption) energy = nullptr;  // optional: power traces
  // Optional: other tenants on the GPU (core/tenancy.hpp).
  decltype(&nvmlDeviceGetComputeRunningProcesses_v3) compute_processes = nullptr;
  decltype(&nvmlDeviceGetGraphicsRunningProcesses_v3) graphics_processes = nullptr;
  decltype(&nvmlDeviceGetSamples) samples = nullptr;
  decltype(&nvmlDeviceGetUtilizationRates) utilization = nullptr;
  std::string load_error;
};

template <class F>
bool bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

NvmlApi load_api() {
  NvmlApi api;
  api.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!api.lib) {
    api.load_error = std::string("libnvidia-ml.so.1 not loadable: ") + dlerror();
    return api;
  }
  const bool ok = bind(api.lib, "nvmlInit_v2", api.init) &&
                  bind(api.lib, "nvmlErrorString", api.error_string) &&
                  bind(api.lib, "nvmlDeviceGetHandleByPciBusId_v2", api.by_pci) &&
                  bind(api.lib, "nvmlDeviceGetClockInfo", api.clock) &&
                  bind(api.lib, "nvmlDeviceGetMaxClockInfo", api.max_clock) &&
                  bind(api.lib, "nvmlDeviceGetPowerUsage", api.power) &&
                  bind(api.lib, "nvmlDeviceGetEnforcedPowerLimit", api.power_limit) &&
                  bind(api.lib, "nvmlDeviceGetTemperature", api.temperature) &&
                  bind(api.lib, "nvmlDeviceGetCurrPcieLinkGeneration", api.pcie_gen) &&
                  bind(api.lib, "nvmlDeviceGetCurrPcieLinkWidth", api.pcie_width) &&
                  bind(api.lib, "nvmlDeviceGetMaxPcieLinkGeneration", api.pcie_max_gen) &&
                  bind(api.lib, "nvmlDeviceGetMaxPcieLinkWidth", api.pcie_max_width) &&
                  bind(api.lib, "nvmlSystemGetDriverVersion", api.driver_version);
  if (!ok) {
    api.load_error = "libnvidia-ml lacks a required symbol";
    api.lib = nullptr;
    return api;
  }
  bind(api.lib, "nvmlDeviceGetFieldValues", api.field_values);
  bind(api.lib, "nvmlDeviceGetP2PStatus", api.p2p_status);
  bind(api.lib, "nvmlDeviceGetTopologyCommonAncestor", api.common_ancestor);
  bind(api.lib, "nvmlDeviceGetClock", api.clock_by_id);
  bind(api.lib, "nvmlDeviceGetPowerManagementLimit", api.power_management_limit);
  bind(api.lib, "nvmlDeviceGetPersistenceMode", api.persistence_mode);
  bind(api.lib, "nvmlDeviceGetComputeMode", api.compute_mode);
  bind(api.lib, "nvmlDeviceGetTotalEnergyConsumption", api.energy);
  bind(api.lib, "nvmlDeviceGetComputeRunningProcesses_v3", api.compute_processes);
  bind(api.lib, "nvmlDeviceGetGraphicsRunningProcesses_v3", api.graphics_processes);
  bind(api.lib, "nvmlDeviceGetSamples", api.samples);
  bind(api.lib, "nvmlDeviceGetUtilizationRates", api.utilization);
  if (nvmlReturn_t rc = api.init(); rc != NVML_SUCCESS) {
    api.load_error = std::string("nvmlInit failed: ") + api.error_string(rc);
    api.lib = nullptr;
  }
  return api;
}

const NvmlApi& api() {
  static const NvmlApi instance = load_api();
  return instance;
}

// Reads one optional quantity: an unsupported query leaves the field at 0 (unknown).
template <class T, class F, class... Args>
T read_or_zero(F fn, Args... args) {
  T value{};
  if (fn(args..., &value) != NVML_SUCCESS) return T{};
  return value;
}

}  // namespace

std::optional<DeviceInfo::Nvml> read_nvml(const std::string& pci_bus_id, std::string& why) {
  const NvmlApi& nv = api();
  if (!nv.lib) {
    why = nv.load_error;
    return std::nullopt;
  }
  nvmlDevice_t dev;
  if (nvmlReturn_t rc = nv.by_pci(pci_bus_id.c_str(), &dev); rc != NVML_SUCCESS) {
    why = "NVML has no device at PCI " + pci_bus_id + ": " + nv.error_string(rc);
    return std::nullopt;
  }
  DeviceInfo::Nvml n;
  n.sm_clock_mhz = read_or_zero<unsigned>(nv.clock, dev, NVML_CLOCK_SM);
  n.mem_clock_mhz = read_or_zero<unsigned>(nv.clock, dev, NVML_CLOCK_MEM);
  n.max_sm_clock_mhz = read_or_zero<unsigned>(nv.max_clock, dev, NVML_CLOCK_SM);
  n.max_mem_clock_mhz = read_or_zero<unsigned>(nv.max_clock, dev, NVML_CLOCK_MEM);
  n.power_w = read_or_zero<unsigned>(nv.power, dev) / 1000.0;
  n.power_limit_w = read_or_zero<unsigned>(nv.power_limit, dev) / 1000.0;
  n.temperature_c = read_or_zero<unsigned>(nv.temperature, dev, NVML_TEMPERATURE_GPU);
  n.pcie_gen = int(read_or_zero<unsigned>(nv.pcie_gen, dev));
  n.pcie_width = int(read_or_zero<unsigned>(nv.pcie_width, dev));
  n.pcie_max_gen = int(read_or_zero<unsigned>(nv.pcie_max_gen, dev));
  n.pcie_max_width = int(read_or_zero<unsigned>(nv.pcie_max_width, dev));
  char version[96] = {};
  if (nv.driver_version(version, sizeof version) == NVML_SUCCESS) n.driver_version = version;
  why = "ok";
  return n;
}

namespace {

// The throttle counters (nanoseconds, cumulative) and the names gpudissect records them by.
const std::pair<unsigned, const char*> kThrottleFields[] = {
    {NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP, "power_cap"},
    {NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN, "sw_thermal"},
    {NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN, "hw_thermal"},
    {NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN, "hw_power_brake"},
    {NVML_FI_DEV_CLOCKS_EVENT_REASON_SYNC_BOOST, "sync_boost"},
    {NVML_FI_DEV_PERF_POLICY_BOARD_LIMIT, "board_limit"},
    {NVML_FI_DEV_PERF_POLICY_RELIABILITY, "reliability"},
};

unsigned long long as_u64(const nvmlFieldValue_t& v) {
  switch (v.valueType) {
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return v.value.ullVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return v.value.ulVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT: return v.value.uiVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return v.value.sllVal < 0 ? 0 : static_cast<unsigned long long>(v.value.sllVal);
    default: return 0;
  }
}

}  // namespace

std::optional<ThrottleCounters> read_throttle_counters(const std::string& pci_bus_id) {
  const NvmlApi& nv = api();
  if (!nv.lib || !nv.field_values) return std::nullopt;
  nvmlDevice_t dev;
  if (nv.by_pci(pci_bus_id.c_str(), &dev) != NVML_SUCCESS) return std::nullopt;
  constexpr int n = int(std::size(kThrottleFields));
  nvmlFieldValue_t values[n] = {};
  for (int i = 0; i < n; ++i) values[i].fieldId = kThrottleFields[i].first;
  if (nv.field_values(dev, n, values) != NVML_SUCCESS) return std::nullopt;
  ThrottleCounters out;
  for (int i = 0; i < n; ++i)
    if (values[i].nvmlReturn == NVML_SUCCESS) out[kThrottleFields[i].second] = as_u64(values[i]);
  return out;
}

ThrottleCounters throttle_between(const ThrottleCounters& before, const ThrottleCounters& after) {
  ThrottleCounters out;
  for (const auto& [name, ns] : after) {
    const auto it = before.find(name);
    if (it != before.end() && ns > it->second) out[name] = ns - it->second;
  }
  return out;
}

std::optional<PeerLink> read_peer_link(const std::string& bus_a, const std::string& bus_b) {
  const NvmlApi& nv = api();
  if (!nv.lib || !nv.p2p_status || !nv.common_ancestor) return std::nullopt;
  nvmlDevice_t a, b;
  if (nv.by_pci(bus_a.c_str(), &a) != NVML_SUCCESS || nv.by_pci(bus_b.c_str(), &b) != NVML_SUCCESS) return std::nullopt;
  PeerLink link;
  nvmlGpuP2PStatus_t st{};
  link.nvlink = nv.p2p_status(a, b, NVML_P2P_CAPS_INDEX_NVLINK, &st) == NVML_SUCCESS && st == NVML_P2P_STATUS_OK;
  nvmlGpuTopologyLevel_t level{};
  if (nv.common_ancestor(a, b, &level) == NVML_SUCCESS) {
    switch (level) {
      case NVML_TOPOLOGY_INTERNAL: link.common_ancestor = "same board"; break;
      case NVML_TOPOLOGY_SINGLE: link.common_ancestor = "one PCIe switch"; break;
      case NVML_TOPOLOGY_MULTIPLE: link.common_ancestor = "several PCIe switches"; break;
      case NVML_TOPOLOGY_HOSTBRIDGE: link.common_ancestor = "host bridge"; break;
      case NVML_TOPOLOGY_NODE: link.common_ancestor = "NUMA node"; break;
      case NVML_TOPOLOGY_SYSTEM: link.common_ancestor = "system (across CPU sockets)"; break;
      default: link.common_ancestor = "level " + std::to_string(int(level)); break;
    }
  }
  return link;
}

std::optional<NvmlSettings> read_nvml_settings(const std::string& pci_bus_id) {
  const NvmlApi& nv = api();
  if (!nv.lib) return std::nullopt;
  nvmlDevice_t dev;
  if (nv.by_pci(pci_bus_id.c_str(), &dev) != NVML_SUCCESS) return std::nullopt;
  NvmlSettings s;
  unsigned v = 0;
  const std::pair<nvmlClockType_t, const char*> clocks[] = {{NVML_CLOCK_SM, "sm"}, {NVML_CLOCK_MEM, "mem"}};
  for (const auto& [type, name] : clocks) {
    if (nv.clock(dev, type, &v) == NVML_SUCCESS) s.observed[std::string(name) + "_clock_mhz"] = v;
    if (!nv.clock_by_id) continue;
    const std::pair<nvmlClockId_t, const char*> ids[] = {{NVML_CLOCK_ID_APP_CLOCK_TARGET, "application"},
                                                         {NVML_CLOCK_ID_APP_CLOCK_DEFAULT, "default_application"},
                                                         {NVML_CLOCK_ID_CUSTOMER_BOOST_MAX, "customer_boost_max"}};
    for (const auto& [id, what] : ids)
      if (nv.clock_by_id(dev, type, id, &v) == NVML_SUCCESS) s.settings[std::string(what) + "_" + name + "_clock_mhz"] = v;
  }
  if (nv.power_limit(dev, &v) == NVML_SUCCESS) s.settings["enforced_power_limit_w"] = v / 1000.0;
  if (nv.power_management_limit && nv.power_management_limit(dev, &v) == NVML_SUCCESS)
    s.settings["power_limit_w"] = v / 1000.0;
  nvmlEnableState_t persistence;
  if (nv.persistence_mode && nv.persistence_mode(dev, &persistence) == NVML_SUCCESS)
    s.settings["persistence_mode"] = persistence == NVML_FEATURE_ENABLED ? "enabled" : "disabled";
  nvmlComputeMode_t mode;
  if (nv.compute_mode && nv.compute_mode(dev, &mode) == NVML_SUCCESS) {
    const char* names[] = {"default", "exclusive_thread", "prohibited", "exclusive_process"};
    s.settings["compute_mode"] = unsigned(mode) < 4 ? names[mode] : std::to_string(int(mode));
  }
  return s;
}

std::optional<PowerReading> read_power(const std::string& pci_bus_id) {
  const NvmlApi& nv = api();
  if (!nv.lib) return std::nullopt;
  nvmlDevice_t dev;
  if (nv.by_pci(pci_bus_id.c_str(), &dev) != NVML_SUCCESS) return std::nullopt;
  PowerReading r;
  // The instantaneous reading where the driver has it; nvmlDeviceGetPowerUsage averages over
  // about a second on recent boards, too slow for a trace.
  nvmlFieldValue_t instant{};
  instant.fieldId = NVML_FI_DEV_POWER_INSTANT;
  if (nv.field_values && nv.field_values(dev, 1, &instant) == NVML_SUCCESS && instant.nvmlReturn == NVML_SUCCESS) {
    r.power_w = as_u64(instant) / 1000.0;
    r.power_source = "instant";
  } else {
    unsigned mw = 0;
    if (nv.power(dev, &mw) != NVML_SUCCESS) return std::nullopt;
    r.power_w = mw / 1000.0;
    r.power_source = "averaged";
  }
  r.sm_clock_mhz = read_or_zero<unsigned>(nv.clock, dev, NVML_CLOCK_SM);
  r.temperature_c = read_or_zero<unsigned>(nv.temperature, dev, NVML_TEMPERATURE_GPU);
  unsigned long long mj = 0;
  if (nv.energy && nv.energy(dev, &mj) == NVML_SUCCESS) r.energy_mj = mj;
  return r;
}

namespace {

using ProcessQuery = decltype(&nvmlDeviceGetComputeRunningProcesses_v3);

// One of NVML's process lists; false when the query failed. The list can grow between the size
// query and the read (NVML_ERROR_INSUFFICIENT_SIZE): asked again with room to spare.
bool append_processes(ProcessQuery query, nvmlDevice_t dev, const char* type, std::vector<GpuProcess>& out) {
  if (!query) return false;
  std::vector<nvmlProcessInfo_t> infos(16);
  for (int attempt = 0; attempt < 4; ++attempt) {
    unsigned n = unsigned(infos.size());
    const nvmlReturn_t rc = query(dev, &n, infos.data());
    if (rc == NVML_ERROR_INSUFFICIENT_SIZE) {
      infos.resize(std::size_t(n) + 16);
      continue;
    }
    if (rc != NVML_SUCCESS) return false;
    for (unsigned i = 0; i < n && i < infos.size(); ++i) {
      const bool known = infos[i].usedGpuMemory != NVML_VALUE_NOT_AVAILABLE;
      out.push_back({infos[i].pid, known ? infos[i].usedGpuMemory : 0ULL, type});
    }
    return true;
  }
  return false;
}

double sample_value(nvmlValueType_t type, const nvmlValue_t& v) {
  switch (type) {
    case NVML_VALUE_TYPE_DOUBLE: return v.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT: return v.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return double(v.ulVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return double(v.ullVal);
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return double(v.sllVal);
    case NVML_VALUE_TYPE_SIGNED_INT: return v.siVal;
    default: return 0;
  }
}

}  // namespace

std::optional<std::vector<GpuProcess>> read_gpu_processes(const std::string& pci_bus_id) {
  const NvmlApi& nv = api();
  if (!nv.lib) return std::nullopt;
  nvmlDevice_t dev;
  if (nv.by_pci(pci_bus_id.c_str(), &dev) != NVML_SUCCESS) return std::nullopt;
  std::vector<GpuProcess> all;
  const bool compute = append_processes(nv.compute_processes, dev, "compute", all);
  const bool graphics = append_processes(nv.graphics_processes, dev, "graphics", all);
  if (!compute && !graphics) return std::nullopt;
  // A process with both kinds of context is one tenant.
  std::vector<GpuProcess> out;
  for (const GpuProcess& p : all) {
    const bool seen = std::any_of(out.begin(), out.end(), [&](const GpuProcess& q) { return q.pid == p.pid; });
    if (!seen) out.push_back(p);
  }
  return out;
}

std::optional<Utilization> read_utilization_since(const std::string& pci_bus_id, unsigned long long since_us) {
  const NvmlApi& nv = api();
  if (!nv.lib) return std::nullopt;
  nvmlDevice_t dev;
  if (nv.by_pci(pci_bus_id.c_str(), &dev) != NVML_SUCCESS) return std::nullopt;
  if (nv.samples) {
    nvmlValueType_t type{};
    unsigned n = 0;
    if (nv.samples(dev, NVML_GPU_UTILIZATION_SAMPLES, since_us, &type, &n, nullptr) == NVML_SUCCESS && n > 0) {
      std::vector<nvmlSample_t> buf(n);
      if (nv.samples(dev, NVML_GPU_UTILIZATION_SAMPLES, since_us, &type, &n, buf.data()) == NVML_SUCCESS) {
        Utilization u{0, 0, "samples"};
        for (unsigned i = 0; i < n && i < buf.size(); ++i) {
          if (buf[i].timeStamp <= since_us) continue;
          u.max_pct = std::max(u.max_pct, sample_value(type, buf[i].sampleValue));
          ++u.samples;
        }
        if (u.samples > 0) return u;
      }
    }
  }
  nvmlUtilization_t rates{};
  if (!nv.utilization || nv.utilization(dev, &rates) != NVML_SUCCESS) return std::nullopt;
  return Utilization{double(rates.gpu), 1, "current"};
}

}  // namespace gd
