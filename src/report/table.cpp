#include "report/table.hpp"

#include <algorithm>

#include "report/format.hpp"

namespace gd {

TerminalTable::TerminalTable(std::ostream& out, std::size_t max_metrics)
    : out_(out), max_metrics_(max_metrics), widths_{8, 28, 26, 10} {}

static std::string status_cell(const Record& r) {
  if (r.status == Status::Skipped) return "SKIP";
  if (r.status == Status::Failed) return "FAIL";
  return r.derived ? "analysis" : "ok";
}

static std::string sass_cell(const Record& r) {
  if (r.status == Status::Skipped) return "-";
  switch (r.sass.status) {
    case SassStatus::Verified: return "verified";
    case SassStatus::Mismatch: return "MISMATCH";
    case SassStatus::Unverified: return "unverified";
    case SassStatus::NotApplicable: return "n/a";
  }
  return "";
}

// Said after the metrics, so a number that stopped short of its confidence target is not
// read as a settled one.
static std::string convergence_note(const Record& r) {
  std::string note;
  if (!r.derived && r.convergence.recorded && !r.convergence.converged)
    note += "  [not converged: " + r.convergence.stop_reason + ", n=" + std::to_string(r.convergence.n) + "]";
  if (const auto by = throttled_by(r); by && !by->empty()) {
    std::string names;
    for (const auto& b : *by) names += (names.empty() ? "" : ", ") + b;
    note += "  [throttled: " + names + "]";
  }
  return note;
}

std::vector<std::string> TerminalTable::leading_cells(const Record& r) const {
  const std::string params = to_string(r.params);
  return {status_cell(r), r.id, params.empty() ? "-" : params, sass_cell(r)};
}

std::string TerminalTable::trailing_cell(const Record& r) const {
  if (r.status != Status::Ok) return r.reason;
  std::string out;
  const std::size_t shown = std::min(max_metrics_, r.metrics.size());
  for (std::size_t i = 0; i < shown; ++i)
    out += (i ? "  " : "") + r.metrics[i].name + " " + format_metric(r.metrics[i], true);
  if (r.metrics.size() > shown) out += "  (+" + std::to_string(r.metrics.size() - shown) + " more)";
  return out + convergence_note(r);
}

std::string TerminalTable::join(const std::vector<std::string>& cells, const std::string& rest) const {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) line += pad(cells[i], widths_[i]) + "  ";
  line += rest;
  line.erase(line.find_last_not_of(' ') + 1);
  return line;
}

std::string TerminalTable::format_line(const Record& r) const { return join(leading_cells(r), trailing_cell(r)); }

void TerminalTable::on_record(const Record& r) {
  const auto cells = leading_cells(r);
  for (std::size_t i = 0; i < cells.size(); ++i) widths_[i] = std::max(widths_[i], display_width(cells[i]));
  if (!header_done_) {
    out_ << join({"status", "probe", "params", "sass"}, "metrics (median, min–max, n) or reason") << "\n";
    header_done_ = true;
  }
  // Flushed per line: the run may take minutes between records, and a user watches this.
  out_ << join(cells, trailing_cell(r)) << std::endl;
}

}  // namespace gd
