// The project's current H200 dataset (data/measured/), which tests read as real input: one name
// to change when a new dataset is committed, and one parse per test binary.
#pragma once
#include <fstream>
#include <string>

#include "core/json.hpp"

#include "core/run_file.hpp"

namespace gd::test_support {

inline const std::string kMeasuredDir = std::string(GPUDISSECT_SOURCE_DIR) + "/data/measured/";
// The older committed pair (two full runs of one H200, a minute apart): this and "-repeat.json".
inline const std::string kPairStem = kMeasuredDir + "nvidia-h200-2026-11-29";
inline const std::string kPairRun = kPairStem + ".json";
// A small run of a few probes (tests/fixtures).
inline const std::string kSmallRun = std::string(GPUDISSECT_FIXTURES) + "/runs/h200_small.json";

inline const std::string kCommittedSuite =
    std::string(GPUDISSECT_SOURCE_DIR) + "/data/measured/nvidia-h200-2026-12-04c-suite.json.gz";

// The suite's run file, parsed once.
inline const nlohmann::json& committed_suite() {
  static const nlohmann::json doc = nlohmann::json::parse(read_run_text(kCommittedSuite));
  return doc;
}

// The same as a run document, read once.
inline const RunDocument& committed_suite_doc() {
  static const RunDocument doc = run_from_json(committed_suite(), kCommittedSuite);
  return doc;
}

}  // namespace gd::test_support
