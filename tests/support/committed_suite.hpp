// The project's current H200 dataset (data/measured/), which tests read as real input: one name
// to change when a new dataset is committed, and one parse per test binary.
#pragma once
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/run_file.hpp"

namespace gd::test_support {

inline const std::string kCommittedSuite =
    std::string(GPUDISSECT_SOURCE_DIR) + "/data/measured/nvidia-h200-2026-12-02f-suite.json.gz";

// The suite's run file, parsed once.
inline const nlohmann::json& committed_suite() {
  static const nlohmann::json doc = nlohmann::json::parse(read_run_text(kCommittedSuite));
  return doc;
}

}  // namespace gd::test_support
