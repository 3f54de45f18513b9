#include "report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

#include "analysis/rank_test.hpp"
#include "core/clock_check.hpp"
#include "core/json_fields.hpp"
#include "report/format.hpp"
#include "report/headlines.hpp"
#include "report/run_to_run.hpp"
#include "report/run_view.hpp"

namespace gd {

namespace {

// A derived record and a measured point with the same params are different things.
std::string record_key(const Record& r) {
  return r.id + '\n' + (r.derived ? "derived" : "measured") + '\n' + to_json(r.params).dump();
}

struct Matching {
  std::map<const Record*, const Record*> b_of;  // matched A record -> its B record
  std::vector<const Record*> both;              // matched A records, in A's order
  std::vector<const Record*> only_a, only_b;
};

Matching match_records(const RunDocument& a, const RunDocument& b) {
  std::map<std::string, const Record*> b_by_key;
  for (const Record& r : b.records) b_by_key.try_emplace(record_key(r), &r);
  Matching m;
  std::map<const Record*, bool> b_used;
  for (const Record& r : a.records) {
    auto it = b_by_key.find(record_key(r));
    if (it == b_by_key.end() || b_used[it->second]) {
      m.only_a.push_back(&r);
      continue;
    }
    b_used[it->second] = true;
    m.b_of[&r] = it->second;
    m.both.push_back(&r);
  }
  for (const Record& r : b.records)
    if (!b_used[&r]) m.only_b.push_back(&r);
  return m;
}

std::string side_by_side(const std::vector<Fact>& a, const std::vector<Fact>& b) {
  MarkdownTable t;
  t.column("").column("A").column("B");
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) t.row({a[i].label, a[i].value, b[i].value});
  return t.render();
}

std::string run_line(const char* side, const RunDocument& doc) {
  return std::string("- **") + side + "**: " + markdown_escape(device_name(doc.device)) + ", run `" +
         markdown_escape(doc.run_id) + "` started " + markdown_escape(doc.started_at) +
         (doc.complete ? "" : " (**INTERRUPTED**)") + "\n";
}

std::string value_cell(const Metric* m) {
  return m ? markdown_escape(fmt_num(m->value()) + (m->unit.empty() ? "" : " " + m->unit)) : "—";
}

enum class Better { Lower, Higher, Unknown };
Better better_of(const std::string& metric) {
  const auto family = metric.substr(0, metric.find('/'));
  if (family == "latency") return Better::Lower;
  if (family == "bandwidth" || family == "throughput") return Better::Higher;
  return Better::Unknown;
}

std::string ratio_cell(const Metric* a, const Metric* b) {
  if (!a || !b) return "";
  if (a->unit != b->unit) return "n/a (units differ)";
  const auto ratio = ratio_of(*a, *b);
  return ratio ? fmt_num(*ratio) : "n/a";
}

// B/A's 95 % interval, or why there is none.
std::string interval_cell(const Change& c) {
  if (c.noise <= 0) return "n/a (one sample)";
  return fmt_num(c.low(), 4) + "–" + fmt_num(c.high(), 4);
}

// The p-value and the test that gave it; the rank test adds its effect size, P(B > A).
std::string p_cell(const Change& c) {
  if (!std::isfinite(c.p_value)) return "n/a";
  char buf[64];
  if (c.p_value < 1e-6) std::snprintf(buf, sizeof buf, "<1e-6");
  else std::snprintf(buf, sizeof buf, "%.1e", c.p_value);
  std::string out = buf;
  if (c.test == Change::Test::Rank) {
    std::snprintf(buf, sizeof buf, " (rank test, P(B>A) %.2f)", c.superiority);
    out += buf;
  } else if (c.test == Change::Test::Median) {
    out += " (medians)";
  } else if (c.test == Change::Test::RunToRun) {
    out += " (medians, run-to-run)";
  }
  return out;
}

std::string sass_note(const Record& a, const Record& b) {
  std::string note;
  if (a.derived) return note;
  if (a.sass.status != SassStatus::Verified) note += "A " + sass_flag(a.sass.status);
  if (b.sass.status != SassStatus::Verified) note += (note.empty() ? "" : ", ") + ("B " + sass_flag(b.sass.status));
  return note;
}

std::vector<std::string> metric_names(const Record& a, const Record& b) {
  std::vector<std::string> names;
  for (const Record* r : {&a, &b})
    for (const Metric& m : r->metrics)
      if (std::find(names.begin(), names.end(), m.name) == names.end()) names.push_back(m.name);
  return names;
}

int contended_points(const RunDocument& run) {
  return int(std::count_if(run.records.begin(), run.records.end(), [](const Record& r) {
    return r.status == Status::Ok && !r.derived && has_flag(r, kContendedFlag);
  }));
}

struct Tally {
  int metrics = 0;
  ChangeCounts changes;
};

void count(ChangeCounts& c, const std::optional<Change>& ch) {
  if (!ch) return;
  c.regressions += ch->kind == Change::Kind::Regression;
  c.improvements += ch->kind == Change::Kind::Improvement;
  c.changed += ch->kind == Change::Kind::Changed;
  c.contended += ch->kind == Change::Kind::Contended;
}

std::string change_cell(const std::optional<Change>& ch) {
  if (!ch || ch->kind == Change::Kind::Same) return "";
  char pct[32];
  std::snprintf(pct, sizeof pct, "%+.1f%%", (ch->ratio - 1) * 100);
  switch (ch->kind) {
    case Change::Kind::Regression: return std::string("**") + pct + " regression** ⚠";
    case Change::Kind::Improvement: return std::string(pct) + " improvement";
    case Change::Kind::Contended: return std::string(pct) + " (contended: not counted)";
    default: return std::string(pct) + " changed";
  }
}

std::string probe_table(const ProbeRecords& probe, const Matching& m, const CompareOptions& opts, Tally& tally) {
  const auto params = param_names(probe.records);
  bool any_note = false;
  for (const Record* a : probe.records) any_note |= !sass_note(*a, *m.b_of.at(a)).empty();
  MarkdownTable t;
  for (const auto& p : params) t.column(markdown_escape(p), MarkdownTable::Align::Right);
  t.column("Metric").column("A", MarkdownTable::Align::Right).column("B", MarkdownTable::Align::Right);
  t.column("B/A", MarkdownTable::Align::Right).column("Change");
  if (any_note) t.column("SASS");
  for (const Record* a : probe.records) {
    const Record* b = m.b_of.at(a);
    for (const auto& name : metric_names(*a, *b)) {
      std::vector<std::string> cells;
      for (const auto& p : params) cells.push_back(markdown_escape(param_cell(*a, p)));
      const Metric* ma = a->metric(name);
      const Metric* mb = b->metric(name);
      const std::string metric = markdown_escape(name) + (a->derived ? " (analysis)" : "");
      const auto change = assess(name, *a, *b, opts);
      cells.insert(cells.end(), {metric, value_cell(ma), value_cell(mb), ratio_cell(ma, mb), change_cell(change)});
      if (any_note) cells.push_back(sass_note(*a, *b));
      t.row(std::move(cells));
      tally.metrics += ma && mb;
      count(tally.changes, change);
    }
  }
  return t.render();
}

// Every metric that moved beyond the noise and the threshold, largest move first (by |log B/A|,
// so halving and doubling rank alike): what a reader of a comparison looks for, before the
// thousands of rows that did not move.
std::string moved_list(const std::vector<const Record*>& comparable, const Matching& m, const CompareOptions& opts) {
  struct Moved {
    const Record* a;
    std::string name;
    const Metric *ma, *mb;
    Change change;
  };
  std::vector<Moved> moved;
  for (const Record* a : comparable) {
    const Record* b = m.b_of.at(a);
    for (const auto& name : metric_names(*a, *b)) {
      const Metric* ma = a->metric(name);
      const Metric* mb = b->metric(name);
      if (!ma || !mb) continue;
      const auto change = assess(name, *a, *b, opts);
      if (change && change->kind != Change::Kind::Same && change->kind != Change::Kind::Contended) moved.push_back({a, name, ma, mb, *change});
    }
  }
  if (moved.empty()) return "";
  std::stable_sort(moved.begin(), moved.end(), [](const Moved& x, const Moved& y) {
    return std::fabs(std::log(x.change.ratio)) > std::fabs(std::log(y.change.ratio));
  });
  MarkdownTable t;
  t.column("Change").column("Probe").column("Params").column("Metric");
  t.column("A", MarkdownTable::Align::Right).column("B", MarkdownTable::Align::Right).column("B/A", MarkdownTable::Align::Right);
  t.column("95 % interval", MarkdownTable::Align::Right).column("p (test)", MarkdownTable::Align::Right);
  for (const Moved& x : moved)
    t.row({change_cell(x.change), markdown_escape(x.a->id) + (x.a->derived ? " (analysis)" : ""),
           markdown_escape(to_string(x.a->params)), markdown_escape(x.name), value_cell(x.ma), value_cell(x.mb),
           ratio_cell(x.ma, x.mb), interval_cell(x.change), p_cell(x.change)});
  return "## Moved beyond noise, largest first\n\n" + t.render() + "\n";
}

std::string outcome(const Record& r) {
  if (r.status == Status::Ok) return "ok";
  return to_string(r.status) + (r.reason.empty() ? "" : ": " + r.reason);
}

std::string record_list(const std::string& title, const std::vector<const Record*>& records) {
  if (records.empty()) return "";
  MarkdownTable t;
  t.column("Probe").column("Params").column("Status");
  for (const Record* r : records)
    t.row({markdown_escape(r->id) + (r->derived ? " (analysis)" : ""), markdown_escape(to_string(r->params)),
           markdown_escape(outcome(*r))});
  return "## " + title + "\n\n" + t.render() + "\n";
}

std::string not_compared(const std::vector<const Record*>& records, const Matching& m) {
  if (records.empty()) return "";
  MarkdownTable t;
  t.column("Probe").column("Params").column("A").column("B");
  for (const Record* a : records)
    t.row({markdown_escape(a->id), markdown_escape(to_string(a->params)), markdown_escape(outcome(*a)),
           markdown_escape(outcome(*m.b_of.at(a)))});
  return "## Not compared (skipped or failed in a run)\n\n" + t.render() + "\n";
}

// Matched records split into those both runs measured and those one of them skipped or failed.
struct Split {
  std::vector<const Record*> comparable, blocked;
};

Split split_matched(const Matching& m) {
  Split s;
  for (const Record* r : m.both)
    (r->status == Status::Ok && m.b_of.at(r)->status == Status::Ok ? s.comparable : s.blocked).push_back(r);
  return s;
}

nlohmann::json run_json(const RunDocument& doc) {
  return {{"run_id", doc.run_id}, {"device", device_name(doc.device)}, {"started_at", doc.started_at},
          {"complete", doc.complete}};
}

nlohmann::json record_ref_json(const Record& r) {
  return {{"id", r.id}, {"params", to_json(r.params)}, {"derived", r.derived}, {"status", to_string(r.status)},
          {"reason", r.reason}};
}

nlohmann::json metric_side_json(const Metric* m) {
  if (!m) return nullptr;
  return {{"value", m->value()}, {"unit", m->unit}};
}

}  // namespace

std::string to_string(Change::Test t) {
  switch (t) {
    case Change::Test::None: return "none";
    case Change::Test::Rank: return "mann-whitney";
    case Change::Test::Median: return "median";
    case Change::Test::RunToRun: return "run-to-run";
  }
  return "none";
}

std::string to_string(Change::Kind k) {
  switch (k) {
    case Change::Kind::Same: return "same";
    case Change::Kind::Regression: return "regression";
    case Change::Kind::Improvement: return "improvement";
    case Change::Kind::Changed: return "changed";
    case Change::Kind::Contended: return "contended";
  }
  return "same";
}

std::optional<double> ratio_of(const Metric& a, const Metric& b) {
  const double ratio = b.value() / a.value();
  if (a.unit != b.unit || !std::isfinite(ratio) || a.value() == 0) return std::nullopt;
  return ratio;
}

bool rank_test_has_power(const Summary& a, const Summary& b) {
  return a.n >= kMinRankTestSamples && b.n >= kMinRankTestSamples;
}

double relative_standard_error(const Metric& m) {
  if (m.stats.n < 2 || m.value() == 0) return 0;
  const double n = double(m.stats.n);
  // The quartiles where the run kept them: a few outliers inflate sd, not the IQR.
  if (std::isfinite(m.stats.q1) && std::isfinite(m.stats.q3) && m.stats.q3 > m.stats.q1)
    return 0.9291 * (m.stats.q3 - m.stats.q1) / std::sqrt(n) / std::fabs(m.value());
  if (!std::isfinite(m.stats.stddev)) return 0;
  return 1.2533 * m.stats.stddev / std::sqrt(n) / std::fabs(m.value());
}

std::optional<Change> assess(const std::string& metric, const Metric& a, const Metric& b, const CompareOptions& opts,
                             double run_to_run) {
  const auto ratio = ratio_of(a, b);
  if (!ratio) return std::nullopt;
  Change c;
  c.ratio = *ratio;
  // A sign change has no log ratio: the threshold alone decides.
  if (*ratio > 0) {
    c.run_to_run = run_to_run;
    c.noise = std::hypot(relative_standard_error(a), relative_standard_error(b), run_to_run);
  }
  const auto rank = rank_test_has_power(a.stats, b.stats) ? mann_whitney(a.stats, b.stats) : std::nullopt;
  if (rank) c.superiority = rank->superiority;
  if (c.run_to_run > 0) {
    // The runs' own samples cannot tell a shift of the code from a drift between runs: the rank
    // test would call the drift, so the medians' shift is tested against both noises.
    c.test = Change::Test::RunToRun;
    c.p_value = std::erfc(std::fabs(std::log(*ratio)) / c.noise / std::sqrt(2.0));
  } else if (rank) {
    c.test = Change::Test::Rank;
    c.p_value = rank->p_value;
  } else if (c.noise > 0) {
    c.test = Change::Test::Median;
    c.p_value = std::erfc(std::fabs(std::log(*ratio)) / c.noise / std::sqrt(2.0));
  }
  if (std::fabs(*ratio - 1) <= opts.threshold) return c;
  if (c.test != Change::Test::None && !(c.p_value < kCompareAlpha)) return c;
  const Better better = better_of(metric);
  if (better == Better::Unknown) c.kind = Change::Kind::Changed;
  else c.kind = (*ratio > 1) == (better == Better::Higher) ? Change::Kind::Improvement : Change::Kind::Regression;
  return c;
}

std::optional<Change> assess(const std::string& metric, const Record& a, const Record& b, const CompareOptions& opts) {
  const Metric* ma = a.metric(metric);
  const Metric* mb = b.metric(metric);
  if (!ma || !mb) return std::nullopt;
  const auto sigma = opts.run_to_run ? opts.run_to_run->sigma(a.id, metric) : std::nullopt;
  auto c = assess(metric, *ma, *mb, opts, sigma.value_or(0));
  if (c && c->kind != Change::Kind::Same && (has_flag(a, kContendedFlag) || has_flag(b, kContendedFlag)))
    c->kind = Change::Kind::Contended;
  return c;
}

void for_each_compared_metric(const RunDocument& a, const RunDocument& b,
                              const std::function<void(const Record&, const Metric&, const Record&, const Metric&)>& f) {
  const Matching m = match_records(a, b);
  for (const Record* ra : split_matched(m).comparable) {
    const Record* rb = m.b_of.at(ra);
    for (const Metric& ma : ra->metrics)
      if (const Metric* mb = rb->metric(ma.name)) f(*ra, ma, *rb, *mb);
  }
}

ChangeCounts count_changes(const RunDocument& a, const RunDocument& b, const CompareOptions& opts) {
  const Matching m = match_records(a, b);
  ChangeCounts c;
  for (const Record* ra : split_matched(m).comparable) {
    const Record* rb = m.b_of.at(ra);
    for (const auto& name : metric_names(*ra, *rb)) count(c, assess(name, *ra, *rb, opts));
  }
  return c;
}

namespace {

// Where the noise beyond each run's own samples came from, for the reader of the summary.
std::string noise_source_line(const CompareOptions& opts) {
  const RunToRunTable* t = opts.run_to_run;
  if (!t)
    return "No run-to-run noise table (`--noise`): a metric measured once is judged by the threshold alone, and a "
           "drift between runs by each run's own samples; `gpudissect noise` builds the table from repeat runs of "
           "one card.\n\n";
  return "Run-to-run noise: " + std::to_string(t->groups.size()) + " (probe, metric) groups measured over " +
         std::to_string(t->pairs) + " pairs of repeat runs of one card (" + markdown_escape(t->gpu) + ", " +
         std::to_string(t->runs.size()) + " runs), added to each metric's own noise" +
         (opts.run_to_run_file.empty() ? "" : ": `" + markdown_escape(opts.run_to_run_file) + "`") +
         (opts.run_to_run_found ? ", the committed table of this GPU model (`--noise none` judges without it)" : "") +
         ".\n\n";
}

nlohmann::json noise_table_json(const CompareOptions& opts) {
  const RunToRunTable* t = opts.run_to_run;
  if (!t) return nullptr;
  return {{"gpu", t->gpu},       {"runs", t->runs.size()},        {"pairs", t->pairs},
          {"groups", t->groups.size()}, {"file", opts.run_to_run_file}, {"found", opts.run_to_run_found}};
}

}  // namespace

nlohmann::json compare_runs_json(const RunDocument& a, const RunDocument& b, const CompareOptions& opts) {
  const Matching m = match_records(a, b);
  const Split split = split_matched(m);
  nlohmann::json matched = nlohmann::json::array();
  int metrics_compared = 0;
  for (const Record* ra : split.comparable) {
    const Record* rb = m.b_of.at(ra);
    nlohmann::json metrics = nlohmann::json::array();
    for (const auto& name : metric_names(*ra, *rb)) {
      const Metric* ma = ra->metric(name);
      const Metric* mb = rb->metric(name);
      const auto ratio = ma && mb ? ratio_of(*ma, *mb) : std::nullopt;
      const auto change = assess(name, *ra, *rb, opts);
      metrics_compared += ma && mb;
      metrics.push_back({{"name", name}, {"a", metric_side_json(ma)}, {"b", metric_side_json(mb)},
                         {"ratio", ratio ? nlohmann::json(*ratio) : nlohmann::json(nullptr)},
                         {"change", change ? nlohmann::json(to_string(change->kind)) : nlohmann::json(nullptr)},
                         {"noise", change ? nlohmann::json(change->noise) : nlohmann::json(nullptr)},
                         {"run_to_run", change ? nlohmann::json(change->run_to_run) : nlohmann::json(nullptr)},
                         {"p_value", change && std::isfinite(change->p_value) ? nlohmann::json(change->p_value) : nlohmann::json(nullptr)},
                         {"test", change ? nlohmann::json(to_string(change->test)) : nlohmann::json(nullptr)},
                         {"superiority", change && std::isfinite(change->superiority) ? nlohmann::json(change->superiority)
                                                                                     : nlohmann::json(nullptr)},
                         {"interval", change && change->noise > 0 ? nlohmann::json::array({change->low(), change->high()})
                                                                 : nlohmann::json(nullptr)}});
    }
    matched.push_back({{"id", ra->id}, {"params", to_json(ra->params)}, {"derived", ra->derived},
                       {"sass", {{"a", to_string(ra->sass.status)}, {"b", to_string(rb->sass.status)}}},
                       {"metrics", metrics}});
  }
  const ChangeCounts changes = count_changes(a, b, opts);
  nlohmann::json not_compared = nlohmann::json::array();
  for (const Record* ra : split.blocked)
    not_compared.push_back({{"a", record_ref_json(*ra)}, {"b", record_ref_json(*m.b_of.at(ra))}});
  nlohmann::json only_a = nlohmann::json::array(), only_b = nlohmann::json::array();
  for (const Record* r : m.only_a) only_a.push_back(record_ref_json(*r));
  for (const Record* r : m.only_b) only_b.push_back(record_ref_json(*r));
  return {{"a", run_json(a)},
          {"b", run_json(b)},
          {"matched", matched},
          {"not_compared", not_compared},
          {"only_a", only_a},
          {"only_b", only_b},
          {"summary", {{"matched", split.comparable.size()}, {"metrics_compared", metrics_compared},
                       {"not_compared", split.blocked.size()}, {"only_a", m.only_a.size()}, {"only_b", m.only_b.size()},
                       {"threshold", opts.threshold}, {"noise_table", noise_table_json(opts)},
                       {"regressions", changes.regressions},
                       {"improvements", changes.improvements}, {"changed", changes.changed},
                       {"contended_not_counted", changes.contended},
                       {"contended_points", {{"a", contended_points(a)}, {"b", contended_points(b)}}}}}};
}

// Each quantity's headline in A and B (report/headlines.hpp), with the record that won on each side:
// the headline may come from another probe or shape in each run.
static std::string headlines_side_by_side(const RunDocument& a, const RunDocument& b) {
  MarkdownTable t;
  t.column("Quantity").column("A", MarkdownTable::Align::Right).column("B", MarkdownTable::Align::Right)
      .column("B/A", MarkdownTable::Align::Right).column("Unit").column("Record in A").column("Record in B");
  for (const HeadlineRule& rule : headline_rules()) {
    const auto ha = resolve_headline(a, rule), hb = resolve_headline(b, rule);
    if (!ha && !hb) continue;
    const auto cell = [](const std::optional<Headline>& h) { return h ? fmt_num(h->value.value, 4) : std::string("–"); };
    const auto src = [](const std::optional<Headline>& h) { return h ? markdown_escape(headline_source_label(*h)) : std::string(); };
    const std::string ratio = ha && hb && ha->value.value != 0 ? fmt_num(hb->value.value / ha->value.value, 4) : "";
    t.row({markdown_escape(rule.title), cell(ha), cell(hb), ratio, markdown_escape(rule.unit), src(ha), src(hb)});
  }
  return t.empty() ? "" : "## Headlines\n\n" + t.render() + "\n";
}

std::string compare_runs(const RunDocument& a, const RunDocument& b, const CompareOptions& opts) {
  const Matching m = match_records(a, b);
  const auto& [comparable, blocked] = split_matched(m);

  Tally tally;
  std::string tables;
  for (const ProbeRecords& probe : group_by_probe(comparable))
    tables += "### " + markdown_escape(probe.id) + "\n\n" + probe_table(probe, m, opts, tally) + "\n";

  std::ostringstream os;
  os << "# gpudissect comparison: " << markdown_escape(device_name(a.device)) << " (A) vs "
     << markdown_escape(device_name(b.device)) << " (B)\n\n";
  os << run_line("A", a) << run_line("B", b) << "\n";
  os << "## Summary\n\n"
     << comparable.size() << " records matched by probe id and parameters, " << tally.metrics
     << " metrics compared; " << blocked.size() << " matched but not compared (skipped or failed); "
     << m.only_a.size() << " only in A; " << m.only_b.size() << " only in B. B/A above 1 means B's number is larger, "
     << "which is better for throughput and worse for latency.\n\n";
  char threshold[32];
  std::snprintf(threshold, sizeof threshold, "%.1f%%", opts.threshold * 100);
  const ChangeCounts& c = tally.changes;
  const auto uuid_a = json_fields::nonempty_string(a.device, "uuid"), uuid_b = json_fields::nonempty_string(b.device, "uuid");
  if (uuid_a && uuid_b && *uuid_a != *uuid_b)
    os << "> A and B ran on different physical GPUs (the UUIDs differ): card-to-card differences of several "
          "percent are real, not regressions of the code (docs/method.md, Comparing runs). Raise --threshold to "
          "compare cards.\n\n";
  for (const auto& [side, run] : {std::pair<const char*, const RunDocument*>{"A", &a}, {"B", &b}})
    if (const int n = contended_points(*run))
      os << "> ⚠ " << side << " has " << n << " measured points taken while another process used its GPU (flagged "
         << "`contended`): their moves are shown but not counted as regressions or improvements (" << c.contended
         << " such moves in all).\n\n";
  os << noise_source_line(opts);
  if (c.regressions + c.improvements + c.changed == 0)
    os << "Nothing moved beyond the runs' own noise or the " << threshold << " threshold.\n\n";
  else
    os << "Beyond the runs' own noise and the " << threshold << " threshold: " << c.regressions << " regressions, "
       << c.improvements << " improvements, " << c.changed
       << " other changes (metrics without a better direction). A move is called when it exceeds the threshold "
          "and a test rejects \"no shift\" at p < 0.001: the Mann-Whitney rank test where both runs kept a sketch of "
          "their samples, else the medians' shift against their standard errors (with the run-to-run spread added "
          "where a noise table gives it); a metric with no noise of either kind is decided by the threshold alone.\n\n";
  os << moved_list(comparable, m, opts);
  os << headlines_side_by_side(a, b);
  os << "## Devices\n\n" << side_by_side(device_facts(a.device), device_facts(b.device)) << "\n";
  os << "## Runs\n\n" << side_by_side(run_facts(a), run_facts(b)) << "\n";
  if (!tables.empty()) os << "## Matched\n\n" << tables;
  os << not_compared(blocked, m);
  os << record_list("Only in A", m.only_a);
  os << record_list("Only in B", m.only_b);
  return os.str();
}

}  // namespace gd
