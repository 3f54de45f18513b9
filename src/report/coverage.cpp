#include "report/coverage.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <string_view>

#include "report/format.hpp"
#include "report/seed_items.hpp"

namespace gd {

std::string to_string(CoverageState s) {
  switch (s) {
    case CoverageState::Measured: return "measured";
    case CoverageState::NotRun: return "not in this run";
    case CoverageState::Covered: return "covered";
    case CoverageState::NotApplicable: return "not applicable";
    case CoverageState::Planned: return "planned";
  }
  return "?";
}

std::vector<std::string> unknown_covers(const std::vector<const ProbeSpec*>& probes) {
  std::vector<std::string> out;
  for (const ProbeSpec* p : probes)
    for (const SeedCover& c : p->covers)
      if (!is_seed_item(c.item)) out.push_back(p->id + ": " + c.item);
  return out;
}

// Our value in the seed's unit where the two convert, else in ours.
static std::string ours_text(const ItemValue& v, const std::string& seed_unit) {
  if (!v.text.empty()) return v.text;
  if (auto f = unit_factor(v.unit, seed_unit)) return fmt_num(v.value * *f) + " " + seed_unit;
  return fmt_num(v.value) + " " + v.unit;
}

// `text` as a Markdown code span (built by appending: g++ 12 warns falsely on "`" + string&&).
static std::string code_span(std::string_view text) {
  std::string out(1, '`');
  out.append(text);
  out += '`';
  return out;
}

static int device_cc(const nlohmann::json& d) {
  if (!d.is_object()) return 0;
  return d.value("cc_major", 0) * 10 + d.value("cc_minor", 0);
}

CoverageReport compute_coverage(const std::vector<const ProbeSpec*>& probes, const RunDocument* run) {
  CoverageReport rep;
  rep.with_run = run != nullptr;
  rep.unknown_items = unknown_covers(probes);
  std::map<std::string, ItemValue> values;
  int cc = 0, gpus = 1;
  if (run) {
    values = item_values(*run, probes);
    rep.chip = chip_label(*run);
    cc = device_cc(run->device);
    if (run->device.is_object()) gpus = std::max(1, run->device.value("gpu_count", 1));
  }
  std::map<std::string, std::size_t> index;
  for (const SeedItem& s : seed_items()) {
    auto [it, fresh] = index.emplace(s.id, rep.items.size());
    if (fresh) {
      ItemCoverage ic;
      ic.id = s.id, ic.category = s.category, ic.item = s.item, ic.unit = s.unit;
      rep.items.push_back(std::move(ic));
    }
    ItemCoverage& ic = rep.items[it->second];
    const std::string v = s.seed_value.empty() ? "(no figure)" : s.seed_value;
    ic.seed += (ic.seed.empty() ? "" : "; ") + s.arch + " " + v;
  }
  for (ItemCoverage& ic : rep.items) {
    const ProbeSpec* by = nullptr;
    const SeedCover* cover = nullptr;
    for (const ProbeSpec* p : probes)
      for (const SeedCover& c : p->covers)
        if (!by && c.item == ic.id) by = p, cover = &c;
    if (by) ic.probe = by->id, ic.metric = cover->metric;
    if (!run) {
      ic.state = by ? CoverageState::Covered : CoverageState::Planned;
      continue;
    }
    if (auto v = values.find(ic.id); v != values.end()) {
      ic.state = CoverageState::Measured;
      ic.ours = ours_text(v->second, ic.unit);
      ic.reason = value_label(v->second);
      if (!v->second.record)
        ic.probe = "device", ic.metric = v->second.metric, ic.reason = "the driver's properties, recorded with the run";
      continue;
    }
    if (auto why = not_applicable_reason(ic.id, cc, gpus)) {
      ic.state = CoverageState::NotApplicable;
      ic.reason = *why;
      continue;
    }
    if (by) {
      // Skipped on this chip: the harness said why.
      auto skipped = std::find_if(run->records.begin(), run->records.end(),
                                  [&](const Record& r) { return r.id == by->id && r.status == Status::Skipped; });
      if (skipped != run->records.end()) {
        ic.state = CoverageState::NotApplicable;
        ic.reason = skipped->reason;
      } else {
        ic.state = CoverageState::NotRun;
      }
      continue;
    }
    ic.state = CoverageState::Planned;
  }
  std::map<std::string, std::size_t> cat_index;
  CategoryCoverage total;
  total.category = "total";
  for (const ItemCoverage& ic : rep.items) {
    auto [it, fresh] = cat_index.emplace(ic.category, rep.categories.size());
    if (fresh) rep.categories.emplace_back().category = ic.category;
    for (CategoryCoverage* c : {&rep.categories[it->second], &total}) {
      ++c->items;
      switch (ic.state) {
        case CoverageState::Measured: ++c->measured; break;
        case CoverageState::NotRun: ++c->not_run; break;
        case CoverageState::Covered: ++c->covered; break;
        case CoverageState::NotApplicable: ++c->not_applicable; break;
        case CoverageState::Planned: ++c->planned; break;
      }
    }
  }
  rep.categories.push_back(total);
  return rep;
}

static std::string percent(int part, int whole) {
  if (whole <= 0) return "–";
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(0);
  os << 100.0 * part / whole << " %";
  return os.str();
}

std::string coverage_markdown(const CoverageReport& c, bool per_item) {
  std::ostringstream os;
  os << "## Coverage of the seeds' items\n\n";
  if (c.with_run)
    os << "Each item the seeds measure (data/coverage/seed-items.csv), on " << markdown_escape(c.chip)
       << ": **measured** (a probe covers it and this run has its value), **not in this run** (a probe covers it, "
          "the run did not select it), **not applicable** to this chip (with the reason), or **planned** (no probe "
          "yet). Measured share = measured / (items − not applicable).\n\n";
  else
    os << "Each item the seeds measure (data/coverage/seed-items.csv): **covered** by a probe of this build, or "
          "**planned** (no probe yet). Give a run file to see what it measured.\n\n";
  MarkdownTable t;
  t.column("Category");
  t.column("Items", MarkdownTable::Align::Right);
  if (c.with_run) {
    t.column("Measured", MarkdownTable::Align::Right)
        .column("Not in run", MarkdownTable::Align::Right)
        .column("N/A", MarkdownTable::Align::Right)
        .column("Planned", MarkdownTable::Align::Right)
        .column("Measured share", MarkdownTable::Align::Right);
  } else {
    t.column("Covered", MarkdownTable::Align::Right).column("Planned", MarkdownTable::Align::Right)
        .column("Covered share", MarkdownTable::Align::Right);
  }
  for (const CategoryCoverage& k : c.categories) {
    const std::string name = k.category == "total" ? "**total**" : markdown_escape(k.category);
    if (c.with_run)
      t.row({name, std::to_string(k.items), std::to_string(k.measured), std::to_string(k.not_run),
             std::to_string(k.not_applicable), std::to_string(k.planned),
             percent(k.measured, k.items - k.not_applicable)});
    else
      t.row({name, std::to_string(k.items), std::to_string(k.covered), std::to_string(k.planned),
             percent(k.covered, k.items)});
  }
  os << t.render() << "\n";
  if (!c.unknown_items.empty()) {
    os << "> ⚠ **Covers naming no seed item** (fix the probe's ProbeSpec::covers):";
    for (const auto& u : c.unknown_items) os << " " << code_span(markdown_escape(u));
    os << "\n\n";
  }
  if (!per_item) return os.str();
  MarkdownTable items;
  items.column("Item").column("Quantity (the seed's wording)").column("Status");
  items.column("Ours", MarkdownTable::Align::Right).column("Seeds").column("Probe / reason");
  for (const ItemCoverage& ic : c.items) {
    std::string where = ic.reason;
    if (ic.state == CoverageState::Measured) where = code_span(ic.probe) + " " + ic.metric + " (" + ic.reason + ")";
    else if (ic.state == CoverageState::Covered || ic.state == CoverageState::NotRun) where = code_span(ic.probe) + " " + ic.metric;
    items.row({code_span(markdown_escape(ic.id)), markdown_escape(ic.item), to_string(ic.state), markdown_escape(ic.ours),
               markdown_escape(ic.seed + (ic.unit.empty() ? "" : " [" + ic.unit + "]")), markdown_escape(where)});
  }
  os << "### Items\n\n" << items.render() << "\n";
  return os.str();
}

nlohmann::json coverage_categories_json(const CoverageReport& c) {
  nlohmann::json out = nlohmann::json::array();
  for (const CategoryCoverage& k : c.categories) {
    if (k.category == "total") continue;
    out.push_back({{"category", k.category},
                   {"measured", c.with_run ? k.measured : k.covered},
                   {"planned", k.planned + k.not_run},
                   {"not_applicable", k.not_applicable}});
  }
  return out;
}

}  // namespace gd
