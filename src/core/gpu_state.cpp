#include "core/gpu_state.hpp"

#include "core/nvml.hpp"

namespace gd {

using nlohmann::json;

GpuStateSource nvml_state_source(const std::string& pci_bus_id) {
  return [pci_bus_id]() -> std::optional<GpuState> {
    auto raw = read_nvml_settings(pci_bus_id);
    if (!raw) return std::nullopt;
    return GpuState{std::move(raw->settings), std::move(raw->observed)};
  };
}

json to_json(const GpuState& s) {
  json settings = json::object(), observed = json::object();
  for (const auto& [k, v] : s.settings) settings[k] = v;
  for (const auto& [k, v] : s.observed) observed[k] = v;
  return {{"settings", settings}, {"observed", observed}};
}

std::vector<std::string> state_changes(const GpuState& before, const GpuState& after) {
  std::vector<std::string> out;
  const auto text = [](const std::map<std::string, json>& m, const std::string& k) {
    const auto it = m.find(k);
    return it == m.end() ? std::string("(not reported)") : it->second.dump();
  };
  std::map<std::string, bool> keys;
  for (const auto& [k, v] : before.settings) keys[k] = true;
  for (const auto& [k, v] : after.settings) keys[k] = true;
  for (const auto& [k, unused] : keys) {
    const auto b = before.settings.find(k), a = after.settings.find(k);
    const bool same = b != before.settings.end() && a != after.settings.end() && b->second == a->second;
    if (!same) out.push_back(k + ": " + text(before.settings, k) + " -> " + text(after.settings, k));
  }
  return out;
}

GpuStateGuard::GpuStateGuard(GpuStateSource source) : source_(std::move(source)) {
  if (source_) before_ = source_();
}

json GpuStateGuard::before_json() const { return {{"before", before_ ? gd::to_json(*before_) : json(nullptr)}}; }

std::vector<std::string> GpuStateGuard::check() {
  if (source_) after_ = source_();
  changes_.clear();
  if (before_ && after_) changes_ = state_changes(*before_, *after_);
  return changes_;
}

json GpuStateGuard::to_json() const {
  json j = {{"before", before_ ? gd::to_json(*before_) : json(nullptr)},
            {"after", after_ ? gd::to_json(*after_) : json(nullptr)},
            {"changed", changes_},
            {"checked", checked()}};
  if (!checked()) j["why"] = "the GPU's settings could not be read (NVML unavailable) before and after the run";
  return j;
}

}  // namespace gd
