// Reads Nsight Compute counters from a record's extra.ncu ({kernel: {metric: value}}, written by
// `run --ncu`): the value of a metric for the first kernel whose name contains a given part.
#pragma once
#include <optional>
#include <string>

#include "core/json.hpp"

namespace gd {

// nullopt when extra has no ncu object, no kernel name contains kernel_part, or that kernel has no
// numeric value for metric.
std::optional<double> ncu_counter(const nlohmann::json& extra, const std::string& kernel_part, const std::string& metric);

// The note a summary records when a run has no counters.
inline const char* ncu_absent_note() {
  return "absent: this run has no extra.ncu (run with --ncu to collect the Nsight Compute counters)";
}

}  // namespace gd
