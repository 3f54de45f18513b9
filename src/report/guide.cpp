#include "report/guide.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "report/format.hpp"
#include "report/item_values.hpp"

namespace gd {
namespace {

GuidePrinciple principle(int number, std::string title, std::string paper) {
  GuidePrinciple p;
  p.number = number, p.title = std::move(title), p.paper = std::move(paper);
  return p;
}

// Reads a principle's inputs from the run and remembers each one, found or not, for the notes.
class Inputs {
 public:
  Inputs(const RunDocument& run, const std::vector<const ProbeSpec*>& probes)
      : run_(run), items_(item_values(run, probes)) {}

  std::optional<double> metric(const std::string& name, const std::string& probe, const std::string& metric,
                               const Params& where = {}) {
    std::string src = probe + " " + metric;
    if (!where.empty()) src += " (" + to_string(where) + ")";
    auto v = metric_value(run_, probe, metric, where);
    return note(name, src, v);
  }
  std::optional<double> item(const std::string& name, const std::string& id) {
    auto it = items_.find(id);
    return note(name, "study item " + id,
                it == items_.end() ? std::nullopt : std::optional<ItemValue>(it->second));
  }
  // Every ok record of a probe (a sweep to scan).
  std::vector<const Record*> records(const std::string& probe) const {
    std::vector<const Record*> out;
    for (const Record& r : run_.records)
      if (r.id == probe && r.status == Status::Ok) out.push_back(&r);
    return out;
  }
  void add(GuideInput in) { used_.push_back(std::move(in)); }
  std::vector<GuideInput> take() { return std::exchange(used_, {}); }
  bool all_found() const {
    return std::all_of(used_.begin(), used_.end(), [](const GuideInput& i) { return i.found; });
  }

 private:
  std::optional<double> note(const std::string& name, const std::string& src, const std::optional<ItemValue>& v) {
    GuideInput in;
    in.name = name, in.source = src, in.found = v.has_value();
    if (v) {
      in.value = v->display();
      in.link = value_anchor(*v);
    }
    used_.push_back(in);
    return v ? std::optional<double>(v->value) : std::nullopt;
  }
  const RunDocument& run_;
  std::map<std::string, ItemValue> items_;
  std::vector<GuideInput> used_;
};

double param_number(const Record& r, const std::string& name) {
  const ParamValue* v = find_param(r.params, name);
  if (!v) return NAN;
  if (auto i = std::get_if<std::int64_t>(v)) return double(*i);
  if (auto d = std::get_if<double>(v)) return *d;
  return NAN;
}

// The fewest warps per SM at which a sweep's metric reaches `fraction` of its best value, for the
// records with this ILP; NaN when the sweep lacks them.
double warps_to_reach(const std::vector<const Record*>& sweep, const std::string& metric, double ilp, double fraction,
                      double* best_out) {
  double best = 0;
  for (const Record* r : sweep)
    if (const Metric* m = r->metric(metric); m && !r->derived) best = std::max(best, m->value());
  double warps = NAN;
  for (const Record* r : sweep) {
    const Metric* m = r->metric(metric);
    if (!m || r->derived || param_number(*r, "ilp") != ilp) continue;
    const double w = param_number(*r, "warps_per_sm");
    if (m->value() >= fraction * best && (std::isnan(warps) || w < warps)) warps = w;
  }
  if (best_out) *best_out = best;
  return warps;
}

GuidePrinciple occupancy(Inputs& in, int subcores) {
  GuidePrinciple p = principle(1, "Occupancy per sub-core: enough warps to hide the dependent-issue latency",
                   "SM_120: latency hiding starts at 5 warps per sub-core (268 → 45 cycles per iteration); "
                   "20 warps/SM is the best launch configuration");
  const auto lat = in.metric("FFMA dependent latency", "latency.alu.ffma", "latency/cycles");
  const auto sweep = in.records("compute.peak.fp32");
  double best = 0;
  const double w1 = warps_to_reach(sweep, "throughput/fma_per_clk_per_sm", 1, 0.9, &best);
  const double w4 = warps_to_reach(sweep, "throughput/fma_per_clk_per_sm", 4, 0.9, nullptr);
  GuideInput sw;
  sw.name = "FFMA rate over ILP x warps/SM", sw.source = "compute.peak.fp32 throughput/fma_per_clk_per_sm";
  sw.found = !std::isnan(w1);
  if (sw.found) sw.value = "best " + fmt_num(best, 4) + " FMA/clk/SM", sw.link = "#compute.peak.fp32";
  in.add(sw);
  p.measured = in.all_found();
  if (p.measured) {
    std::ostringstream os;
    os << "A dependent FFMA takes " << fmt_num(*lat, 3) << " cycles here. With one independent FFMA per warp "
       << "(ILP 1), " << fmt_num(w1, 3) << " warps/SM (" << fmt_num(w1 / subcores, 3) << " per sub-core, "
       << subcores << " sub-cores) reach 90 % of the best rate (" << fmt_num(best, 4) << " FMA/clk/SM)";
    if (!std::isnan(w4)) os << "; with ILP 4, " << fmt_num(w4, 3) << " warps/SM do";
    os << ". Launch at least " << fmt_num(std::ceil(w1 / subcores), 2)
       << " warps per sub-core for latency-bound code, or add independent work per warp.";
    p.statement = os.str();
  }
  p.inputs = in.take();
  return p;
}

GuidePrinciple from_items(Inputs& in, int number, std::string title, std::string paper,
                          const std::vector<std::pair<std::string, std::string>>& items,
                          const std::string& how) {
  GuidePrinciple p = principle(number, std::move(title), std::move(paper));
  std::vector<std::string> parts;
  for (const auto& [name, id] : items)
    if (auto v = in.item(name, id)) parts.push_back(name + " " + fmt_num(*v, 4));
  p.measured = in.all_found();
  if (p.measured) {
    std::string s;
    for (const auto& x : parts) s += (s.empty() ? "" : "; ") + x;
    p.statement = s + ". " + how;
  }
  p.inputs = in.take();
  return p;
}

GuidePrinciple scoreboard(Inputs& in, const RunDocument& run) {
  GuidePrinciple p = principle(5, "Scoreboard depth: keep enough loads in flight to cover memory latency",
                   "SM_120: 12 or more independent loads are tracked in parallel; deep pipelines need 12+ "
                   "outstanding loads (the 6-scoreboard model no longer applies)");
  const auto lat_ns = in.metric("DRAM load latency", "memory.latency.chase", "latency/ns", {{"level", "DRAM"}});
  const auto bw = in.item("DRAM read bandwidth (the headline: best of every DRAM read stream)", "memory.dram.bandwidth");
  p.measured = in.all_found();
  const int sms = run.device.is_object() ? run.device.value("sm_count", 0) : 0;
  const int max_warps = run.device.is_object() ? run.device.value("max_warps_per_sm", 0) : 0;
  if (p.measured && sms > 0) {
    // Little's law: bytes in flight = latency x bandwidth, spread over the SMs.
    const double bytes = *lat_ns * 1e-9 * *bw * 1e12;
    const double per_sm = bytes / sms;
    std::ostringstream os;
    os << "Little's law over this chip's DRAM: " << fmt_num(*lat_ns, 3) << " ns x " << fmt_num(*bw, 3)
       << " TB/s = " << format_bytes(bytes) << " in flight, " << format_bytes(per_sm) << " per SM";
    if (max_warps > 0) {
      const double loads = per_sm / (max_warps * 32.0 * 16.0);
      os << ": at full occupancy (" << max_warps << " warps/SM) each thread needs " << fmt_num(std::ceil(loads), 2)
         << " outstanding 16-byte load(s), at a quarter of it " << fmt_num(std::ceil(4 * loads), 2);
    }
    os << ". Fewer outstanding loads leave DRAM bandwidth unused; pipeline loads (multi-stage buffers) to keep them "
          "in flight.";
    p.statement = os.str();
  } else {
    p.measured = false;
  }
  in.item("Independent loads tracked per warp", "control.scoreboard.count");  // shown when a probe covers it
  auto extra = in.take();
  if (!extra.empty() && !extra.back().found) extra.pop_back();  // optional input: listed only when measured
  p.inputs = std::move(extra);
  return p;
}

GuidePrinciple clocks(Inputs& in, const RunDocument& run) {
  GuidePrinciple p = principle(7, "Efficient clock range (DVFS)",
                   "SM_120: power grows super-linearly above 2000 MHz (P ∝ f^1.5–2.0); the sweet spot is "
                   "1500–1800 MHz, +18 % perf/W over boost");
  std::vector<double> mhz;
  int throttled = 0, points = 0;
  for (const Record& r : run.records) {
    if (r.status != Status::Ok || r.derived) continue;
    ++points;
    if (r.sm_clock_source == ClockSource::InKernel && r.sm_clock_mhz > 0) mhz.push_back(r.sm_clock_mhz);
    if (auto by = throttled_by(r); by && !by->empty()) ++throttled;
  }
  GuideInput clk;
  clk.name = "SM clock observed in the timed kernels", clk.source = "every measured record's sm_clock_mhz";
  clk.found = !mhz.empty();
  std::sort(mhz.begin(), mhz.end());
  if (clk.found) clk.value = fmt_num(mhz[mhz.size() / 2], 4) + " MHz (median)";
  in.add(clk);
  in.item("Power versus clock", "power.dvfs.power_vs_clock");
  p.inputs = in.take();
  p.measured = false;  // the curve needs set clocks, which gpudissect never changes
  if (clk.found) {
    const double max = run.device.is_object() ? run.device.value("max_sm_clock_mhz", 0.0) : 0.0;
    std::ostringstream os;
    os << "Partly measured: the card ran its timed kernels at " << fmt_num(mhz.front(), 4) << "–"
       << fmt_num(mhz.back(), 4) << " MHz";
    if (max > 0) os << " (maximum " << fmt_num(max, 4) << " MHz)";
    os << "; " << throttled << " of " << points << " points saw a clock limiter act. The power-versus-clock "
       << "curve needs set clocks, which gpudissect never changes, so the sweet spot is not derived here.";
    p.statement = os.str();
  }
  return p;
}

}  // namespace

std::vector<GuidePrinciple> derive_guide(const RunDocument& run, const std::vector<const ProbeSpec*>& probes) {
  Inputs in(run, probes);
  std::vector<GuidePrinciple> g;
  // Every SM since Volta has four sub-partitions, each with its own warp scheduler; the driver
  // does not report the number, so it is the one architectural constant here.
  constexpr int kSubcoresPerSm = 4;
  g.push_back(occupancy(in, kSubcoresPerSm));
  g.push_back(from_items(in, 2, "Co-issue: pair instructions of different pipes",
                         "SM_120: FMA + INT, FMA + LDST and TC + ALU dual-issue; explicit pipe mixing gains 10–30 %",
                         {{"INT+FP32 mixed / single throughput", "pipes.coissue.int_fp32"},
                          {"FP32+MEM mixed / single throughput", "pipes.coissue.fp32_mem"},
                          {"FP32+TC mixed / single throughput", "pipes.coissue.fp32_tc"}},
                         "A ratio near 1 means the pair shares no issue slot: interleave those pipes."));
  g.push_back(from_items(in, 3, "Operand reuse in MMA loops",
                         "SM_120: A/B operand reuse saves 35–45 % of register-file read ports",
                         {{"register-file read saving from reuse (%)", "control.reuse.rf_read_saving"}},
                         "Keep the reuse flags on MMA operand loops (CUTLASS kReuseA/kReuseB)."));
  g.push_back(from_items(in, 4, "TMA for loads; a TMA store's fast return is only its commit",
                         "SM_120: a TMA store returns in 33 cycles (committed) but writes back in 620",
                         {{"TMA store until committed (cycles)", "async.tma.store.latency_issue"},
                          {"TMA store until written back (cycles)", "async.tma.store.latency_complete"}},
                         "Time output stores to their completion, not their issue."));
  g.push_back(scoreboard(in, run));
  g.push_back(from_items(in, 6, "Where attention spends its time",
                         "SM_120: FlashAttention spends 63.1 % of a KV tile in softmax (ALU), 36.9 % in MMA",
                         {{"softmax share of a KV tile (%)", "attention.flash.softmax_share"},
                          {"MMA share of a KV tile (%)", "attention.flash.mma_share"}},
                         "Optimize the larger share first."));
  g.push_back(clocks(in, run));
  return g;
}

std::string guide_markdown(const std::vector<GuidePrinciple>& guide, const std::string& chip) {
  std::ostringstream os;
  os << "## Guide for kernel authors\n\n"
     << "The SM_120 paper's seven principles (its section 12.2), each restated as a rule over this run's metrics "
        "on " << markdown_escape(chip) << ". A principle whose inputs this run lacks says what it needs.\n\n";
  for (const GuidePrinciple& p : guide) {
    os << "**" << p.number << ". " << markdown_escape(p.title) << "** — "
       << (p.measured ? "measured" : p.statement.empty() ? "**not measured**" : "partly measured") << "\n\n";
    if (!p.statement.empty()) os << markdown_escape(p.statement) << "\n\n";
    os << "- The paper: " << markdown_escape(p.paper) << "\n";
    for (const GuideInput& i : p.inputs) {
      os << "- " << markdown_escape(i.name) << ": ";
      if (i.found && !i.link.empty())
        os << markdown_escape(i.value) << " ([" << markdown_escape(i.source) << "](" << i.link << "))\n";
      else if (i.found) os << markdown_escape(i.value) << " (" << markdown_escape(i.source) << ")\n";
      else os << "not measured (needs " << markdown_escape(i.source) << ")\n";
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace gd
