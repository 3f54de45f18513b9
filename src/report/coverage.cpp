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
    case CoverageState::Reported: return "reported";
    case CoverageState::NotRun: return "not in this run";
    case CoverageState::Covered: return "covered";
    case CoverageState::NotApplicable: return "not applicable";
    case CoverageState::Open: return "still open";
  }
  return "?";
}

std::vector<std::string> unknown_covers(const std::vector<const ProbeSpec*>& probes) {
  std::vector<std::string> out;
  for (const ProbeSpec* p : probes)
    for (const SeedCover* c : covers_of(*p))
      if (!is_seed_item(c->item)) out.push_back(p->id + ": " + c->item);
  return out;
}

bool is_undetermined(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return false;
  for (const std::string_view word : {"undetermined", "absent"})
    if (text.compare(first, word.size(), word) == 0) return true;
  return false;
}

// The record carries what the cover reads: its metric, or its extra.<field> as non-empty text.
static bool carries(const Record& r, const std::string& metric) {
  static const std::string extra = "extra.";
  if (metric == kSassMetric || metric == kRanMetric) return !checked_opcodes(r.sass).empty();
  if (metric.rfind(extra, 0) != 0) return r.metric(metric) != nullptr;
  const auto f = r.extra.find(metric.substr(extra.size()));
  return f != r.extra.end() && f->is_string() && !f->get<std::string>().empty();
}

// Every one of `where` is a param of the record with that value; with `absent_ok`, a param the
// record lacks does not disqualify it (a skip recorded for the whole probe has no params).
static bool params_allow(const Params& params, const Params& where, bool absent_ok) {
  return std::all_of(where.begin(), where.end(), [&](const auto& kv) {
    const ParamValue* v = find_param(params, kv.first);
    return v ? to_string(*v) == to_string(kv.second) : absent_ok;
  });
}

std::string CoverSelection::problem() const {
  if (ok()) return "";
  std::string out = probe->id + ": " + cover->item + " (" + cover->metric;
  if (!cover->where.empty()) out += " where " + to_string(cover->where);
  out += ") selects ";
  if (records.empty()) return out + "no record";
  out += std::to_string(records.size()) + " records:";
  for (const Record* r : records) out += " [" + to_string(r->params) + "]";
  return out;
}

std::vector<CoverSelection> cover_selections(const RunDocument& run, const std::vector<const ProbeSpec*>& probes) {
  std::vector<CoverSelection> out;
  for (const ProbeSpec* p : probes)
    for (const SeedCover* cover : covers_of(*p)) {
      const SeedCover& c = *cover;
      CoverSelection s{p, cover, {}, nullptr};
      bool ran_there = false;
      for (const Record& r : run.records) {
        if (r.id != p->id) continue;
        const bool there = r.status == Status::Ok && params_allow(r.params, c.where, false);
        ran_there = ran_there || there;
        if (there && carries(r, c.metric)) s.records.push_back(&r);
        else if (r.status == Status::Skipped && !s.skipped && params_allow(r.params, c.where, true)) s.skipped = &r;
      }
      const auto spec = std::find_if(p->metrics.begin(), p->metrics.end(), [&](const MetricSpec& m) { return m.name == c.metric; });
      s.needs_ncu = s.records.empty() && ran_there && spec != p->metrics.end() &&
                    spec->description.find("--ncu") != std::string::npos;
      out.push_back(std::move(s));
    }
  return out;
}

// Why a run's answer to an item is no measurement: "undetermined" text, or one point of a curve
// (its cover selects several records, so the first point stood for them all; or the item is a
// curve and the record a raw point, not the knee, best or fit derived from the curve). "" when it
// is one.
static std::string not_a_measurement(const std::string& item, const ItemValue& v,
                                     const std::vector<CoverSelection>& selections) {
  if (!v.text.empty() && is_undetermined(v.text)) return "the run's answer is undetermined: " + v.text;
  if (!v.record) return "";
  // Several derived records (one per schedule, per source) are as ambiguous as several points.
  for (const CoverSelection& s : selections) {
    if (s.cover->item != item || s.cover->metric != v.metric) continue;
    if (std::find(s.records.begin(), s.records.end(), v.record) == s.records.end()) continue;
    if (s.records.size() > 1)
      return "one point of a curve: the cover selects " + std::to_string(s.records.size()) + " records of " +
             s.probe->id + " (make its `where` name the derived knee or best)";
  }
  if (v.record->derived) return "";
  if (auto axis = curve_axis(item))
    return "one point of a curve over " + *axis + ": " + record_label(*v.record) +
           " is a raw point, and only a record derived from the curve (knee, best, fit) answers it";
  return "";
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
  std::vector<CoverSelection> selections;
  int cc = 0, gpus = 1;
  if (run) {
    values = item_values(*run, probes);
    selections = cover_selections(*run, probes);
    for (const CoverSelection& s : selections)
      if (!s.ok()) rep.cover_problems.push_back(s.problem());
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
      for (const SeedCover* c : covers_of(*p))
        if (!by && c->item == ic.id) by = p, cover = c;
    if (by) ic.probe = by->id, ic.metric = cover->metric;
    if (!run) {
      ic.state = by ? CoverageState::Covered : CoverageState::Open;
      continue;
    }
    if (auto v = values.find(ic.id); v != values.end()) {
      const ItemValue& value = v->second;
      ic.ours = ours_text(value, ic.unit);
      ic.reason = value_label(value);
      ic.state = CoverageState::Measured;
      if (value.record) ic.probe = value.record->id, ic.metric = value.metric;
      if (!value.record) {
        ic.state = CoverageState::Reported;
        ic.probe = "device", ic.metric = value.metric, ic.reason = "the driver's properties, recorded with the run";
      } else if (auto source = reported_value_source(value.record->id, value.metric)) {
        ic.state = CoverageState::Reported;
        ic.reason = value_label(value) + ": " + *source;
      } else if (auto why = not_a_measurement(ic.id, value, selections); !why.empty()) {
        ic.state = CoverageState::Open;
        ic.reason = why;
      }
      continue;
    }
    if (auto why = not_applicable_reason(ic.id, cc, gpus)) {
      ic.state = CoverageState::NotApplicable;
      ic.reason = *why;
      continue;
    }
    if (by) {
      // Skipped on this chip where the cover points (not at some other point of the probe): the
      // harness said why.
      const auto sel = std::find_if(selections.begin(), selections.end(),
                                    [&](const CoverSelection& s) { return s.cover->item == ic.id && s.skipped; });
      if (sel != selections.end()) {
        ic.state = CoverageState::NotApplicable;
        ic.reason = sel->skipped->reason;
      } else {
        ic.state = CoverageState::NotRun;
      }
      continue;
    }
    ic.state = CoverageState::Open;
    ic.reason = by ? "" : "no probe yet";
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
        case CoverageState::Reported: ++c->reported; break;
        case CoverageState::NotRun: ++c->not_run; break;
        case CoverageState::Covered: ++c->covered; break;
        case CoverageState::NotApplicable: ++c->not_applicable; break;
        case CoverageState::Open: ++c->open; break;
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
  os << "## Coverage of the reference studies' items\n\n";
  if (c.with_run)
    os << "Each item the reference studies measure (the SM_120 microarchitecture paper, the SM_100 study, the "
          "SM100a ISA reference; listed in data/coverage/), on " << markdown_escape(c.chip)
       << ": **measured** (timed or observed on the GPU by our code in this run), **reported** (a driver or NVML "
          "property recorded with the run), **not in this run** (a probe covers it, the run did not select it), "
          "**not applicable** to this chip (with the reason), or **still open** (no probe yet, or the run's answer is "
          "undetermined or a single point of a curve). Share = (measured + reported) / (items − not applicable); "
          "measured share = measured / (items − not applicable).\n\n";
  else
    os << "Each item the reference studies measure (the SM_120 microarchitecture paper, the SM_100 study, the "
          "SM100a ISA reference; listed in data/coverage/): **covered** by a probe of this build, or "
          "**still open** (no probe yet). Give a run file to see what it measured.\n\n";
  MarkdownTable t;
  t.column("Category");
  t.column("Items", MarkdownTable::Align::Right);
  if (c.with_run) {
    for (const char* h : {"Measured", "Reported", "Not in run", "N/A", "Still open", "Share", "Measured share"})
      t.column(h, MarkdownTable::Align::Right);
  } else {
    t.column("Covered", MarkdownTable::Align::Right).column("Still open", MarkdownTable::Align::Right)
        .column("Covered share", MarkdownTable::Align::Right);
  }
  for (const CategoryCoverage& k : c.categories) {
    const std::string name = k.category == "total" ? "**total**" : markdown_escape(k.category);
    const int applicable = k.items - k.not_applicable;
    if (c.with_run)
      t.row({name, std::to_string(k.items), std::to_string(k.measured), std::to_string(k.reported),
             std::to_string(k.not_run), std::to_string(k.not_applicable), std::to_string(k.open),
             percent(k.measured + k.reported, applicable), percent(k.measured, applicable)});
    else
      t.row({name, std::to_string(k.items), std::to_string(k.covered), std::to_string(k.open),
             percent(k.covered, k.items)});
  }
  os << t.render() << "\n";
  if (!c.unknown_items.empty()) {
    os << "> ⚠ **Covers naming no item of the reference studies** (fix the probe's ProbeSpec::covers):";
    for (const auto& u : c.unknown_items) os << " " << code_span(markdown_escape(u));
    os << "\n\n";
  }
  if (!c.cover_problems.empty()) {
    os << "> ⚠ **Covers selecting no record or several** (make `where` name one record: the derived knee or best "
          "of a curve, or the point the item is about):\n";
    for (const auto& p : c.cover_problems) os << "> - " << markdown_escape(p) << "\n";
    os << "\n";
  }
  if (!per_item) return os.str();
  MarkdownTable items;
  items.column("Item").column("Quantity (the study's wording)").column("Status");
  items.column("Ours", MarkdownTable::Align::Right).column("Studies").column("Probe / reason");
  for (const ItemCoverage& ic : c.items) {
    std::string where = ic.reason;
    if (ic.state == CoverageState::Measured || ic.state == CoverageState::Reported)
      where = code_span(ic.probe) + " " + ic.metric + " (" + ic.reason + ")";
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
                   {"reported", k.reported},
                   {"planned", k.open + k.not_run},
                   {"not_applicable", k.not_applicable}});
  }
  return out;
}

}  // namespace gd
