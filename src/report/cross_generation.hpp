// The cross-generation table (the SM_120 paper's Table 6 style): the seeds' quantities, each
// chip's value, and each chip's ratio to the first. Runs give their values through the probes'
// covers, reference datasets (data/reference/) directly; values are put in the seed item's unit.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

#include "core/probe.hpp"
#include "core/run_file.hpp"

namespace gd {

struct CrossCell {
  std::optional<double> value;  // in the row's unit
  std::string text;             // as shown: the seed's figure as written, or ours formatted
  std::string link;             // a run's record ("memory.latency.chase level=DRAM variant=cg")
};

struct CrossRow {
  std::string item, quantity, unit;
  std::vector<CrossCell> cells;               // one per chip
  std::vector<std::optional<double>> ratios;  // chip k / chip 0, for k >= 1
};

struct CrossTable {
  std::vector<std::string> chips;  // column labels, made unique
  std::vector<CrossRow> rows;      // items with values on at least two chips, in the seed list's order
};

CrossTable cross_generation(const std::vector<RunDocument>& docs, const std::vector<std::string>& names,
                            const std::vector<const ProbeSpec*>& probes);
std::string cross_generation_markdown(const CrossTable& t);
nlohmann::json cross_generation_json(const CrossTable& t);

}  // namespace gd
