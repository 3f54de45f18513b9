#include "report/markdown.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <sstream>

#include "core/clock_check.hpp"
#include "report/coverage.hpp"
#include "report/format.hpp"
#include "report/guide.hpp"
#include "report/hierarchy_glance.hpp"
#include "report/headlines.hpp"
#include "report/item_values.hpp"
#include "report/probe_json.hpp"
#include "report/run_view.hpp"

namespace gd {

namespace {

std::string facts_table(const std::vector<Fact>& facts) {
  MarkdownTable t;
  t.column("Property").column("Value");
  for (const Fact& f : facts) t.row({markdown_escape(f.label), markdown_escape(f.value)});
  return t.render();
}

struct Counts {
  int measured = 0, analysis = 0, skipped = 0, failed = 0;
  int verified = 0, mismatch = 0, unverified = 0, not_applicable = 0;  // over ok records
  int unconverged = 0;                                                  // over measured records
  int throttled = 0;                                                    // over measured records
  int below_clock = 0;  // measured records more than 3 % under the application clock
  int contended = 0;    // measured records taken while another process used the GPU
};

Counts count(const std::vector<Record>& records) {
  Counts c;
  for (const Record& r : records) {
    if (r.status == Status::Skipped) {
      ++c.skipped;
      continue;
    }
    if (r.status == Status::Failed) {
      ++c.failed;
      c.mismatch += r.sass.status == SassStatus::Mismatch;  // a mismatch fails the run either way
      continue;
    }
    ++(r.derived ? c.analysis : c.measured);
    if (!r.derived && r.convergence.recorded && !r.convergence.converged) ++c.unconverged;
    if (!r.derived && !throttle_cell(r).empty()) ++c.throttled;
    if (!r.derived && has_flag(r, kClockBelowApplicationFlag)) ++c.below_clock;
    if (!r.derived && has_flag(r, kContendedFlag)) ++c.contended;
    switch (r.sass.status) {
      case SassStatus::Verified: ++c.verified; break;
      case SassStatus::Mismatch: ++c.mismatch; break;
      case SassStatus::Unverified: ++c.unverified; break;
      case SassStatus::NotApplicable: ++c.not_applicable; break;
    }
  }
  return c;
}

// What the table cells mean, once per report.
std::string legend() {
  return "How to read the tables: a value is the median of its samples, shown as "
         "`median (min–max, n=samples)`. **SM MHz** is the SM clock observed while the point ran: clock64 "
         "cycles over %globaltimer ns inside the timed kernels; `(pts)` marks an analysis row's median over "
         "the points it came from; `none` means no SM code was timed (the record says why). **Conv.** is how "
         "the adaptive repetition ended: `n=7` reached its confidence target with 7 samples; a bold reason "
         "(`time cap`, `sample cap`) means it stopped first. **SASS**: `verified` means every kernel the "
         "point launched was checked against the probe's declared instructions; `MISMATCH` fails the run; "
         "`unverified` means something it ran was not checked; `n/a` means no SM kernel of ours ran. "
         "**Throttle** (shown only when it happened) names the clock limiters NVML's counters saw act while "
         "the point ran.\n\n";
}

std::string summary_section(const RunDocument& doc) {
  const Counts c = count(doc.records);
  MarkdownTable t;
  t.column("Records", MarkdownTable::Align::Right)
      .column("Measured", MarkdownTable::Align::Right)
      .column("Analysis", MarkdownTable::Align::Right)
      .column("Skipped", MarkdownTable::Align::Right)
      .column("Failed", MarkdownTable::Align::Right);
  t.row({std::to_string(doc.records.size()), std::to_string(c.measured), std::to_string(c.analysis),
         std::to_string(c.skipped), std::to_string(c.failed)});
  std::ostringstream os;
  os << "## Summary\n\n" << t.render() << "\n";
  os << "SASS of the records: " << c.verified << " verified, " << c.mismatch << " mismatch, " << c.unverified
     << " unverified, " << c.not_applicable << " not applicable. Repetition: " << c.unconverged << " of "
     << c.measured << " measured points stopped before their confidence target.\n\n";
  if (c.mismatch > 0)
    os << "> ⚠ **SASS MISMATCH in " << c.mismatch << " records: the run failed.** The code that ran is not "
          "what the probe says it measures; those numbers are flagged below and must not be used.\n\n";
  if (c.unverified > 0)
    os << "> ⚠ SASS unverified for " << c.unverified
       << " records: something they ran was not checked against the probe's expectations (see the notes "
          "under each table).\n\n";
  if (c.throttled > 0)
    os << "> ⚠ " << c.throttled << " measured points ran while NVML saw a clock limiter act (power cap, thermal, "
          "sync boost...): see the Throttle column; their numbers may be below the chip's.\n\n";
  if (c.below_clock > 0)
    os << "> ⚠ " << c.below_clock << " measured points ran with the SM clock (read inside their kernels) more than 3 % "
          "under the application clock, whatever NVML reported: see the Flags column; rates per second there are "
          "below the chip's at its application clock, rates per clock are not.\n\n";
  if (c.contended > 0)
    os << "> ⚠ " << c.contended << " measured points ran while another process had a context on the GPU (flagged "
          "`contended`; each record's extra.contended says what was seen): they are not the card's numbers.\n\n";
  if (c.unconverged > 0)
    os << "> ⚠ " << c.unconverged << " measured points did not converge (time or sample cap): their spread is "
          "wider than the probe's target; see the Conv. column.\n\n";
  if (!doc.complete)
    os << "> **INTERRUPTED**: the run did not finish; this report holds the records it completed.\n\n";
  return os.str();
}

std::string metric_cell(const Record& r, const MetricColumn& c) {
  const Metric* m = r.metric(c.name);
  return m ? markdown_escape(format_metric(*m, !c.uniform_unit)) : "";
}

bool any_cell(const std::vector<const Record*>& records, std::string (*cell)(const Record&)) {
  return std::any_of(records.begin(), records.end(), [&](const Record* r) { return !cell(*r).empty(); });
}

std::string conv_of(const Record& r) { return convergence_cell(r.convergence); }

std::string flags_of(const Record& r) {
  std::string s;
  for (const auto& f : record_flags(r)) s += (s.empty() ? "" : ", ") + f;
  return markdown_escape(s);
}

// Params, then metrics, then the observed clock, how repetition ended and the SASS check.
std::string values_table(const std::vector<const Record*>& records) {
  const auto params = param_names(records);
  const auto metrics = metric_columns(records);
  const bool clock = any_cell(records, clock_cell), conv = any_cell(records, conv_of),
             throttle = any_cell(records, throttle_cell), flags = any_cell(records, flags_of);
  MarkdownTable t;
  for (const auto& p : params) t.column(markdown_escape(p), MarkdownTable::Align::Right);
  for (const auto& m : metrics) t.column(metric_header(m), MarkdownTable::Align::Right);
  if (clock) t.column("SM MHz", MarkdownTable::Align::Right);
  if (conv) t.column("Conv.", MarkdownTable::Align::Right);
  if (throttle) t.column("Throttle");
  if (flags) t.column("Flags");
  t.column("SASS");
  for (const Record* r : records) {
    std::vector<std::string> cells;
    for (const auto& p : params) cells.push_back(markdown_escape(param_cell(*r, p)));
    for (const auto& m : metrics) cells.push_back(metric_cell(*r, m));
    if (clock) cells.push_back(clock_cell(*r));
    if (conv) cells.push_back(conv_of(*r));
    if (throttle) cells.push_back(throttle_cell(*r));
    if (flags) cells.push_back(flags_of(*r));
    cells.push_back(sass_flag(r->sass.status));
    t.row(std::move(cells));
  }
  return t.render();
}

std::string point_label(const Record& r) {
  const std::string p = to_string(r.params);
  return p.empty() ? "the only point" : p;
}

// One line per distinct (status, detail), so a probe whose every point failed the same way
// says it once.
std::string sass_notes(const std::vector<const Record*>& records) {
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;
  for (const Record* r : records) {
    if (r->sass.status == SassStatus::Verified || r->sass.status == SassStatus::NotApplicable) continue;
    std::string what = "SASS " + to_string(r->sass.status) + (r->sass.detail.empty() ? "" : ": " + r->sass.detail);
    auto it = std::find_if(notes.begin(), notes.end(), [&](const auto& n) { return n.first == what; });
    if (it == notes.end()) notes.push_back({what, {point_label(*r)}});
    else it->second.push_back(point_label(*r));
  }
  std::string out;
  for (const auto& [what, points] : notes) {
    std::string at;
    for (const auto& p : points) at += (at.empty() ? "" : "; ") + p;
    out += "- ⚠ " + markdown_escape(what) + " (" + markdown_escape(at) + ")\n";
  }
  return out.empty() ? out : "\n" + out;
}

std::string probe_section(const ProbeRecords& probe) {
  std::vector<const Record*> measured, analysis;
  for (const Record* r : probe.records)
    if (r->status == Status::Ok) (r->derived ? analysis : measured).push_back(r);
  std::string out = "### " + markdown_escape(probe.id) + "\n\n";
  if (!measured.empty()) out += values_table(measured) + sass_notes(measured) + "\n";
  if (!analysis.empty())
    out += "#### " + markdown_escape(probe.id) + ": analysis\n\n" + values_table(analysis) + sass_notes(analysis) + "\n";
  return out;
}

// Categories in the order of the studies: instructions, memory, tensor, async, scheduler and
// control, topology, system; any other after them, as the run met them.
int study_rank(const std::string& category) {
  static const char* const order[] = {"latency", "compute", "pipes", "memory", "tensor", "async", "sass",
                                      "topology", "links", "gemm", "attention", "power"};
  for (int i = 0; i < int(std::size(order)); ++i)
    if (category == order[i]) return i;
  return int(std::size(order));
}

std::string category_sections(const std::vector<Record>& records) {
  std::vector<const Record*> ok;
  for (const Record& r : records)
    if (r.status == Status::Ok) ok.push_back(&r);
  std::vector<std::string> categories;
  std::map<std::string, std::string> body;
  for (const ProbeRecords& probe : group_by_probe(ok)) {
    if (!body.count(probe.category)) categories.push_back(probe.category);
    body[probe.category] += probe_section(probe);
  }
  std::stable_sort(categories.begin(), categories.end(),
                   [](const std::string& a, const std::string& b) { return study_rank(a) < study_rank(b); });
  std::string out;
  for (const auto& c : categories) out += "## " + markdown_escape(c) + "\n\n" + body[c];
  return out;
}

// The pipe study's agreement, counted strictly (report/headlines.hpp): rows where the two methods
// could not both answer stay in the denominator.
std::string pipe_agreement_line(const RunDocument& doc) {
  const PipeAgreement a = pipe_agreement(doc);
  if (a.rows == 0) return "";
  if (a.undetermined == a.rows)
    return "Pipe assignment (`pipes.interference.*`): not checked in this run, no row has both methods' answers "
           "(run the pipe probes under `run --ncu`).\n\n";
  std::ostringstream os;
  os << "Pipe assignment (`pipes.interference.*`): interference and ncu's counters name the same pipe "
     << "strictly on **" << a.strict << " of " << a.rows << "** rows (" << fmt_num(100.0 * a.strict / a.rows, 3)
     << " %); " << a.through_tie << " more agree only through a class interference could not tell apart, "
     << a.undetermined << " are undetermined (counted as misses), " << a.misses.size() << " disagree";
  if (!a.misses.empty()) {
    os << ":";
    for (std::size_t i = 0; i < a.misses.size(); ++i) os << (i ? "; " : " ") << markdown_escape(a.misses[i]);
  }
  os << ".\n\n";
  return os.str();
}

// Whether the run shared its GPU: points flagged contended, or a tenant seen before the first probe
// (a run started with --allow-busy). Empty when it had the card to itself, or could not tell.
std::string contention_banner(const RunDocument& doc) {
  const int contended = count(doc.records).contended;
  const nlohmann::json* before = nullptr;
  if (doc.gpu_state.is_object() && doc.gpu_state.contains("tenancy") && doc.gpu_state["tenancy"].is_object() &&
      doc.gpu_state["tenancy"].contains("before") && doc.gpu_state["tenancy"]["before"].is_object())
    before = &doc.gpu_state["tenancy"]["before"];
  const bool busy_at_start = before && before->value("busy", false);
  if (contended == 0 && !busy_at_start) return "";
  std::string s = "> ⚠ **This run shared its GPU with another process.** ";
  if (busy_at_start) {
    std::string seen;
    if (before->contains("evidence") && (*before)["evidence"].is_array())
      for (const auto& e : (*before)["evidence"])
        if (e.is_string()) seen += (seen.empty() ? "" : "; ") + e.get<std::string>();
    s += "Before the first probe: " + markdown_escape(seen) + ". ";
  }
  s += std::to_string(contended) + " measured points ran beside it (flagged `contended`); their numbers are not the "
       "card's, and a headline comes from one only where no point measured alone competes.\n\n";
  return s;
}

std::string at_a_glance(const RunDocument& doc) {
  const auto headlines = resolve_headlines(doc);
  const std::string pipes = pipe_agreement_line(doc);
  if (headlines.empty() && pipes.empty()) return "";
  return "## The chip at a glance\n\n" + contention_banner(doc) + "Each quantity's headline is the best honest record of it in this run, chosen "
         "by one rule for every view (report, coverage, guide, `gpudissect headlines`): the highest of every record "
         "that measures a rate or bandwidth, whatever kernel shape or engine reached it, or the one record that "
         "defines a latency. The record column names the shape that won and how many records competed; **SM MHz** "
         "is the clock that record ran at, read inside its kernels; a verdict (SASS not verified, not converged, "
         "throttled, `clock_below_application`: more than 3 % under the application clock, `contended`: another "
         "process used the GPU) is what to weigh "
         "before quoting the number.\n\n" +
         (headlines.empty() ? std::string() : headlines_markdown(headlines) + "\n") + pipes;
}

std::string skipped_and_failed(const std::vector<Record>& records) {
  MarkdownTable t;
  t.column("Probe").column("Params").column("Status").column("Reason");
  for (const Record& r : records)
    if (r.status != Status::Ok)
      t.row({markdown_escape(r.id), markdown_escape(to_string(r.params)),
             r.status == Status::Failed ? "**failed**" : "skipped",
             markdown_escape(r.reason + (r.sass.status == SassStatus::Mismatch ? " (SASS MISMATCH: " + r.sass.detail + ")" : ""))});
  return "## Skipped and failed\n\n" + (t.empty() ? std::string("None: every selected probe ran.\n") : t.render());
}

}  // namespace

std::string markdown_report(const RunDocument& doc) { return markdown_report(doc, registered_probes()); }

std::string markdown_report(const RunDocument& doc, const std::vector<const ProbeSpec*>& probes) {
  std::ostringstream os;
  // As a paper reads: the chip at a glance, then the sections in the studies' order; coverage and
  // how the run was made at the end.
  os << "# gpudissect report: " << markdown_escape(device_name(doc.device)) << "\n\n";
  const bool reference = is_reference(doc);
  if (!reference) os << contention_banner(doc);
  if (!reference) os << at_a_glance(doc);
  if (!reference) os << hierarchy_glance_markdown(doc);
  os << summary_section(doc);
  os << legend();
  os << category_sections(doc.records);
  if (!reference) os << guide_markdown(derive_guide(doc, probes), chip_label(doc));
  if (!reference) os << coverage_markdown(compute_coverage(probes, &doc), false);
  os << "## Device\n\n" << facts_table(device_facts(doc.device)) << "\n";
  os << "## Run\n\n" << facts_table(run_facts(doc)) << "\n";
  os << skipped_and_failed(doc.records);
  return os.str();
}

}  // namespace gd
