#include "report/csv.hpp"
#include "report/format.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "core/json_fields.hpp"
#include "report/run_view.hpp"

namespace gd {

namespace {

constexpr const char* kColumns[] = {"run_id", "gpu",    "id",     "category", "params", "status", "reason",
                                    "sass_status", "derived", "metric", "unit", "value", "median", "min",
                                    "max",    "mean",   "stddev", "n",        "sm_clock_mhz", "sm_clock_source",
                                    "converged", "stop_reason", "sass_detail", "throttled_by"};

std::string number(double v) {
  if (!std::isfinite(v)) return "";
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

void write_row(std::ostream& os, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) os << (i ? "," : "") << csv_field(fields[i]);
  os << "\n";
}

std::vector<std::string> record_fields(const RunDocument& doc, const std::string& gpu, const Record& r) {
  return {doc.run_id,   gpu,      r.id,        r.category, to_json(r.params).dump(), to_string(r.status),
          r.reason,     to_string(r.sass.status), r.derived ? "true" : "false"};
}

std::vector<std::string> metric_fields(const Metric& m) {
  return {m.name,          m.unit,          number(m.value()),  number(m.stats.median), number(m.stats.min),
          number(m.stats.max), number(m.stats.mean), number(m.stats.stddev), std::to_string(m.stats.n)};
}

}  // namespace

namespace {

// The whole field parses as a number (a negative value starts with '-' and is no formula).
bool is_number(std::string_view s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

std::string csv_field(std::string_view s) {
  // A spreadsheet runs a cell that starts with = + - @ (or tab, carriage return) as a formula
  // (=HYPERLINK(...) becomes a live link): such text gets a leading apostrophe, as OWASP's CSV
  // injection guidance recommends. Numbers pass as they are.
  std::string text = printable(s);  // no control character from a run file reaches a terminal or sheet
  if (!text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos && !is_number(text))
    text.insert(text.begin(), '\'');
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

namespace {

// One column per sweep axis, after the fixed ones ("param.<axis>"), so a spreadsheet or pandas
// can plot by axis without parsing the params JSON. A derived row whose own value is a label
// ("best") shows the winning point's value from extra.best_point.
std::vector<std::string> axis_names(const std::vector<Record>& records) {
  std::vector<std::string> names;
  for (const Record& r : records)
    for (const auto& [name, value] : r.params)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  return names;
}

std::string axis_cell(const Record& r, const std::string& axis) {
  const ParamValue* v = find_param(r.params, axis);
  if (!v) return "";
  const nlohmann::json* best = json_fields::present(r.extra, "best_point");
  if (r.derived && std::holds_alternative<std::string>(*v) && best && best->is_object() && best->contains(axis)) {
    const nlohmann::json& b = (*best)[axis];
    return b.is_string() ? b.get<std::string>() : b.dump();
  }
  return to_string(*v);
}

}  // namespace

void write_csv(const RunDocument& doc, std::ostream& os) {
  const std::vector<std::string> axes = axis_names(doc.records);
  std::vector<std::string> header(std::begin(kColumns), std::end(kColumns));
  for (const auto& a : axes) header.push_back("param." + a);
  write_row(os, header);
  const std::string gpu = json_fields::nonempty_string(doc.device, "name").value_or("");
  const std::vector<std::string> no_metric(9);
  for (const Record& r : doc.records) {
    const std::string clock = r.sm_clock_mhz > 0 ? number(r.sm_clock_mhz) : "";
    const std::string converged = !r.convergence.recorded ? "" : r.convergence.converged ? "true" : "false";
    const std::string throttle = throttle_text(r);
    auto row_with = [&](const std::vector<std::string>& metric) {
      std::vector<std::string> row = record_fields(doc, gpu, r);
      row.insert(row.end(), metric.begin(), metric.end());
      row.insert(row.end(), {clock, to_string(r.sm_clock_source), converged, r.convergence.stop_reason, r.sass.detail,
                             throttle});
      for (const auto& a : axes) row.push_back(axis_cell(r, a));
      write_row(os, row);
    };
    if (r.metrics.empty()) row_with(no_metric);
    for (const Metric& m : r.metrics) row_with(metric_fields(m));
  }
}

}  // namespace gd
