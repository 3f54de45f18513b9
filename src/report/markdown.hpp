// Markdown report of one run: the device and how it was found, the run, a summary, one table
// per probe (analysis records apart), and last what was skipped or failed and why.
#pragma once
#include <string>

#include "core/run_file.hpp"

namespace gd {

std::string markdown_report(const RunDocument& doc);

}  // namespace gd
