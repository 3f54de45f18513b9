// Human-readable progress of a run on stdout: one line per finished record, as it finishes.
#pragma once
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "core/executor.hpp"

namespace gd {

// Columns: status, probe id, params, SASS check, then the record's first metrics (probes
// declare their headline metric first) or, for a skipped or failed record, the reason.
// Records stream in, so widths cannot be known up front: a column widens when a longer value
// arrives and stays that wide, which keeps lines aligned within each probe.
class TerminalTable : public RecordSink {
 public:
  explicit TerminalTable(std::ostream& out, std::size_t max_metrics = 3);
  void on_record(const Record& r) override;

  // The line on_record prints, without updating widths (for tests and other printers).
  std::string format_line(const Record& r) const;

 private:
  std::ostream& out_;
  std::size_t max_metrics_;
  bool header_done_ = false;
  std::vector<std::size_t> widths_;  // status, id, params, sass

  std::vector<std::string> leading_cells(const Record& r) const;
  std::string trailing_cell(const Record& r) const;
  std::string join(const std::vector<std::string>& cells, const std::string& rest) const;
};

}  // namespace gd
