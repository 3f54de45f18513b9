#include "report/validation.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "core/match.hpp"
#include "report/data_files.hpp"
#include "report/format.hpp"
#include "report/headlines.hpp"
#include "report/item_values.hpp"

namespace gd {

namespace {

struct UnitDef {
  const char* name;
  const char* dim;
  double scale;
};

// Beyond the run-file units of unit_factor: what published figures are written in. Per-clock
// rates are counted per SM per cycle, operations and bytes apart.
constexpr UnitDef kUnits[] = {
    {"TB/s", "bw", 1e12},         {"GB/s", "bw", 1e9},          {"GiB/s", "bw", 1073741824.0},
    {"MB/s", "bw", 1e6},          {"TFLOPS", "ops", 1e12},      {"TOPS", "ops", 1e12},
    {"GFLOPS", "ops", 1e9},       {"Gop/s", "ops", 1e9},        {"bytes", "size", 1},
    {"B", "size", 1},             {"KiB", "size", 1024.0},      {"KB", "size", 1024.0},
    {"MiB", "size", 1048576.0},   {"MB", "size", 1048576.0},    {"GiB", "size", 1073741824.0},
    {"ns", "time", 1e-9},         {"us", "time", 1e-6},         {"ms", "time", 1e-3},
    {"s", "time", 1},             {"cycles", "clk", 1},         {"cyc", "clk", 1},
    {"count", "count", 1},        {"SMs", "count", 1},          {"TPCs", "count", 1},
    {"GPCs", "count", 1},         {"warps", "count", 1},        {"registers", "count", 1},
    {"blocks", "count", 1},       {"op/clk/SM", "opclk", 1},    {"OP/clk/SM", "opclk", 1},
    {"FLOP/clk/SM", "opclk", 1},  {"FLOP/clk", "opclk", 1},     {"B/clk/SM", "bclk", 1},
    {"B/clk", "bclk", 1},
};

const UnitDef* unit_def(const std::string& name) {
  for (const UnitDef& u : kUnits)
    if (name == u.name) return &u;
  return nullptr;
}

std::optional<double> same_dimension(double v, const std::string& from, const std::string& to) {
  if (const auto f = unit_factor(from, to)) return v * *f;
  const UnitDef* a = unit_def(from);
  const UnitDef* b = unit_def(to);
  if (!a || !b || std::string(a->dim) != b->dim) return std::nullopt;
  return v * a->scale / b->scale;
}

std::string dim_of(const std::string& unit) {
  const UnitDef* u = unit_def(unit);
  return u ? u->dim : "";
}

std::string param_text(const nlohmann::json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_integer()) return std::to_string(j.get<std::int64_t>());
  if (j.is_number_float()) return to_string(ParamValue(j.get<double>()));
  return j.dump();
}

bool has_params(const Record& r, const nlohmann::json& where) {
  if (!where.is_object()) return true;
  for (const auto& [k, v] : where.items()) {
    const ParamValue* p = find_param(r.params, k);
    if (!p || to_string(*p) != param_text(v)) return false;
  }
  return true;
}

double number_or(const nlohmann::json& j, const char* key, double fallback) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string string_or(const nlohmann::json& j, const char* key, const std::string& fallback = "") {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// Our value for a selector of extra.reference.ours (or an explanation's ours_alt).
struct Found {
  double value = 0;
  std::string unit;
  double clock_mhz = 0;
  std::string label;
};

std::optional<Found> find_ours(const RunDocument& run, const nlohmann::json& sel, std::string& why) {
  if (!sel.is_object()) {
    why = "the record names no value of ours";
    return std::nullopt;
  }
  if (const std::string q = string_or(sel, "headline"); !q.empty()) {
    const auto& rules = headline_rules();
    const auto rule = std::find_if(rules.begin(), rules.end(), [&](const HeadlineRule& r) { return r.quantity == q; });
    if (rule == rules.end()) {
      why = "no headline named " + q;
      return std::nullopt;
    }
    const auto h = resolve_headline(run, *rule);
    if (!h) {
      why = "the run has no record for the headline " + q;
      return std::nullopt;
    }
    return Found{h->value.value, rule->unit, h->value.record->sm_clock_mhz, headline_source_label(*h)};
  }
  const double factor = number_or(sel, "factor", 1.0);
  if (const std::string field = string_or(sel, "device"); !field.empty()) {
    const double v = number_or(run.device, field.c_str(), NAN);
    if (!std::isfinite(v)) {
      why = "the run's device description has no " + field;
      return std::nullopt;
    }
    return Found{v * factor, string_or(sel, "unit", "count"), 0, "device: " + field + " (driver-reported)"};
  }
  const std::string id = string_or(sel, "record");
  const std::string metric = string_or(sel, "metric");
  if (id.empty() || metric.empty()) {
    why = "the record names no value of ours";
    return std::nullopt;
  }
  const nlohmann::json where = sel.contains("params") ? sel["params"] : nlohmann::json::object();
  for (const Record& r : run.records) {
    if (r.status != Status::Ok || !glob_match(id, r.id) || !has_params(r, where)) continue;
    const Metric* m = r.metric(metric);
    if (!m || !std::isfinite(m->value())) continue;
    return Found{m->value() * factor, string_or(sel, "unit", m->unit), r.sm_clock_mhz,
                 record_label(r) + " " + metric};
  }
  why = "no ok record " + id + (where.empty() ? "" : " " + where.dump()) + " with " + metric;
  return std::nullopt;
}

struct Common {
  double published = 0, ours = 0;
  std::string unit;
};

// Both sides in one unit, or the reason they cannot be.
std::optional<double> ours_in(const Found& f, const std::string& unit, int run_sms, const std::string& compare) {
  if (compare == "per_sm_per_clock")
    if (const auto pc = per_sm_per_clock(f.value, f.unit, run_sms, f.clock_mhz); pc && pc->unit == unit) return pc->value;
  return convert_value(f.value, f.unit, unit, f.clock_mhz);
}

std::optional<Common> common_units(const ValidationRow& row, const nlohmann::json& ref, const Found& f, int run_sms,
                                   std::string& why) {
  if (row.compare == "per_sm_per_clock") {
    const int sms = static_cast<int>(number_or(ref, "sm_count", 0));
    const auto pc = per_sm_per_clock(row.published_value, row.published_unit, sms, row.published_clock_mhz);
    if (!pc) {
      why = "a per-clock comparison needs the published SM count and clock";
      return std::nullopt;
    }
    const auto o = ours_in(f, pc->unit, run_sms, row.compare);
    if (!o) {
      why = "ours (" + f.unit + (f.clock_mhz > 0 ? "" : ", no SM clock") + ") is not a per-clock rate";
      return std::nullopt;
    }
    return Common{pc->value, *o, pc->unit};
  }
  const auto o = convert_value(f.value, f.unit, row.published_unit, f.clock_mhz);
  if (!o) {
    why = "ours is in " + f.unit + ", the published figure in " + row.published_unit;
    return std::nullopt;
  }
  return Common{row.published_value, *o, row.published_unit};
}

// Outside the tolerance: the explanation decides, when it can be checked.
void judge_explanation(ValidationRow& row, const nlohmann::json& e, const RunDocument& run, int run_sms,
                       const nlohmann::json& ref) {
  row.explanation_kind = string_or(e, "kind", "method");
  row.explanation = string_or(e, "text");
  const bool has_band = e.contains("expected_ratio") && e["expected_ratio"].is_array() && e["expected_ratio"].size() == 2 &&
                        e["expected_ratio"][0].is_number() && e["expected_ratio"][1].is_number();
  double ratio = row.ratio;
  if (e.contains("ours_alt")) {
    std::string why;
    const auto alt = find_ours(run, e["ours_alt"], why);
    const auto c = alt ? common_units(row, ref, *alt, run_sms, why) : std::nullopt;
    if (!c) {
      row.verdict = Verdict::DiffersExplained;
      row.note = "the explanation's second measurement is not in this run (" + why + "): unchecked";
      return;
    }
    row.alt = c->ours, row.has_alt = true;
    ratio = c->ours / c->published;
  }
  if (!has_band && !row.has_alt) {
    row.verdict = Verdict::DiffersExplained;  // a reason with nothing to check it against
    return;
  }
  const double lo = has_band ? e["expected_ratio"][0].get<double>() : 1.0;
  const double hi = has_band ? e["expected_ratio"][1].get<double>() : 1.0;
  const double tol = row.tolerance_percent / 100;
  if (ratio >= std::min(lo, hi) * (1 - tol) && ratio <= std::max(lo, hi) * (1 + tol)) {
    row.verdict = Verdict::DiffersExplained;
    row.checked = true;
    return;
  }
  row.verdict = Verdict::Disagrees;
  row.note = "the explanation does not account for it: " + std::string(row.has_alt ? "under the published method ours is " : "ours is ") +
             fmt_num(ratio, 3) + "x published, expected " + fmt_num(lo, 3) + "-" + fmt_num(hi, 3) + "x";
}

ValidationRow validate_one(const Record& pub, const RunDocument& run, int run_sms) {
  ValidationRow row;
  row.reference = &pub;
  row.id = pub.id;
  const nlohmann::json ref = pub.extra.contains("reference") ? pub.extra["reference"] : nlohmann::json::object();
  row.source_key = string_or(ref, "source_key", string_or(ref, "source"));
  row.chip = string_or(ref, "chip");
  row.kind = string_or(ref, "kind", "latency");
  row.compare = string_or(ref, "compare", "as_is");
  row.method = string_or(ref, "method");
  row.as_written = string_or(ref, "as_written");
  row.published_clock_mhz = number_or(ref, "clock_mhz", 0);
  row.tolerance_percent = number_or(ref, "tolerance_percent", validation_tolerance_percent(row.kind));
  const Metric* m = pub.metric("value");
  if (!m || !std::isfinite(m->value()) || m->value() == 0) {
    row.verdict = Verdict::NotComparable;
    row.note = "the published record carries no figure";
    return row;
  }
  row.published_value = m->value();
  row.published_unit = m->unit;
  std::string why;
  const auto ours = find_ours(run, ref.contains("ours") ? ref["ours"] : nlohmann::json(), why);
  if (!ours) {
    row.verdict = Verdict::NotMeasured;
    row.note = why;
    return row;
  }
  row.ours_label = ours->label;
  row.ours_clock_mhz = ours->clock_mhz;
  const auto c = common_units(row, ref, *ours, run_sms, why);
  if (!c) {
    row.verdict = Verdict::NotComparable;
    row.note = why;
    return row;
  }
  row.published = c->published, row.ours = c->ours, row.unit = c->unit;
  row.ratio = row.ours / row.published;
  if (std::abs(row.ratio - 1) <= row.tolerance_percent / 100) {
    row.verdict = Verdict::Agrees;
    return row;
  }
  if (!ref.contains("explanation") || !ref["explanation"].is_object()) {
    row.verdict = Verdict::Disagrees;
    return row;
  }
  judge_explanation(row, ref["explanation"], run, run_sms, ref);
  return row;
}

}  // namespace

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::Disagrees: return "disagrees";
    case Verdict::DiffersExplained: return "differs, explained";
    case Verdict::Agrees: return "agrees";
    case Verdict::NotMeasured: return "not measured";
    case Verdict::NotComparable: return "not comparable";
  }
  return "?";
}

double validation_tolerance_percent(const std::string& kind) {
  if (kind == "latency" || kind == "bandwidth" || kind == "rate") return 5;
  if (kind == "rate_per_clock") return 3;
  if (kind == "size") return 1;
  if (kind == "count") return 0.5;
  if (kind == "time") return 10;
  return 5;
}

std::optional<double> convert_value(double v, const std::string& from, const std::string& to, double clock_mhz) {
  if (const auto same = same_dimension(v, from, to)) return same;
  const std::string a = dim_of(from), b = dim_of(to);
  if (clock_mhz <= 0) return std::nullopt;
  if (a == "clk" && b == "time") return same_dimension(v / clock_mhz * 1e3, "ns", to);
  if (a == "time" && b == "clk") {
    const auto ns = same_dimension(v, from, "ns");
    return ns ? std::optional<double>(*ns * clock_mhz / 1e3) : std::nullopt;
  }
  return std::nullopt;
}

std::optional<PerClockValue> per_sm_per_clock(double v, const std::string& unit, int sm_count, double clock_mhz) {
  if (sm_count <= 0 || clock_mhz <= 0) return std::nullopt;
  const double per = 1.0 / (sm_count * clock_mhz * 1e6);
  if (const auto ops = same_dimension(v, unit, "TFLOPS"); ops && dim_of(unit) == "ops")
    return PerClockValue{*ops * 1e12 * per, "op/clk/SM"};
  if (const auto bytes = same_dimension(v, unit, "TB/s"); bytes && (dim_of(unit) == "bw" || unit == "GB/s"))
    return PerClockValue{*bytes * 1e12 * per, "B/clk/SM"};
  return std::nullopt;
}

std::vector<std::string> published_reference_files() {
  return data_files("reference", [](const std::string& name) {
    return name.find("-published-") != std::string::npos && name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
  });
}

int ValidationReport::count(Verdict v) const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [v](const ValidationRow& r) { return r.verdict == v; }));
}

int ValidationReport::explained_checked() const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [](const ValidationRow& r) {
    return r.verdict == Verdict::DiffersExplained && r.checked;
  }));
}

ValidationReport validate_run(const RunDocument& run, const std::vector<const RunDocument*>& references,
                              const std::vector<std::string>& reference_labels) {
  if (is_reference(run)) throw UserError("validate reads a run; the first file is a reference dataset");
  ValidationReport rep;
  rep.chip = chip_label(run);
  rep.references = reference_labels;
  const int run_sms = static_cast<int>(number_or(run.device, "sm_count", 0));
  for (std::size_t i = 0; i < references.size(); ++i) {
    const RunDocument& ref = *references[i];
    if (!is_reference(ref))
      throw UserError((i < reference_labels.size() ? reference_labels[i] : std::string("a --reference")) +
                      ": not a reference dataset (options.reference is not set)");
    for (const Record& pub : ref.records)
      if (pub.status == Status::Ok) rep.rows.push_back(validate_one(pub, run, run_sms));
  }
  std::stable_sort(rep.rows.begin(), rep.rows.end(),
                   [](const ValidationRow& a, const ValidationRow& b) { return a.verdict < b.verdict; });
  return rep;
}

namespace {

std::string published_text(const ValidationRow& r) {
  std::string s = fmt_num(r.published_value, 4) + " " + r.published_unit;
  if (r.published_clock_mhz > 0) s += " @ " + fmt_num(r.published_clock_mhz, 4) + " MHz";
  return s;
}

std::string why_text(const ValidationRow& r) {
  std::string s;
  if (!r.explanation.empty() || !r.explanation_kind.empty()) {
    s = r.explanation_kind + (r.verdict == Verdict::DiffersExplained ? (r.checked ? " (checked)" : " (unchecked)") : "") +
        ": " + r.explanation;
    if (r.has_alt) s += " [ours under the published method: " + fmt_num(r.alt, 4) + " " + r.unit + "]";
  }
  if (!r.note.empty()) s += (s.empty() ? "" : "; ") + r.note;
  return s;
}

std::string section(const ValidationReport& rep, Verdict v) {
  MarkdownTable t;
  t.column("Quantity").column("Source").column("Chip").column("Method").column("As written")
      .column("Published", MarkdownTable::Align::Right).column("Published (common)", MarkdownTable::Align::Right)
      .column("Ours (common)", MarkdownTable::Align::Right).column("Unit").column("Ours / published", MarkdownTable::Align::Right)
      .column("Tol.", MarkdownTable::Align::Right).column("Our record").column("Why, or what was tried");
  for (const ValidationRow& r : rep.rows) {
    if (r.verdict != v) continue;
    const bool compared = v != Verdict::NotMeasured && v != Verdict::NotComparable;
    t.row({"`" + markdown_escape(r.id) + "`", markdown_escape(r.source_key), markdown_escape(r.chip), markdown_escape(r.method),
           markdown_escape(r.as_written), markdown_escape(published_text(r)), compared ? fmt_num(r.published, 4) : "",
           compared ? fmt_num(r.ours, 4) : "", markdown_escape(r.unit), compared ? fmt_num(r.ratio, 3) + "x" : "",
           fmt_num(r.tolerance_percent, 2) + " %", markdown_escape(r.ours_label), markdown_escape(why_text(r))});
  }
  if (t.empty()) return "";
  return "## " + to_string(v) + " (" + std::to_string(rep.count(v)) + ")\n\n" + t.render() + "\n";
}

nlohmann::json finite_or_null(double v, bool use = true) {
  return use && std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

}  // namespace

std::string validation_gaps_markdown(const ValidationReport& rep) {
  MarkdownTable t;
  t.column("Quantity").column("Source").column("Chip").column("Published", MarkdownTable::Align::Right).column("Why not measured");
  for (const ValidationRow& r : rep.rows)
    if (r.verdict == Verdict::NotMeasured)
      t.row({"`" + markdown_escape(r.id) + "`", markdown_escape(r.source_key), markdown_escape(r.chip),
             markdown_escape(fmt_num(r.published_value) + " " + r.published_unit), markdown_escape(r.note)});
  if (t.empty()) return "";
  return "## Published quantities not measured\n\n" + std::to_string(rep.count(Verdict::NotMeasured)) + " of the " +
         std::to_string(rep.rows.size()) +
         " quantities others published for this chip (`gpudissect validate`) have no value in this run: gaps beside "
         "the studies' items above.\n\n" + t.render() + "\n";
}

std::string validation_markdown(const ValidationReport& rep) {
  std::string md = "# Validation: " + markdown_escape(rep.chip) + " against the published record\n\n";
  md += "Published datasets: ";
  for (std::size_t i = 0; i < rep.references.size(); ++i)
    md += (i ? ", " : "") + ("`" + markdown_escape(rep.references[i]) + "`");
  md += ". Each published figure beside ours in common units (cycles and ns at the stated clocks; per-chip rates per SM "
        "per clock), with a verdict: within the tolerance of its kind (latency 5 %, bandwidth 5 %, per-clock rates 3 %, "
        "sizes 1 %, counts 0.5 %, times 10 %) it agrees; outside it, an explanation recorded with the published figure "
        "(docs/validation.md) either accounts for the ratio (checked), states a reason that cannot be checked "
        "(unchecked), or falls short (disagrees).\n\n";
  MarkdownTable counts;
  counts.column("Verdict").column("Quantities", MarkdownTable::Align::Right);
  const int explained = rep.count(Verdict::DiffersExplained);
  for (Verdict v : {Verdict::Disagrees, Verdict::DiffersExplained, Verdict::Agrees, Verdict::NotMeasured, Verdict::NotComparable}) {
    if (v == Verdict::NotComparable && rep.count(v) == 0) continue;
    std::string n = std::to_string(rep.count(v));
    if (v == Verdict::DiffersExplained)
      n += " (" + std::to_string(rep.explained_checked()) + " checked, " + std::to_string(explained - rep.explained_checked()) +
           " unchecked)";
    counts.row({to_string(v), n});
  }
  md += counts.render() + "\n";
  const int compared = rep.count(Verdict::Agrees) + explained + rep.count(Verdict::Disagrees);
  if (compared > 0)
    md += "**" + std::to_string(rep.count(Verdict::Agrees) + explained) + " of " + std::to_string(compared) +
          " compared quantities agree or differ for a stated reason (" +
          fmt_num(100.0 * (rep.count(Verdict::Agrees) + explained) / compared, 3) + " %); " +
          std::to_string(rep.count(Verdict::Disagrees)) + " disagree.**\n\n";
  for (Verdict v : {Verdict::Disagrees, Verdict::DiffersExplained, Verdict::Agrees, Verdict::NotMeasured, Verdict::NotComparable})
    md += section(rep, v);
  return md;
}

nlohmann::json validation_json(const ValidationReport& rep) {
  nlohmann::json rows = nlohmann::json::array();
  for (const ValidationRow& r : rep.rows) {
    const bool compared = r.verdict != Verdict::NotMeasured && r.verdict != Verdict::NotComparable;
    nlohmann::json explanation = nullptr;
    if (!r.explanation_kind.empty())
      explanation = {{"kind", r.explanation_kind}, {"text", r.explanation}, {"checked", r.checked},
                     {"ours_alt", finite_or_null(r.alt, r.has_alt)}};
    rows.push_back({{"id", r.id},
                    {"source", r.source_key},
                    {"chip", r.chip},
                    {"kind", r.kind},
                    {"method", r.method},
                    {"as_written", r.as_written},
                    {"published", {{"value", r.published_value}, {"unit", r.published_unit},
                                   {"clock_mhz", finite_or_null(r.published_clock_mhz, r.published_clock_mhz > 0)}}},
                    {"compare", r.compare},
                    {"unit", r.unit},
                    {"published_common", finite_or_null(r.published, compared)},
                    {"ours_common", finite_or_null(r.ours, compared)},
                    {"ratio", finite_or_null(r.ratio, compared)},
                    {"tolerance_percent", r.tolerance_percent},
                    {"ours", r.ours_label},
                    {"ours_sm_clock_mhz", finite_or_null(r.ours_clock_mhz, r.ours_clock_mhz > 0)},
                    {"verdict", to_string(r.verdict)},
                    {"explanation", explanation},
                    {"note", r.note}});
  }
  return {{"chip", rep.chip},
          {"references", rep.references},
          {"counts", {{"agrees", rep.count(Verdict::Agrees)},
                      {"differs_explained", rep.count(Verdict::DiffersExplained)},
                      {"differs_explained_checked", rep.explained_checked()},
                      {"disagrees", rep.count(Verdict::Disagrees)},
                      {"not_measured", rep.count(Verdict::NotMeasured)},
                      {"not_comparable", rep.count(Verdict::NotComparable)}}},
          {"rows", rows}};
}

}  // namespace gd
