// Markdown report of one run: the coverage of the seeds' items by category, the device and how
// it was found, the run, a summary, one table per probe (analysis records apart), the guide for
// kernel authors, and last what was skipped or failed and why.
#pragma once
#include <string>
#include <vector>

#include "core/probe.hpp"
#include "core/run_file.hpp"

namespace gd {

// Coverage and guide read the probes' declarations (ProbeSpec::covers); the one-argument form
// uses every registered probe.
std::string markdown_report(const RunDocument& doc, const std::vector<const ProbeSpec*>& probes);
std::string markdown_report(const RunDocument& doc);

}  // namespace gd
