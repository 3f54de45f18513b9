#include "report/headlines.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/clock_check.hpp"
#include "core/match.hpp"
#include "analysis/throughput.hpp"
#include "report/format.hpp"
#include "report/run_view.hpp"

namespace gd {

namespace {

using P = HeadlinePick;

HeadlineSource src(std::string probe, std::string metric, Params where = {}) {
  return {std::move(probe), std::move(metric), std::move(where)};
}

Params op(const std::string& name) { return {{"op", name}}; }
Params from(const std::string& source) { return {{"source", source}}; }

// One tensor-core rate per wgmma type: the best wgmma.throughput record of that type.
HeadlineRule wgmma_rule(const std::string& type, const std::string& title, const std::string& item = "") {
  return {"tensor.wgmma." + type, title, "tensor", "TFLOPS", P::Highest,
          {src("tensor.wgmma.throughput", "throughput/tflops", op(type))}, item};
}

// One tensor-core rate per tcgen05 (sm_100) type: the best tensor.tcgen05.mma record of that type,
// over cta_group, N and where A is read from (SMEM or TMEM).
HeadlineRule tcgen05_rule(const std::string& type, const std::string& title) {
  return {"tensor.tcgen05." + type, title, "tensor", "TFLOPS", P::Highest,
          {src("tensor.tcgen05.mma", "throughput/tflops", {{"type", type}})}, ""};
}

// A warp-level mma.sync rate of a type only Blackwell's mma.sync has (sm_120's FP4, FP6 and the
// block-scaled kinds): the chip's tensor ceiling for that type, which has no wgmma or tcgen05 there.
HeadlineRule mma_sync_rule(const std::string& row, const std::string& title) {
  return {"tensor.mma_sync." + row, title, "tensor", "TFLOPS", P::Highest,
          {src("tensor.mma_sync." + row + ".*", "throughput/tflops")}, ""};
}

// One GEMM rate per type and figure (gemm_measure.hpp: `first_calls`, PyTorch's way of timing a
// product; `steady`, after the clock has settled): the best library (cuBLAS, cuBLASLt) or CUTLASS
// record at 8192^3. No seed item: the studies' GEMM items are cuBLAS's alone (its covers answer them).
HeadlineRule gemm_rule(const std::string& type, const std::string& unit, const std::string& item,
                       const std::string& figure = "first_calls") {
  const std::string metric = "throughput/" + figure + (unit == "TOPS" ? "_tops" : "_tflops");
  const Params where = {{"type", type}, {"shape", std::string("sq8192")}};
  return {"gemm." + type + (figure == "first_calls" ? "" : "." + figure),
          "GEMM " + type + " 8192³, " + (figure == "first_calls" ? "first calls" : figure) + " (best library or CUTLASS)",
          "tensor", unit, P::Highest,
          {src("gemm.ceiling.cublas", metric, where), src("gemm.ceiling.cutlass", metric, where)}, item};
}

std::vector<HeadlineRule> make_rules() {
  std::vector<HeadlineRule> r = {
      // DRAM: every stream that moves data between DRAM and the SMs, of any kernel shape or engine.
      // A one-shot grid beat the persistent grid-stride kernel on an H200 (write 4.69 vs 4.47 TB/s),
      // and TMA bulk loads read as fast as the best SM stream: the headline is the best of them.
      {"dram.read_bandwidth", "DRAM read bandwidth", "memory", "TB/s", P::Highest,
       {src("memory.bandwidth.dram", "bandwidth/tbps", op("read")),
        src("memory.bandwidth.dram_shape", "bandwidth/tbps", op("read")),
        src("memory.bandwidth.rw_mix", "bandwidth/tbps", {{"read_quarters", std::int64_t(4)}}),
        src("async.bulk.load", "bandwidth/tbps", from("dram")),
        src("async.bulk.load_evict_first", "bandwidth/tbps", from("dram")),
        src("async.cp_async.*", "bandwidth/tbps", from("dram")),
        src("async.tensor.load", "bandwidth/tbps", from("dram"))},
       // Not async.tensor.im2col: its 3x3 filter taps read each pixel up to nine times, so the
       // bytes it delivers include L2 hits and overstate what DRAM gave (it won at 4.70 TB/s).
       "memory.dram.bandwidth"},
      {"dram.write_bandwidth", "DRAM write bandwidth", "memory", "TB/s", P::Highest,
       {src("memory.bandwidth.dram", "bandwidth/tbps", op("write")),
        src("memory.bandwidth.dram_shape", "bandwidth/tbps", op("write")),
        src("memory.bandwidth.rw_mix", "bandwidth/tbps", {{"read_quarters", std::int64_t(0)}}),
        src("memory.bandwidth.copy_engine", "bandwidth/tbps", op("memset"))},
       ""},
      {"dram.copy_bandwidth", "DRAM copy bandwidth (bytes read + written)", "memory", "TB/s", P::Highest,
       {src("memory.bandwidth.dram", "bandwidth/tbps", op("copy")),
        src("memory.bandwidth.dram_shape", "bandwidth/tbps", op("copy")),
        src("memory.bandwidth.copy_engine", "bandwidth/tbps", op("memcpy_d2d"))},
       ""},
      {"dram.triad_bandwidth", "DRAM triad bandwidth (a = b + s·c)", "memory", "TB/s", P::Highest,
       {src("memory.bandwidth.dram", "bandwidth/tbps", op("triad"))}, ""},
      {"l2.read_bandwidth", "L2 read bandwidth", "memory", "TB/s", P::Highest,
       {src("memory.bandwidth.level", "bandwidth/tbps", {{"level", std::string("l2")}}),
        src("memory.bandwidth.l2_sweep", "bandwidth/tbps"),
        src("async.bulk.load", "bandwidth/tbps", from("l2")),
        src("async.cp_async.*", "bandwidth/tbps", from("l2")),
        src("async.tensor.load", "bandwidth/tbps", from("l2"))},
       ""},
      {"l1.read_bandwidth", "L1 read bandwidth", "memory", "TB/s", P::Highest,
       {src("memory.bandwidth.level", "bandwidth/tbps", {{"level", std::string("l1")}})}, ""},
      {"smem.read_bandwidth", "Shared-memory read bandwidth", "memory", "TB/s", P::Highest,
       {src("memory.bandwidth.level", "bandwidth/tbps", {{"level", std::string("shared")}})}, ""},
      {"l1.latency", "L1 hit latency (pointer chase)", "memory", "cycles", P::Designated,
       {src("memory.latency.chase", "latency/cycles", {{"level", std::string("L1")}, {"variant", std::string("ca")}})},
       "memory.l1.latency"},
      {"l2.near_latency", "L2 hit latency (pointer chase)", "memory", "cycles", P::Designated,
       {src("memory.latency.chase", "latency/cycles", {{"level", std::string("L2")}, {"variant", std::string("cg")}})},
       "memory.l2.near_latency"},
      {"dram.latency", "DRAM latency (pointer chase)", "memory", "cycles", P::Designated,
       {src("memory.latency.chase", "latency/cycles", {{"level", std::string("DRAM")}, {"variant", std::string("cg")}})},
       "memory.dram.latency"},
      {"fp32.peak", "FP32 FMA peak", "compute", "TFLOPS", P::Highest, {src("compute.peak.fp32", "throughput/tflops")}, ""},
      {"fp32.fma_per_clk_per_sm", "FP32 FMA per clock per SM", "compute", "FMA/clk/SM", P::Highest,
       {src("compute.peak.fp32", "throughput/fma_per_clk_per_sm")}, ""},
      {"fp64.dfma_per_clk_per_sm", "FP64 DFMA results per clock per SM", "compute", "results/clk/SM", P::Highest,
       {src("compute.alu.dfma", "throughput/per_clk_per_sm")}, ""},
      {"ffma.latency", "FFMA dependent latency", "compute", "cycles", P::Designated,
       {src("latency.alu.ffma", "latency/cycles")}, ""},
      wgmma_rule("f16_f32", "wgmma f16 → f32"),
      wgmma_rule("bf16_f32", "wgmma bf16 → f32"),
      wgmma_rule("tf32_f32", "wgmma tf32 → f32"),
      wgmma_rule("e4m3_f32", "wgmma fp8 e4m3 → f32"),
      wgmma_rule("s8_s32", "wgmma int8 → s32"),
      tcgen05_rule("f16", "tcgen05 f16 → f32"),
      tcgen05_rule("bf16", "tcgen05 bf16 → f32"),
      tcgen05_rule("tf32", "tcgen05 tf32 → f32"),
      tcgen05_rule("e4m3", "tcgen05 fp8 e4m3 → f32"),
      tcgen05_rule("s8", "tcgen05 int8 → s32"),
      mma_sync_rule("f8f6f4_e2m1", "mma.sync fp4 e2m1 → f32"),
      mma_sync_rule("f8f6f4_e3m2", "mma.sync fp6 e3m2 → f32"),
      mma_sync_rule("mxf4nvf4_e2m1", "mma.sync nvfp4 e2m1, block-scaled → f32"),
      mma_sync_rule("mxf8f6f4_e4m3", "mma.sync mxfp8 e4m3, block-scaled → f32"),
      gemm_rule("bf16", "TFLOPS", ""),
      gemm_rule("fp16", "TFLOPS", ""),
      gemm_rule("fp8_e4m3", "TFLOPS", ""),
      gemm_rule("tf32", "TFLOPS", ""),
      gemm_rule("int8", "TOPS", ""),
      gemm_rule("fp64", "TFLOPS", ""),
      gemm_rule("bf16", "TFLOPS", "", "steady"),
      gemm_rule("fp8_e4m3", "TFLOPS", "", "steady"),
      {"launch.overhead", "Kernel launch, asynchronous (per launch)", "system", "us", P::Designated,
       {src("topology.launch.overhead", "overhead/us", {{"what", std::string("launch_async")}})}, ""},
      {"pcie.h2d_bandwidth", "PCIe host-to-device bandwidth (pinned)", "system", "GB/s", P::Highest,
       {src("links.pcie.bandwidth", "bandwidth/gbps", {{"direction", std::string("h2d")}, {"memory", std::string("pinned")}})},
       "interconnect.pcie.h2d"},
  };
  return r;
}

std::string joined(const std::vector<std::string>& v, const char* sep = "; ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// A derived best record repeats a point's value; the point itself names the shape, so it wins a tie.
bool better(HeadlinePick pick, double v, const Record& r, double best, const Record& best_r) {
  if (pick == HeadlinePick::Highest && v != best) return v > best;
  if (pick == HeadlinePick::Lowest && v != best) return v < best;
  return best_r.derived && !r.derived;
}

std::string shape_of(const Record& r) {
  if (r.derived && r.extra.contains("best_point") && r.extra["best_point"].is_object()) {
    try {
      return to_string(params_from_json(r.extra["best_point"]));
    } catch (const std::exception&) {
    }
  }
  return to_string(r.params);
}

// One clock for every "% of peak", clock64 over %globaltimer: the per-clock efficiency comes
// from the peak the record states at that clock, the share of the datasheet's rate from the same
// peak scaled to the application clock. A record of our kernels states
// throughput/peak_tflops_at_clock at the clock its kernels saw; a GEMM record of a library's
// kernels, which read no clock, states one per figure at the clock right after its calls
// (throughput/<figure>_peak_<unit>_at_clock at clock/<figure>_after_sm_mhz; the headline's
// metric names the figure): an upper bound on their clock, so its shares are lower bounds.
void set_peak_shares(Headline& h) {
  const Record& r = *h.value.record;
  const std::string& name = h.value.metric;
  std::string figure = name.rfind("throughput/", 0) == 0 ? name.substr(11) : std::string();
  std::string unit = "tflops";
  for (const char* u : {"tflops", "tops"})
    if (figure.size() >= std::strlen(u) && figure.compare(figure.size() - std::strlen(u), std::string::npos, u) == 0) {
      unit = u;
      figure.resize(figure.size() - std::strlen(u));  // "first_calls_" or ""
    }
  const Metric* peak = r.metric("throughput/" + figure + "peak_" + unit + "_at_clock");
  const Metric* figure_clock = figure.empty() ? nullptr : r.metric("clock/" + figure + "after_sm_mhz");
  const double mhz = figure_clock ? figure_clock->value() : r.sm_clock_mhz;
  const auto factor = peak ? unit_factor(peak->unit, h.rule->unit) : std::nullopt;
  if (!factor || peak->value() <= 0) return;
  const double peak_at_clock = peak->value() * *factor;
  h.percent_of_peak_at_clock = 100 * h.value.value / peak_at_clock;
  h.clock_mhz = mhz;
  h.shares_are_lower_bounds = figure_clock != nullptr;
  if (h.application_mhz > 0 && mhz > 0)
    h.percent_of_peak_at_application = 100 * h.value.value / (peak_at_clock * h.application_mhz / mhz);
}

}  // namespace

bool record_has_params(const Record& r, const Params& where) {
  return std::all_of(where.begin(), where.end(), [&](const auto& kv) {
    const ParamValue* v = find_param(r.params, kv.first);
    return v && to_string(*v) == to_string(kv.second);
  });
}

const std::vector<HeadlineRule>& headline_rules() {
  static const std::vector<HeadlineRule> rules = make_rules();
  return rules;
}

std::optional<Headline> resolve_headline(const RunDocument& doc, const HeadlineRule& rule) {
  const Record* winner = nullptr;
  const std::string* winner_metric = nullptr;
  double best = 0;
  int candidates = 0;
  // A record measured beside another process (core/tenancy.hpp) is not the card's number: it
  // competes only where no record measured alone does, and then says so in its verdicts.
  const auto competes = [&](const Record& r, bool contended_too) {
    return contended_too || !has_flag(r, kContendedFlag);
  };
  for (const bool contended_too : {false, true}) {
    if (winner) break;
    for (const HeadlineSource& s : rule.sources)
    for (const Record& r : doc.records) {
      if (r.status != Status::Ok || !glob_match(s.probe, r.id) || !record_has_params(r, s.where)) continue;
      if (!competes(r, contended_too)) continue;
      const Metric* m = r.metric(s.metric);
      if (!m || !std::isfinite(m->value())) continue;
      const auto factor = unit_factor(m->unit, rule.unit);
      if (!factor) continue;
      const double v = m->value() * *factor;
      ++candidates;
      if (winner && (rule.pick == HeadlinePick::Designated || !better(rule.pick, v, r, best, *winner))) continue;
      winner = &r, winner_metric = &s.metric, best = v;
    }
  }
  if (!winner) return std::nullopt;
  Headline h{&rule, ItemValue{rule.item, best, rule.unit, "", winner, *winner_metric, ""}, shape_of(*winner),
             candidates, record_verdicts(*winner)};
  h.application_mhz = application_sm_clock_mhz(doc.gpu_state, doc.device);
  set_peak_shares(h);
  return h;
}

std::vector<Headline> resolve_headlines(const RunDocument& doc, const std::vector<HeadlineRule>& rules) {
  std::vector<Headline> out;
  for (const HeadlineRule& rule : rules)
    if (auto h = resolve_headline(doc, rule)) out.push_back(std::move(*h));
  return out;
}

std::vector<std::string> record_verdicts(const Record& r) {
  std::vector<std::string> v;
  if (r.sass.status != SassStatus::Verified && r.sass.status != SassStatus::NotApplicable)
    v.push_back("sass " + to_string(r.sass.status));
  if (r.convergence.recorded && !r.convergence.converged) v.push_back("not converged");
  if (const auto by = throttled_by(r); by && !by->empty()) v.push_back("throttled: " + joined(*by, ", "));
  for (const std::string& f : record_flags(r)) v.push_back(f);
  return v;
}

bool pipe_class_strictly_matches(const std::string& interference_class, const std::vector<std::string>& busiest) {
  const auto& own = counter_pipes_of_class(interference_class);
  const auto owns = [&](const std::string& p) { return std::find(own.begin(), own.end(), p) != own.end(); };
  bool any = false;
  for (const std::string& p : busiest) {
    if (!owns(p)) {
      if (p != "shared") return false;  // Hopper's shared FP64/tensor pipe decides nothing alone
      continue;
    }
    any = true;
  }
  return any;
}

PipeAgreement pipe_agreement(const RunDocument& doc) {
  PipeAgreement a;
  for (const Record& r : doc.records) {
    if (r.status != Status::Ok || !r.derived || !glob_match("pipes.interference.*", r.id)) continue;
    const ParamValue* method = find_param(r.params, "method");
    if (!method || to_string(*method) != "both") continue;
    ++a.rows;
    const std::string top = r.extra.value("pipe_by_interference", std::string("undetermined"));
    const auto ncu = r.extra.find("pipe_by_ncu");
    std::vector<std::string> busiest;
    if (ncu != r.extra.end() && ncu->is_object() && ncu->contains("busiest") && (*ncu)["busiest"].is_array())
      for (const auto& p : (*ncu)["busiest"])
        if (p.is_string()) busiest.push_back(p.get<std::string>());
    if (top == "undetermined" || busiest.empty()) {
      ++a.undetermined;
      continue;
    }
    if (pipe_class_strictly_matches(top, busiest)) {
      ++a.strict;
      continue;
    }
    bool tie = false;
    if (const auto t = r.extra.find("pipe_by_interference_tied"); t != r.extra.end() && t->is_array())
      for (const auto& c : *t)
        if (c.is_string() && pipe_class_strictly_matches(c.get<std::string>(), busiest)) tie = true;
    if (tie) ++a.through_tie;
    else a.misses.push_back(r.id + ": interference " + top + ", ncu " + joined(busiest, "+"));
  }
  return a;
}

std::string headline_source_label(const Headline& h) {
  const Record& r = *h.value.record;
  return r.id + (h.shape.empty() ? "" : " " + h.shape);
}

namespace {
// The clock the headline's figure ran at: a GEMM figure's own (its peak's), else the record's.
std::string clock_text(const Headline& h) {
  const Record& r = *h.value.record;
  if (std::isfinite(h.clock_mhz) && h.clock_mhz > 0 && h.clock_mhz != r.sm_clock_mhz)
    return (h.shares_are_lower_bounds ? "≤" : "") + fmt_num(h.clock_mhz, 4) + (h.shares_are_lower_bounds ? " (after)" : "");
  if (r.sm_clock_mhz <= 0) return "none";
  return fmt_num(r.sm_clock_mhz, 4) + (r.sm_clock_source == ClockSource::FromPoints ? " (pts)" : "");
}
std::string peak_text(const Headline& h) {
  if (!std::isfinite(h.percent_of_peak_at_clock)) return "";
  const std::string app = std::isfinite(h.percent_of_peak_at_application)
                              ? fmt_num(h.percent_of_peak_at_application, 3) + " % @ " + fmt_num(h.application_mhz, 4)
                              : "n/a";
  const std::string bound = h.shares_are_lower_bounds ? "≥" : "";
  return bound + fmt_num(h.percent_of_peak_at_clock, 4) + " % / " + (std::isfinite(h.percent_of_peak_at_application) ? bound : "") + app;
}
nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

std::string headlines_markdown(const std::vector<Headline>& headlines) {
  MarkdownTable t;
  t.column("Quantity").column("Value", MarkdownTable::Align::Right).column("Unit").column("SM MHz", MarkdownTable::Align::Right)
      .column("% of peak: per clock / at app. clock", MarkdownTable::Align::Right)
      .column("Record (the shape that won)").column("Verdicts");
  for (const Headline& h : headlines) {
    const Record& r = *h.value.record;
    t.row({markdown_escape(h.rule->title), fmt_num(h.value.value, 4), markdown_escape(h.rule->unit), clock_text(h),
           peak_text(h), "[" + markdown_escape(headline_source_label(h)) + "](" + record_anchor(r) + ")" +
               (h.candidates > 1 ? " (best of " + std::to_string(h.candidates) + ")" : ""),
           h.verdicts.empty() ? "" : "⚠ " + markdown_escape(joined(h.verdicts))});
  }
  return t.render();
}

nlohmann::json headlines_json(const std::vector<Headline>& headlines) {
  nlohmann::json out = nlohmann::json::array();
  for (const Headline& h : headlines) {
    const Record& r = *h.value.record;
    out.push_back({{"quantity", h.rule->quantity},
                   {"title", h.rule->title},
                   {"value", h.value.value},
                   {"unit", h.rule->unit},
                   {"record", r.id},
                   {"params", to_json(r.params)},
                   {"shape", h.shape},
                   {"metric", h.value.metric},
                   {"candidates", h.candidates},
                   {"sm_clock_mhz", r.sm_clock_mhz},
                   {"sm_clock_source", to_string(r.sm_clock_source)},
                   {"peak_clock_mhz", finite_or_null(h.clock_mhz)},
                   {"shares_are_lower_bounds", h.shares_are_lower_bounds},
                   {"sass", to_string(r.sass.status)},
                   {"verdicts", h.verdicts},
                   {"application_sm_clock_mhz", h.application_mhz},
                   {"percent_of_peak_at_clock", finite_or_null(h.percent_of_peak_at_clock)},
                   {"percent_of_peak_at_application_clock", finite_or_null(h.percent_of_peak_at_application)},
                   {"item", h.rule->item.empty() ? nlohmann::json(nullptr) : nlohmann::json(h.rule->item)}});
  }
  return out;
}

}  // namespace gd
