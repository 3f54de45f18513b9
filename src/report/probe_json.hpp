// What a probe declares for the reading side, as data: the views of its records (the report's
// figures) and the seed items it covers. `list --json` and the HTML report's context carry them.
#pragma once
#include <vector>

#include "core/json.hpp"

#include "core/probe.hpp"

namespace gd {

std::string to_string(ReportView::Kind k);  // "line", "heatmap", "matrix", "bars", "table"
nlohmann::json views_json(const ProbeSpec& p);
nlohmann::json covers_json(const ProbeSpec& p);
// {"<probe id>": {"views": [...], "covers": [...], "metrics": [{"name", "unit"}]}} for these probes.
nlohmann::json probes_reading_json(const std::vector<const ProbeSpec*>& probes);
// Every registered probe (the registry's order).
std::vector<const ProbeSpec*> registered_probes();

}  // namespace gd
