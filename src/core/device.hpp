// What the GPU at hand is: asked of the driver and NVML, never assumed.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

namespace gd {

// Capabilities a probe can require. Arch-specific ones need both the chip and our binary's
// code for it (an sm_90a cubin), which is checked at run time, not inferred.
enum class Feature { Clusters, Tma, Wgmma, Setmaxnreg, Tcgen05, BlockScaledMma };
std::string to_string(Feature f);
std::optional<Feature> feature_from_string(const std::string& s);

struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string uuid;
  std::string pci_bus_id;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_warps_per_sm = 0;
  int max_threads_per_block = 0;
  int regs_per_sm = 0, regs_per_block = 0;
  long long shared_per_sm = 0, shared_per_block = 0, shared_per_block_optin = 0;
  long long l2_bytes = 0, global_mem_bytes = 0;
  int memory_bus_width_bits = 0;
  double max_sm_clock_mhz = 0;      // driver's peak clock attribute
  double max_mem_clock_mhz = 0;     // driver's peak memory clock attribute
  double theoretical_dram_gbps = 0; // 2 (DDR) * memory clock * bus width / 8
  bool ecc_enabled = false;
  int gpu_count = 1;
  int driver_version = 0, runtime_version = 0;
  std::string arch_code_loaded;     // e.g. "sm_90a": the cubin the runtime picked for this chip
  std::vector<Feature> features;

  // From NVML when it could be loaded; absent otherwise (reported as "unknown").
  struct Nvml {
    double sm_clock_mhz = 0, mem_clock_mhz = 0, max_sm_clock_mhz = 0, max_mem_clock_mhz = 0;
    double power_w = 0, power_limit_w = 0, temperature_c = 0;
    int pcie_gen = 0, pcie_width = 0, pcie_max_gen = 0, pcie_max_width = 0;
    std::string driver_version;
  };
  std::optional<Nvml> nvml;
  std::string nvml_status;  // why NVML is absent, or "ok"

  int cc() const { return cc_major * 10 + cc_minor; }
  std::string sm_name() const { return "sm_" + std::to_string(cc()); }
  bool has(Feature f) const;
};

nlohmann::json to_json(const DeviceInfo& d);
DeviceInfo device_from_json(const nlohmann::json& j);  // throws std::invalid_argument

// Queries device `index`. Throws gd::Error with a clear message when there is no GPU or driver.
DeviceInfo query_device(int index = 0);
// Re-reads the live fields (clocks, power, temperature) through NVML, if available.
void refresh_live_state(DeviceInfo& d);

// Features implied by a chip and the code loaded for it (pure; tested with fake devices).
std::vector<Feature> features_for(int cc, const std::string& arch_code_loaded);

}  // namespace gd
