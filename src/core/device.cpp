#include "core/device.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include <cuda_runtime_api.h>

#include "core/device_kernels.hpp"
#include "core/error.hpp"
#include "core/gpu_lock.hpp"
#include "core/nvml.hpp"

namespace gd {

namespace {
constexpr std::pair<Feature, const char*> kFeatureNames[] = {
    {Feature::Clusters, "clusters"},         {Feature::Tma, "tma"},
    {Feature::Wgmma, "wgmma"},               {Feature::Setmaxnreg, "setmaxnreg"},
    {Feature::Tcgen05, "tcgen05"},           {Feature::BlockScaledMma, "block_scaled_mma"},
};

std::string uuid_string(const cudaUUID_t& u) {
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  char s[48];
  std::snprintf(s, sizeof s, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return s;
}

// Why the driver library cannot be loaded, or empty when it can. Without it the runtime reports
// cudaErrorInsufficientDriver ("driver version is insufficient"), which sends users looking for
// an upgrade when there is no driver at all.
std::string driver_load_error() {
  void* lib = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!lib) {
    const char* why = ::dlerror();
    return why ? why : "libcuda.so.1 not found";
  }
  ::dlclose(lib);
  return "";
}

int attribute(cudaDeviceAttr attr, int dev) {
  int v = 0;
  GD_CUDA_CHECK(cudaDeviceGetAttribute(&v, attr, dev));
  return v;
}
}  // namespace

std::string to_string(Feature f) {
  for (const auto& [feature, name] : kFeatureNames)
    if (feature == f) return name;
  return "unknown";
}

std::optional<Feature> feature_from_string(const std::string& s) {
  for (const auto& [feature, name] : kFeatureNames)
    if (s == name) return feature;
  return std::nullopt;
}

bool DeviceInfo::has(Feature f) const {
  return std::find(features.begin(), features.end(), f) != features.end();
}

std::vector<Feature> features_for(int cc, const std::string& arch_code_loaded) {
  std::vector<Feature> f;
  if (cc >= 90) {
    f.push_back(Feature::Clusters);
    f.push_back(Feature::Tma);
  }
  // Arch-specific ("a") code runs only on the exact chip it was built for, and only if our
  // binary carries it; both are needed for the instruction to exist at run time.
  if (cc == 90 && arch_code_loaded == "sm_90a") {
    f.push_back(Feature::Wgmma);
    f.push_back(Feature::Setmaxnreg);
  }
  if ((cc == 100 || cc == 103) && arch_code_loaded == "sm_" + std::to_string(cc) + "a") {
    f.push_back(Feature::Tcgen05);
    f.push_back(Feature::Setmaxnreg);
  }
  if ((cc == 120 || cc == 121) && arch_code_loaded == "sm_" + std::to_string(cc) + "a")
    f.push_back(Feature::BlockScaledMma);
  return f;
}

std::optional<std::string> device_uuid(int index) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || index < 0 || index >= count) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, index) != cudaSuccess) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
  return uuid_string(p.uuid);
}

DeviceInfo query_device(int index) {
  int count = 0;
  if (cudaError_t rc = cudaGetDeviceCount(&count); rc != cudaSuccess) {
    if (const std::string why = driver_load_error(); !why.empty())
      throw Error("no NVIDIA driver is installed: the CUDA driver library cannot be loaded (" + why +
                  "); install the NVIDIA driver to run probes (list, verify, report work without one)");
    throw Error(std::string("no usable CUDA device: ") + cudaGetErrorName(rc) + " (" +
                cudaGetErrorString(rc) + "); is an NVIDIA GPU and its driver installed?");
  }
  if (count == 0) throw Error("no CUDA device found on this machine");
  if (index < 0 || index >= count)
    throw UserError("device " + std::to_string(index) + " does not exist (this machine has " +
                    std::to_string(count) + ")");
  GD_CUDA_CHECK(cudaSetDevice(index));
  cudaDeviceProp p{};
  GD_CUDA_CHECK(cudaGetDeviceProperties(&p, index));

  DeviceInfo d;
  d.index = index;
  d.name = p.name;
  d.uuid = uuid_string(p.uuid);
  char bus[32];
  std::snprintf(bus, sizeof bus, "%08x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
  d.pci_bus_id = bus;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.max_warps_per_sm = p.maxThreadsPerMultiProcessor / p.warpSize;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.regs_per_sm = p.regsPerMultiprocessor;
  d.regs_per_block = p.regsPerBlock;
  d.shared_per_sm = static_cast<long long>(p.sharedMemPerMultiprocessor);
  d.shared_per_block = static_cast<long long>(p.sharedMemPerBlock);
  d.shared_per_block_optin = static_cast<long long>(p.sharedMemPerBlockOptin);
  d.l2_bytes = p.l2CacheSize;
  d.global_mem_bytes = static_cast<long long>(p.totalGlobalMem);
  d.memory_bus_width_bits = p.memoryBusWidth;
  d.max_sm_clock_mhz = attribute(cudaDevAttrClockRate, index) / 1000.0;
  d.max_mem_clock_mhz = attribute(cudaDevAttrMemoryClockRate, index) / 1000.0;
  d.theoretical_dram_gbps = 2.0 * d.max_mem_clock_mhz * 1e6 * d.memory_bus_width_bits / 8.0 / 1e9;
  d.ecc_enabled = p.ECCEnabled != 0;
  d.gpu_count = count;
  GD_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  GD_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  d.arch_code_loaded = detect_loaded_arch();
  d.features = features_for(d.cc(), d.arch_code_loaded);
  refresh_live_state(d);
  return d;
}

void refresh_live_state(DeviceInfo& d) {
  std::string why;
  d.nvml = read_nvml(d.pci_bus_id, why);
  d.nvml_status = why;
}

nlohmann::json to_json(const DeviceInfo& d) {
  nlohmann::json j = {
      {"index", d.index},
      {"name", d.name},
      {"uuid", d.uuid},
      {"pci_bus_id", d.pci_bus_id},
      {"cc_major", d.cc_major},
      {"cc_minor", d.cc_minor},
      {"sm_count", d.sm_count},
      {"max_warps_per_sm", d.max_warps_per_sm},
      {"max_threads_per_block", d.max_threads_per_block},
      {"regs_per_sm", d.regs_per_sm},
      {"regs_per_block", d.regs_per_block},
      {"shared_per_sm", d.shared_per_sm},
      {"shared_per_block", d.shared_per_block},
      {"shared_per_block_optin", d.shared_per_block_optin},
      {"l2_bytes", d.l2_bytes},
      {"global_mem_bytes", d.global_mem_bytes},
      {"memory_bus_width_bits", d.memory_bus_width_bits},
      {"max_sm_clock_mhz", d.max_sm_clock_mhz},
      {"max_mem_clock_mhz", d.max_mem_clock_mhz},
      {"theoretical_dram_gbps", d.theoretical_dram_gbps},
      {"ecc_enabled", d.ecc_enabled},
      {"gpu_count", d.gpu_count},
      {"driver_version", d.driver_version},
      {"runtime_version", d.runtime_version},
      {"arch_code_loaded", d.arch_code_loaded},
      {"nvml_status", d.nvml_status},
  };
  j["features"] = nlohmann::json::array();
  for (Feature f : d.features) j["features"].push_back(to_string(f));
  if (d.nvml) {
    const auto& n = *d.nvml;
    j["nvml"] = {{"sm_clock_mhz", n.sm_clock_mhz},         {"mem_clock_mhz", n.mem_clock_mhz},
                 {"max_sm_clock_mhz", n.max_sm_clock_mhz}, {"max_mem_clock_mhz", n.max_mem_clock_mhz},
                 {"power_w", n.power_w},                   {"power_limit_w", n.power_limit_w},
                 {"temperature_c", n.temperature_c},       {"pcie_gen", n.pcie_gen},
                 {"pcie_width", n.pcie_width},             {"pcie_max_gen", n.pcie_max_gen},
                 {"pcie_max_width", n.pcie_max_width},     {"driver_version", n.driver_version}};
  } else {
    j["nvml"] = nullptr;
  }
  return j;
}

namespace {
template <class T>
void read_field(const nlohmann::json& j, const char* key, T& out) {
  if (!j.contains(key)) throw std::invalid_argument(std::string("device: missing field '") + key + "'");
  try {
    out = j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(std::string("device: field '") + key + "' has the wrong type");
  }
}
}  // namespace

DeviceInfo device_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("device must be an object");
  DeviceInfo d;
  read_field(j, "name", d.name);
  read_field(j, "cc_major", d.cc_major);
  read_field(j, "cc_minor", d.cc_minor);
  read_field(j, "sm_count", d.sm_count);
  // The rest is descriptive; older or hand-made files may lack some of it.
  d.index = j.value("index", 0);
  d.uuid = j.value("uuid", "");
  d.pci_bus_id = j.value("pci_bus_id", "");
  d.max_warps_per_sm = j.value("max_warps_per_sm", 0);
  d.max_threads_per_block = j.value("max_threads_per_block", 0);
  d.regs_per_sm = j.value("regs_per_sm", 0);
  d.regs_per_block = j.value("regs_per_block", 0);
  d.shared_per_sm = j.value("shared_per_sm", 0LL);
  d.shared_per_block = j.value("shared_per_block", 0LL);
  d.shared_per_block_optin = j.value("shared_per_block_optin", 0LL);
  d.l2_bytes = j.value("l2_bytes", 0LL);
  d.global_mem_bytes = j.value("global_mem_bytes", 0LL);
  d.memory_bus_width_bits = j.value("memory_bus_width_bits", 0);
  d.max_sm_clock_mhz = j.value("max_sm_clock_mhz", 0.0);
  d.max_mem_clock_mhz = j.value("max_mem_clock_mhz", 0.0);
  d.theoretical_dram_gbps = j.value("theoretical_dram_gbps", 0.0);
  d.ecc_enabled = j.value("ecc_enabled", false);
  d.gpu_count = j.value("gpu_count", 1);
  d.driver_version = j.value("driver_version", 0);
  d.runtime_version = j.value("runtime_version", 0);
  d.arch_code_loaded = j.value("arch_code_loaded", "");
  d.nvml_status = j.value("nvml_status", "");
  for (const auto& f : j.value("features", nlohmann::json::array())) {
    auto feature = f.is_string() ? feature_from_string(f.get<std::string>()) : std::nullopt;
    if (!feature) throw std::invalid_argument("device: unknown feature " + f.dump());
    d.features.push_back(*feature);
  }
  if (j.contains("nvml") && j["nvml"].is_object()) {
    const auto& n = j["nvml"];
    DeviceInfo::Nvml v;
    v.sm_clock_mhz = n.value("sm_clock_mhz", 0.0);
    v.mem_clock_mhz = n.value("mem_clock_mhz", 0.0);
    v.max_sm_clock_mhz = n.value("max_sm_clock_mhz", 0.0);
    v.max_mem_clock_mhz = n.value("max_mem_clock_mhz", 0.0);
    v.power_w = n.value("power_w", 0.0);
    v.power_limit_w = n.value("power_limit_w", 0.0);
    v.temperature_c = n.value("temperature_c", 0.0);
    v.pcie_gen = n.value("pcie_gen", 0);
    v.pcie_width = n.value("pcie_width", 0);
    v.pcie_max_gen = n.value("pcie_max_gen", 0);
    v.pcie_max_width = n.value("pcie_max_width", 0);
    v.driver_version = n.value("driver_version", "");
    d.nvml = v;
  }
  return d;
}

}  // namespace gd
