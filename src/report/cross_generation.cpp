#include "report/cross_generation.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "report/format.hpp"
#include "report/item_values.hpp"
#include "report/seed_items.hpp"

namespace gd {

CrossTable cross_generation(const std::vector<RunDocument>& docs, const std::vector<std::string>& names,
                            const std::vector<const ProbeSpec*>& probes) {
  CrossTable t;
  std::vector<std::map<std::string, ItemValue>> values;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    values.push_back(item_values(docs[i], probes));
    t.chips.push_back(chip_label(docs[i]));
  }
  // Two files about one chip (two runs of one model) are told apart by their file names.
  const std::vector<std::string> base = t.chips;
  for (std::size_t i = 0; i < base.size() && i < names.size(); ++i)
    if (std::count(base.begin(), base.end(), base[i]) > 1)
      t.chips[i] += " [" + std::filesystem::path(names[i]).stem().string() + "]";
  for (const std::string& id : seed_item_ids()) {
    const SeedItem* def = nullptr;
    for (const SeedItem& s : seed_items())
      if (s.id == id) {
        def = &s;
        break;
      }
    CrossRow row;
    row.item = id, row.quantity = def->item, row.unit = def->unit;
    int present = 0;
    for (const auto& vals : values) {
      CrossCell cell;
      if (auto it = vals.find(id); it != vals.end()) {
        const ItemValue& v = it->second;
        const auto f = v.text.empty() ? unit_factor(v.unit, def->unit) : std::nullopt;
        if (f) cell.value = v.value * *f;
        cell.text = !v.as_written.empty() || !v.text.empty() || !f ? v.display() : fmt_num(*cell.value, 4);
        if (v.as_written.empty()) cell.link = value_label(v);
        ++present;
      }
      row.cells.push_back(cell);
    }
    if (present < 2) continue;
    for (std::size_t k = 1; k < row.cells.size(); ++k) {
      const auto& a = row.cells[0].value;
      const auto& b = row.cells[k].value;
      row.ratios.push_back(a && b && *a != 0 ? std::optional<double>(*b / *a) : std::nullopt);
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string cross_generation_markdown(const CrossTable& t) {
  std::ostringstream os;
  os << "# Cross-generation comparison\n\n"
     << "The reference studies' quantities (data/coverage/) on each chip, in the study's unit; a reference "
        "value is the study's figure as written (a range's middle is used for the ratio). A ratio is the chip's "
        "value over the first chip's (" << markdown_escape(t.chips.empty() ? "" : t.chips[0])
     << "). Only quantities that at least two of the chips have are listed.\n\n";
  if (t.rows.empty()) {
    os << "No quantity is known for two of these chips.\n";
    return os.str();
  }
  MarkdownTable m;
  m.column("Quantity").column("Unit");
  for (const auto& c : t.chips) m.column(markdown_escape(c), MarkdownTable::Align::Right);
  for (std::size_t k = 1; k < t.chips.size(); ++k)
    m.column("ratio " + std::to_string(k + 1) + "/1", MarkdownTable::Align::Right);
  for (const CrossRow& r : t.rows) {
    std::string quantity = markdown_escape(r.quantity) + " `";
    quantity.append(markdown_escape(r.item)).append("`");
    std::vector<std::string> cells = {quantity, markdown_escape(r.unit)};
    for (const CrossCell& c : r.cells) cells.push_back(markdown_escape(c.text));
    for (const auto& q : r.ratios) cells.push_back(q ? fmt_num(*q, 3) + "×" : "");
    m.row(std::move(cells));
  }
  os << m.render() << "\nColumns: ";
  for (std::size_t k = 0; k < t.chips.size(); ++k) os << (k ? "; " : "") << k + 1 << " = " << markdown_escape(t.chips[k]);
  os << ".\n";
  return os.str();
}

nlohmann::json cross_generation_json(const CrossTable& t) {
  nlohmann::json rows = nlohmann::json::array();
  for (const CrossRow& r : t.rows) {
    nlohmann::json cells = nlohmann::json::array(), ratios = nlohmann::json::array();
    for (const CrossCell& c : r.cells)
      cells.push_back({{"value", c.value ? nlohmann::json(*c.value) : nlohmann::json(nullptr)},
                       {"text", c.text}, {"record", c.link}});
    for (const auto& q : r.ratios) ratios.push_back(q ? nlohmann::json(*q) : nlohmann::json(nullptr));
    rows.push_back({{"item", r.item}, {"quantity", r.quantity}, {"unit", r.unit}, {"values", cells}, {"ratios", ratios}});
  }
  return {{"chips", t.chips}, {"rows", rows}};
}

}  // namespace gd
