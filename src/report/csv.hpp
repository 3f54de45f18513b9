// CSV export of a run for spreadsheets and plotting tools: one row per (record, metric), each
// row carrying the run and GPU it came from, so files from several runs can simply be appended.
#pragma once
#include <ostream>
#include <string>
#include <string_view>

#include "core/run_file.hpp"

namespace gd {

// RFC 4180 fields (quoted when they hold a comma, quote or line break; "\n" line ends); text that
// starts with = + - @, tab or carriage return gets a leading apostrophe (no spreadsheet formula
// from run-file content; numbers such as -1.5 are left as they are). A
// record without metrics (skipped, failed) still gets one row, with the metric fields empty.
// Numbers are written exactly (shortest round-trip form); unknown values are empty.
void write_csv(const RunDocument& doc, std::ostream& os);
std::string csv_field(std::string_view s);

}  // namespace gd
