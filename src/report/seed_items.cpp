#include "report/seed_items.hpp"

#include <algorithm>
#include <regex>
#include <stdexcept>

#include "seed_items_data.h"  // generated from data/coverage/*.csv (CMakeLists.txt)

namespace gd {

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      quoted = any = true;
    } else if (c == ',') {
      row.push_back(std::move(field)), field.clear(), any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !field.empty()) row.push_back(std::move(field)), rows.push_back(std::move(row));
      field.clear(), row.clear(), any = false;
    } else {
      field += c, any = true;
    }
  }
  if (quoted) throw std::invalid_argument("CSV: unterminated quoted field in row " + std::to_string(rows.size() + 1));
  if (any || !field.empty()) row.push_back(std::move(field)), rows.push_back(std::move(row));
  for (std::size_t r = 1; r < rows.size(); ++r)
    if (rows[r].size() != rows[0].size())
      throw std::invalid_argument("CSV: row " + std::to_string(r + 1) + " has " + std::to_string(rows[r].size()) +
                                  " fields, the header " + std::to_string(rows[0].size()));
  return rows;
}

// One T per data row of a compiled-in table (the header row skipped).
template <class T, class Make>
static std::vector<T> table_rows(const char* csv, Make make) {
  std::vector<T> out;
  const auto rows = parse_csv(csv);
  for (std::size_t r = 1; r < rows.size(); ++r) out.push_back(make(rows[r]));
  return out;
}

const std::vector<SeedItem>& seed_items() {
  static const std::vector<SeedItem> items = table_rows<SeedItem>(
      kSeedItemsCsv, [](const auto& f) { return SeedItem{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]}; });
  return items;
}

std::vector<std::string> seed_item_ids() {
  std::vector<std::string> ids;
  for (const auto& s : seed_items())
    if (std::find(ids.begin(), ids.end(), s.id) == ids.end()) ids.push_back(s.id);
  return ids;
}

bool is_seed_item(const std::string& id) {
  const auto& items = seed_items();
  return std::any_of(items.begin(), items.end(), [&](const SeedItem& s) { return s.id == id; });
}

const std::vector<NotApplicableRule>& not_applicable_rules() {
  static const std::vector<NotApplicableRule> rules = table_rows<NotApplicableRule>(kNotApplicableCsv, [](const auto& f) {
    return NotApplicableRule{f[0], std::stoi(f[1]), std::stoi(f[2]), std::stoi(f[3]), f[4]};
  });
  return rules;
}

std::optional<std::string> not_applicable_reason(const std::string& id, int cc, int gpus) {
  for (const auto& rule : not_applicable_rules()) {
    if (id.rfind(rule.item_prefix, 0) != 0) continue;
    const bool cc_ok = (rule.min_cc == 0 || cc >= rule.min_cc) && (rule.max_cc == 0 || cc <= rule.max_cc);
    if (!cc_ok || gpus < rule.min_gpus) return rule.reason;
  }
  return std::nullopt;
}

const std::vector<ReportedValueRule>& reported_value_rules() {
  static const std::vector<ReportedValueRule> rules = table_rows<ReportedValueRule>(
      kReportedValuesCsv, [](const auto& f) { return ReportedValueRule{f[0], f[1], f[2]}; });
  return rules;
}

std::optional<std::string> reported_value_source(const std::string& probe, const std::string& metric) {
  for (const auto& rule : reported_value_rules())
    if ((rule.probe == probe || rule.probe == "*") && rule.metric == metric) return rule.source;
  return std::nullopt;
}

static std::vector<std::pair<std::string, std::string>> parse_where(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t from = 0; from < text.size();) {
    std::size_t end = text.find(';', from);
    if (end == std::string::npos) end = text.size();
    const std::string pair = text.substr(from, end - from);
    const auto eq = pair.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size())
      throw std::invalid_argument("covers.csv: '" + pair + "' is not key=value");
    out.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
    from = end + 1;
  }
  return out;
}

const std::vector<TableCover>& table_covers() {
  static const std::vector<TableCover> rows = table_rows<TableCover>(kTableCoversCsv, [](const auto& f) {
    if (f[0].empty() || f[1].empty() || f[2].empty())
      throw std::invalid_argument("covers.csv: a row needs an item, a probe and a metric");
    return TableCover{f[0], f[1], f[2], parse_where(f[3])};
  });
  return rows;
}

std::optional<std::string> curve_axis(const std::string& id) {
  static const auto curves = table_rows<std::pair<std::string, std::string>>(
      kCurveItemsCsv, [](const auto& f) { return std::pair{f[0], f[1]}; });
  for (const auto& [item, axis] : curves)
    if (item == id) return axis;
  return std::nullopt;
}

std::optional<double> seed_number(const std::string& v) {
  static const std::regex number(R"(^\s*(?:~|≈|≥|>|<|≤|\+)?\s*([0-9]+(?:\.[0-9]+)?)(?:\s*[-–]\s*([0-9]+(?:\.[0-9]+)?))?)");
  std::smatch m;
  if (!std::regex_search(v, m, number)) return std::nullopt;
  const std::string rest = v.substr(m.position(0) + m.length(0));
  if (!rest.empty() && rest[0] == ':') return std::nullopt;  // a ratio "1:39"
  const double a = std::stod(m[1].str());
  return m[2].matched ? (a + std::stod(m[2].str())) / 2 : a;
}

}  // namespace gd
