// Execution pipe of every catalog instruction by interference (its throughput beside a
// saturating reference of each pipe class), the co-issue matrix over the classes, and
// back-pressure (one warp's step time beside a saturated pipe): which work overlaps for free.
#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "../compute/alu_streams.cuh"
#include "pair_runner.cuh"
#if GD_SLICE == 0
#include "pipe_rows.cuh"  // the LDG, DMMA and IMMA rows, registered once below
#else
namespace gd {
namespace {
struct LdgChase;  // the quick run's rows name them (kInQuickRun); slice 0 defines them
struct DmmaF64;
struct ImmaS8;
}  // namespace
}  // namespace gd
#endif
#include "analysis/coissue.hpp"
#include "../latency/alu_seed_items.hpp"
#include "core/registry.hpp"

namespace gd {
namespace {

using alu_streams::PipeRefs;
using alu_streams::kPairIlp;
using alu_streams::kRefClasses;
using namespace pipe_pairs;
constexpr int kRefs = int(std::tuple_size_v<PipeRefs>);
constexpr double kTargetCycles = 30000;

// One row beside every reference: per class, the verdict (and with `backpressure`, one X warp's
// step time beside the saturated reference over alone). Emits the per-row probe's metrics when
// `emit`.
struct RowResult {
  nlohmann::json verdicts = nlohmann::json::object();
  std::map<std::string, InterferenceVerdict> by_class;
};

template <class X>
RowResult measure_row(ProbeContext& ctx, bool backpressure, bool emit, std::vector<RegionTiming>& timings) {
  alu_catalog::Rng rng(std::random_device{}());
  Side x = make_side<X>(ctx, rng);
  std::vector<Side> refs;
  [&]<class... R>(std::tuple<R...>*) { (refs.push_back(make_side<R>(ctx, rng)), ...); }(static_cast<PipeRefs*>(nullptr));
  PairRunner pr(ctx, alu_streams::alu_pair_kernel<X>);
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.time_cap_s = 0.2;

  const int x_trips = trips_for(pr.run(x, 2, kSideWarps, nullptr, 0, 0, 0).x_cycles_per_step, x, kTargetCycles);
  if (emit) {
    // The row alone in its own stream kernel: reported, and what ncu's counters describe.
    const int stream_trips = std::max(2, int(x_trips * x.steps_per_trip / x.stream_steps_per_trip));
    ctx.metric("alone/per_clk_per_sm", ctx.measure([&] { return pr.stream_alone(x, stream_trips).first; }, policy).summary);
  }
  // Alone in the pair kernel: the denominator of every ratio, from the same code as the mixes.
  const double x_alone =
      ctx.measure([&] { return pr.run(x, x_trips, kSideWarps, nullptr, 0, 0, 0).x; }, policy).summary.median;
  double x_single = 0;
  if (backpressure)
    x_single = ctx.measure([&] { return pr.run(x, x_trips, 1, nullptr, 0, 0, 0).x_cycles_per_step; }, policy).summary.median;
  RowResult out;
  for (int j = 0; j < kRefs; ++j) {
    const Side& y = refs[j];
    // Y outlasts X even when X is not slowed, so X's whole run is beside it.
    const int y_trips = 2 * trips_for(pr.run(x, 0, 0, &y, 2, kSideWarps, j).y_cycles_per_step, y, kTargetCycles);
    const double y_alone = ctx.measure([&] { return pr.run(x, 0, 0, &y, y_trips, kSideWarps, j).y; }, policy).summary.median;
    const double beside =
        ctx.measure([&] { return pr.run(x, x_trips, kSideWarps, &y, y_trips, kSideWarps, j).x; }, policy).summary.median;
    const InterferenceVerdict v =
        judge_interference({issue_rate(x_alone, x), issue_rate(y_alone, y), issue_rate(beside, x)});
    out.by_class[kRefClasses[j]] = v;
    if (emit) ctx.metric(std::string("slowdown/") + kRefClasses[j], v.ratio);
    auto& line = out.verdicts[kRefClasses[j]];
    line = {{"reference", y.name},  {"ratio", v.ratio},       {"separate", v.separate},
            {"shared", v.shared},   {"decisive", v.decisive}, {"same_pipe_score", v.same_pipe_score},
            {"x_issue_alone", issue_rate(x_alone, x)},       {"y_issue_alone", issue_rate(y_alone, y)}};
    if (backpressure) {
      const double pressed = ctx.measure([&] { return pr.run(x, x_trips, 1, &y, y_trips, kSideWarps, j).x_cycles_per_step; },
                                         policy).summary.median;
      line["step_cycles_single_warp"] = {{"alone", x_single}, {"beside", pressed}, {"ratio", pressed / x_single}};
    }
  }
  timings.insert(timings.end(), pr.timings().begin(), pr.timings().end());
  return out;
}

template <class X>
void run_interference(ProbeContext& ctx) {
  std::vector<RegionTiming> timings;
  const RowResult r = measure_row<X>(ctx, false, true, timings);
  ctx.extra()["verdicts"] = r.verdicts;
  const auto tied = pipes_tied_by_interference(r.by_class);
  const std::string pipe = tied.empty() ? std::string() : tied.front();
  ctx.extra()["pipe_by_interference"] = pipe.empty() ? "undetermined" : pipe;
  if (tied.size() > 1) ctx.extra()["pipe_by_interference_tied"] = tied;
  // Other classes whose reference also slowed this row as a shared pipe would.
  std::vector<std::string> also;
  for (const auto& [cls, v] : r.by_class)
    if (cls != pipe && v.decisive && v.same_pipe_score > 0.5) also.push_back(cls);
  ctx.extra()["also_interferes_with"] = also;
  ctx.set_observed_sm_clock_mhz(clock_mhz(timings));
}

// The row's line of the reference table: its pipe by interference and by ncu's counters (when
// the run was under ncu), and whether they agree. A row that is itself a class's reference also
// checks that its counters show the pipes the class stands for (counter_pipes_of_class): the
// agreement rule rests on that table.
void summarize_interference(SummaryContext& sc) {
  for (const Record* r : sc.ok_records()) {
    Record& d = sc.derive({{"method", std::string("both")}}, {r});
    // The classes interference cannot tell apart, and its answer, from the stored verdicts: so
    // `resummarize` applies today's rule to older runs too (the probe's own answer where a run
    // stored no verdicts it can read).
    const nlohmann::json verdicts = r->extra.value("verdicts", nlohmann::json::object());
    const auto tied = pipes_tied_by_interference(verdicts_from_json(verdicts));
    const std::string by_interference = verdicts_from_json(verdicts).empty()
                                            ? r->extra.value("pipe_by_interference", std::string("undetermined"))
                                        : tied.empty() ? std::string("undetermined")
                                                       : tied.front();
    d.extra["pipe_by_interference"] = by_interference;
    d.extra["pipe_by_ncu"] = describe_ncu_pipe(r->extra, "alu_stream_kernel");
    const auto counters = pipe_from_ncu(r->extra, "alu_stream_kernel");
    // The reference table's one-line answer (what `coverage` shows for the seeds' pipe items).
    if (!counters || counters->pipe.empty()) {
      d.extra["pipe"] = by_interference + " (by interference; no ncu counters in this run)";
      continue;
    }
    std::string busiest;
    for (const std::string& p : counters->busiest) busiest += (busiest.empty() ? "" : "+") + p;
    d.extra["pipe"] = busiest + " (ncu's busiest pipe" + (counters->busiest.size() > 1 ? "s" : "") +
                      "); interference: " + by_interference;
    const std::string row = r->id.substr(r->id.rfind('.') + 1);
    // `verdicts` is a named copy: iterating items() of value()'s temporary read freed memory
    // ("cannot use value() with null" on the H200).
    for (const auto& [cls, line] : verdicts.items())
      if (line.value("reference", std::string()) == row)
        d.extra["reference_check"] = pipe_methods_agree(cls, *counters)
                                         ? "the " + cls + " reference runs on its class's pipes"
                                         : "MISMATCH: the " + cls + " reference's busiest pipes are not its class's";
    if (by_interference == "undetermined") {
      d.extra["disagreement"] = "not measured both ways: interference cannot decide (ncu says " +
                                class_by_counters(*counters) + ")";
      continue;
    }
    // An agreement through a class interference cannot tell from its answer is marked as such.
    const bool agree_top = pipe_methods_agree(by_interference, *counters);
    const auto via = std::find_if(tied.begin(), tied.end(), [&](const std::string& c) { return pipe_methods_agree(c, *counters); });
    const bool agree = agree_top || via != tied.end();
    sc.add_metric(d, "pipes/methods_agree", single_value(agree ? 1 : 0));
    if (tied.size() > 1) d.extra["pipe_by_interference_tied"] = tied;
    if (agree && !agree_top) d.extra["agreement"] = "through " + *via + ", tied with " + by_interference + " under interference";
    std::string named = by_interference;
    for (std::size_t i = 1; i < tied.size(); ++i) named += (i + 1 == tied.size() ? " or " : ", ") + tied[i];
    if (!agree)
      d.extra["disagreement"] = "interference says " + named + ", ncu's busiest pipe is " + counters->pipe +
                                " (" + class_by_counters(*counters) + ")";
  }
}

std::vector<MetricSpec> interference_metrics() {
  std::vector<MetricSpec> m{{"alone/per_clk_per_sm", "results/clk/SM", "the row alone: 16 warps per SM, 4 chains each"},
                            {"pipes/methods_agree", "bool", "1 when interference and ncu name the same pipe class"}};
  for (const char* c : kRefClasses)
    m.push_back({std::string("slowdown/") + c, "ratio", std::string("rate beside a saturated ") + c + " reference over alone"});
  return m;
}

// A quick run measures the rows that stand for the pipe classes (each class's reference, and the
// LDG, DMMA and IMMA rows registered below): 12 of the 82 rows, the classes' rates beside one another.
template <class Op, class Rows>
struct OneOf;
template <class Op, class... Rows>
struct OneOf<Op, std::tuple<Rows...>> : std::bool_constant<(std::is_same_v<Op, Rows> || ...)> {};
template <class Op>
constexpr bool kInQuickRun = OneOf<Op, PipeRefs>::value || OneOf<Op, std::tuple<LdgChase, DmmaF64, ImmaS8>>::value;

template <class Op>
ProbeSpec interference_spec() {
  ProbeSpec s;
  s.id = std::string("pipes.interference.") + Op::name;
  s.description = std::string("pipe of ") + Op::name + " by interference with a saturating reference of each pipe class";
  s.needs = alu_catalog::requirements<Op>();
  s.sass = {alu_streams::pair_sass<Op>(), alu_streams::stream_sass<Op>(kPairIlp)};
  s.metrics = interference_metrics();
  s.run = run_interference<Op>;
  s.summarize = summarize_interference;
  s.ncu_metrics = pipe_utilization_metrics();
  s.covers = alu_catalog::pipe_covers(Op::name);
  s.time_cap_s = 3;
  s.quick_time_cap_s = 1;
  if (!kInQuickRun<Op>)
    s.quick_leaves_out = "a quick run measures the rows that stand for the pipe classes (each class's reference, "
                         "LDG, DMMA, IMMA): about 65 ms a row, 4.5 s for the other 70";
  return s;
}

#if GD_SLICE == 0  // the matrix once, in the first of this file's compile slices
// --- the co-issue matrix and back-pressure over the references ---------------------------------
// One metric per pair of classes (i before j in kRefClasses): the matrix cell as a number the
// report, compare and coverage can read.
bool pair_listed_before(const std::string& a, const std::string& b) {
  const auto at = [](const std::string& c) {
    return std::find_if(std::begin(kRefClasses), std::end(kRefClasses), [&](const char* k) { return c == k; });
  };
  return at(a) < at(b);
}
std::string coissue_metric(const std::string& a, const std::string& b) { return "coissue/" + a + "+" + b; }

std::vector<MetricSpec> coissue_metrics() {
  std::vector<MetricSpec> m{{"coissue/best_gain", "ratio", "largest off-diagonal cell (2: two pipes fully overlap)"},
                            {"coissue/worst_gain", "ratio", "smallest off-diagonal cell (1: they take turns)"},
                            {"coissue/confirmed_pairs", "pairs",
                             "class pairs whose streams both keep their rate beside each other (decisive and separate "
                             "both ways; see extra.confirmed_pairs)"},
                            {"mix/int_fp32_gain_percent", "%",
                             "INT (LOP3) and FP32 (FFMA) streams side by side: combined issue rate over INT alone, minus 1"}};
  for (const char* a : kRefClasses)
    for (const char* b : kRefClasses)
      if (pair_listed_before(a, b))
        m.push_back({coissue_metric(a, b), "ratio",
                     std::string("co-issue of ") + a + " and " + b + ": each stream's rate beside the other over alone, summed"});
  return m;
}
// The seeds' co-issue pairs (their INT is IADD3, ours LOP3: the same alu pipe; TC is mma.sync).
std::vector<SeedCover> coissue_covers() {
  static const std::pair<const char*, const char*> kPairs[] = {
      {"int_fp32", "INT+FP32"}, {"int_fp64", "INT+FP64"},  {"int_sfu", "INT+SFU"},   {"int_tc", "INT+tensor"},
      {"fp32_fp64", "FP32+FP64"}, {"fp32_sfu", "FP32+SFU"}, {"fp32_tc", "FP32+tensor"}, {"fp64_sfu", "FP64+SFU"},
      {"fp64_tc", "FP64+tensor"}, {"sfu_tc", "SFU+tensor"}};
  // The derived record (view=matrix), not the raw one: one record per cover.
  const Params matrix{{"view", std::string("matrix")}};
  std::vector<SeedCover> out;
  for (const auto& [item, pair] : kPairs)
    out.push_back({std::string("pipes.coissue.") + item, std::string("coissue/") + pair, matrix});
  out.push_back({"pipes.coissue.confirmed_pairs", "coissue/confirmed_pairs", matrix});
  out.push_back({"pipes.p0.int_fp32_mix_gain", "mix/int_fp32_gain_percent", matrix});
  out.push_back({"pipes.backpressure.independent", "extra.backpressure_independent", matrix});
  return out;
}

void run_coissue(ProbeContext& ctx) {
  std::vector<RegionTiming> timings;
  std::map<std::string, RowResult> rows;  // by class
  int i = 0;
  [&]<class... R>(std::tuple<R...>*) {
    ((rows[kRefClasses[i++]] = measure_row<R>(ctx, true, false, timings)), ...);
  }(static_cast<PipeRefs*>(nullptr));
  nlohmann::json matrix = nlohmann::json::array(), pressure = nlohmann::json::array();
  double best = 0, worst = 2;
  for (const char* ci : kRefClasses) {
    nlohmann::json line = nlohmann::json::array(), pline = nlohmann::json::array();
    for (const char* cj : kRefClasses) {
      // Row i, column j: i beside j over i alone, plus j beside i over j alone.
      const double gain = rows[ci].by_class[cj].ratio + rows[cj].by_class[ci].ratio;
      line.push_back(gain);
      pline.push_back(rows[ci].verdicts[cj]["step_cycles_single_warp"]["ratio"]);
      if (std::string(ci) != cj) {
        best = std::max(best, gain);
        worst = std::min(worst, gain);
      }
      if (pair_listed_before(ci, cj)) ctx.metric(coissue_metric(ci, cj), gain);
    }
    matrix.push_back(line);
    pressure.push_back(pline);
  }
  nlohmann::json refs = nlohmann::json::object();
  for (const char* c : kRefClasses) refs[c] = rows[c].verdicts[c]["reference"];
  ctx.metric("coissue/best_gain", best);
  ctx.metric("coissue/worst_gain", worst);
  ctx.extra()["view"] = "matrix";
  ctx.extra()["classes"] = std::vector<std::string>(std::begin(kRefClasses), std::end(kRefClasses));
  ctx.extra()["references"] = refs;
  ctx.extra()["matrix"] = matrix;
  ctx.extra()["matrix_meaning"] =
      "row i, column j: throughput of i beside j over i alone plus j beside i over j alone (2: full co-issue, "
      "1: the two take turns; the diagonal is a stream beside itself)";
  ctx.extra()["backpressure"] = pressure;
  ctx.extra()["backpressure_meaning"] =
      "row i, column j: one warp of i, cycles per step of each of its 4 chains beside 16 warps saturating j, over alone";
  nlohmann::json detail = nlohmann::json::object();
  for (const auto& [c, r] : rows) detail[c] = r.verdicts;
  ctx.extra()["verdicts"] = detail;
  ctx.set_observed_sm_clock_mhz(clock_mhz(timings));
}

// From the stored verdicts (so `resummarize` applies to older runs): the pairs confirmed to
// co-issue, the INT+FP32 mix gain, and whether INT and SFU back-pressure each other (the seeds'
// test: one pipe saturated, a warp on the other keeps its step time).
void summarize_coissue_verdicts(SummaryContext& sc, const Record& r, Record& d) {
  const nlohmann::json verdicts = r.extra.value("verdicts", nlohmann::json::object());
  const std::vector<std::string> classes = r.extra.value("classes", std::vector<std::string>{});
  if (verdicts.empty() || classes.empty()) return;
  std::map<std::string, std::map<std::string, InterferenceVerdict>> rows;
  for (const auto& [row, line] : verdicts.items()) rows[row] = verdicts_from_json(line);
  const CoissuePairs pairs = coissue_pairs(classes, rows);
  sc.add_metric(d, "coissue/confirmed_pairs", single_value(double(pairs.confirmed.size())));
  d.extra["confirmed_pairs"] = pairs.confirmed;
  d.extra["shared_pairs"] = pairs.shared;
  d.extra["undecided_pairs"] = pairs.undecided;
  d.extra["confirmed_pairs_rule"] =
      "a pair co-issues when each stream's verdict beside the other's reference is decisive and scores as separate "
      "pipes (same_pipe_score < 0.5); shared when either scores as one pipe; undecided otherwise (FP32's FFMA issues "
      "every clock, so no verdict beside it is decisive)";
  const auto line = [&](const char* row, const char* col) -> const nlohmann::json* {
    if (!verdicts.contains(row) || !verdicts[row].contains(col)) return nullptr;
    return &verdicts[row][col];
  };
  if (const auto *i = line("INT", "FP32"), *f = line("FP32", "INT"); i && f)
    sc.add_metric(d, "mix/int_fp32_gain_percent",
                  single_value(mix_gain_percent((*i)["ratio"].get<double>(), (*i)["x_issue_alone"].get<double>(),
                                                (*f)["ratio"].get<double>(), (*f)["x_issue_alone"].get<double>())));
  const auto pressed = [&](const char* row, const char* col) -> double {
    const auto* l = line(row, col);
    if (!l || !l->contains("step_cycles_single_warp")) return 0;
    return (*l)["step_cycles_single_warp"].value("ratio", 0.0);
  };
  if (const double a = pressed("INT", "SFU"), b = pressed("SFU", "INT"); a > 0 && b > 0)
    d.extra["backpressure_independent"] = backpressure_independence("INT", "SFU", a, b).text;
}

// The matrix as a derived record, the form the report renders.
void summarize_coissue(SummaryContext& sc) {
  for (const Record* r : sc.ok_records()) {
    Record& d = sc.derive({{"view", std::string("matrix")}}, {r});
    for (const Metric& m : r->metrics) sc.add_metric(d, m.name, m.stats);
    for (const char* key : {"view", "classes", "references", "matrix", "matrix_meaning", "backpressure", "backpressure_meaning"})
      if (const auto it = r->extra.find(key); it != r->extra.end()) d.extra[key] = *it;  // absent in a damaged file
    summarize_coissue_verdicts(sc, *r, d);
  }
}

ProbeSpec coissue_spec() {
  ProbeSpec s;
  s.id = "pipes.coissue.matrix";
  s.description = "co-issue matrix over pipe classes (mixed throughput over each stream alone) and back-pressure";
  [&]<class... R>(std::tuple<R...>*) {
    (s.sass.push_back(interference_spec<R>().sass[0]), ...);
  }(static_cast<PipeRefs*>(nullptr));
  // The uniform-datapath reference (S2UR %smid) is what sm_90 and later compile; sm_80 reads
  // %smid through S2R, so the matrix's "uniform" class exists from sm_90 on.
  s.needs.min_cc = 90;
  s.metrics = coissue_metrics();
  s.covers = coissue_covers();
  s.run = run_coissue;
  s.summarize = summarize_coissue;
  s.time_cap_s = 20;
  s.quick_time_cap_s = 10;
  return s;
}
GD_REGISTER_PROBE(coissue_spec());
// The pipes of LDG (a memory row), DMMA and IMMA by interference beside the same references (seed
// covers in data/coverage/covers.csv).
GD_REGISTER_PROBE(interference_spec<LdgChase>());
GD_REGISTER_PROBE(interference_spec<DmmaF64>());
GD_REGISTER_PROBE(interference_spec<ImmaS8>());
#endif

[[maybe_unused]] const bool registered = [] {
  alu_catalog::for_each_variant_of_this_slice(
      [](auto* row) { ProbeRegistration{interference_spec<std::remove_pointer_t<decltype(row)>>()}; });
  return true;
}();

}  // namespace
}  // namespace gd
