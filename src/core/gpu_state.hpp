// The GPU's settings before and after a run: a run must leave the card as it found it. gpudissect
// never changes clocks, limits or modes; this guard proves it, and catches anything else on the
// machine that did so while we measured (a number taken under a changed power limit is not the
// card's number).
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

namespace gd {

struct GpuState {
  // What must not change: application clocks (target and default), the customer boost clock,
  // power limits, persistence mode, compute mode. A setting the driver does not report is absent.
  std::map<std::string, nlohmann::json> settings;
  // What moves with load (current SM and memory clocks): recorded, never compared.
  std::map<std::string, nlohmann::json> observed;
};

// Reads the state; nullopt when it cannot be read (no NVML). Tests pass fakes.
using GpuStateSource = std::function<std::optional<GpuState>()>;
// NVML's view of the device at this PCI bus id.
GpuStateSource nvml_state_source(const std::string& pci_bus_id);

nlohmann::json to_json(const GpuState& s);
// "power_limit_w: 700 -> 500" for each setting that differs (appeared, vanished or changed).
std::vector<std::string> state_changes(const GpuState& before, const GpuState& after);

// Reads the state when constructed and again at check(): the run file's `gpu_state` object.
class GpuStateGuard {
 public:
  explicit GpuStateGuard(GpuStateSource source);
  // {"before": ...} while the run is going (for the journal header).
  nlohmann::json before_json() const;
  // Reads the state again. Returns the changed settings (empty: none changed, or not checkable:
  // see checked()).
  std::vector<std::string> check();
  bool checked() const { return before_ && after_; }
  // {"before", "after", "changed", "checked", "why"}: what the run file stores.
  nlohmann::json to_json() const;

 private:
  GpuStateSource source_;
  std::optional<GpuState> before_, after_;
  std::vector<std::string> changes_;
};

}  // namespace gd
