#include "analysis/ncu_counters.hpp"

namespace gd {

std::optional<double> ncu_counter(const nlohmann::json& extra, const std::string& kernel_part, const std::string& metric) {
  if (!extra.is_object() || !extra.contains("ncu") || !extra["ncu"].is_object()) return std::nullopt;
  for (const auto& [kernel, metrics] : extra["ncu"].items()) {
    if (kernel.find(kernel_part) == std::string::npos || !metrics.is_object()) continue;
    const auto it = metrics.find(metric);
    if (it != metrics.end() && it->is_number()) return it->get<double>();
  }
  return std::nullopt;
}

}  // namespace gd
