// NVML opened at run time: a machine without libnvidia-ml still runs the suite, with clocks
// and power reported as unknown.
#pragma once
#include <optional>
#include <string>

#include "core/device.hpp"

namespace gd {

// Reads NVML's view of the device with this PCI bus id. On failure returns nullopt and
// sets `why` (library missing, init failed, device not found).
std::optional<DeviceInfo::Nvml> read_nvml(const std::string& pci_bus_id, std::string& why);

}  // namespace gd
