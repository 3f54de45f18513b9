#include "analysis/throughput.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/stats.hpp"

namespace gd {

double per_sm_rate(std::span<const RegionTiming> blocks, double work_per_block) {
  std::map<unsigned, std::pair<long long, long long>> span;  // smid -> (first start, last end)
  std::map<unsigned, int> count;
  for (const RegionTiming& t : blocks) {
    const long long begin = t.start_cycle, end = t.start_cycle + t.cycles;
    auto [it, fresh] = span.try_emplace(t.smid, begin, end);
    if (!fresh) {
      it->second.first = std::min(it->second.first, begin);
      it->second.second = std::max(it->second.second, end);
    }
    ++count[t.smid];
  }
  std::vector<double> rates;
  for (const auto& [sm, s] : span)
    if (s.second > s.first) rates.push_back(work_per_block * count[sm] / double(s.second - s.first));
  return rates.empty() ? 0 : summarize(rates).median;
}

ThroughputKnee throughput_knee(std::span<const RatePoint> sweep, double fraction) {
  if (sweep.empty()) throw std::invalid_argument("throughput_knee: empty sweep");
  for (const RatePoint& p : sweep)
    if (!std::isfinite(p.rate) || !std::isfinite(p.ilp) || !std::isfinite(p.warps))
      throw std::invalid_argument("throughput_knee: non-finite point");
  const auto best = std::max_element(sweep.begin(), sweep.end(),
                                     [](const RatePoint& a, const RatePoint& b) { return a.rate < b.rate; });
  ThroughputKnee k;
  k.plateau = best->rate;
  k.plateau_ilp = best->ilp;
  k.plateau_warps = best->warps;
  k.ilp_knee = best->ilp;
  k.warps_knee = best->warps;
  for (const RatePoint& p : sweep) {
    if (p.rate < fraction * k.plateau) continue;
    if (p.warps == best->warps) k.ilp_knee = std::min(k.ilp_knee, p.ilp);
    if (p.ilp == best->ilp) k.warps_knee = std::min(k.warps_knee, p.warps);
  }
  return k;
}

namespace {
void require_rate(double v, const char* what) {
  if (!std::isfinite(v) || v <= 0) throw std::invalid_argument(std::string(what) + " must be positive and finite");
}
// Two expectations closer than this cannot be told apart by a measured ratio's noise.
constexpr double kDecisiveGap = 0.2;
// A stream issuing at 90 % of the slots or more hogs them: the scheduler does not share fairly
// (measured on sm_90: a MUFU stream beside FFMA keeps 42 % of its rate, not 88 %).
constexpr double kIssueBound = 0.9;
constexpr double kTieWindow = 0.15;
}  // namespace

InterferenceVerdict judge_interference(const InterferenceInput& in) {
  require_rate(in.x_alone, "x_alone");
  require_rate(in.y_alone, "y_alone");
  if (!std::isfinite(in.x_beside) || in.x_beside < 0) throw std::invalid_argument("x_beside must be finite, >= 0");
  InterferenceVerdict v;
  v.ratio = in.x_beside / in.x_alone;
  // Separate pipes: only the one issue slot per clock is shared. The scheduler alternates
  // between ready warps, so each stream is guaranteed half the slots and takes what the other
  // leaves.
  const double x_gets = in.x_alone + in.y_alone <= 1 ? in.x_alone
                                                      : std::max(std::min(in.x_alone, 0.5), 1 - in.y_alone);
  v.separate = std::min(1.0, x_gets / in.x_alone);
  // One pipe, saturated by both: its time splits between the two streams.
  v.shared = 0.5;
  // Only a pair whose issue demands fit the slots tells pipes apart: beside a stream that issues
  // every clock (FFMA), every other stream loses slots whether or not it shares the pipe.
  v.decisive = in.x_alone + in.y_alone <= 1 && std::max(in.x_alone, in.y_alone) < kIssueBound &&
               v.separate - v.shared >= kDecisiveGap;
  const double gap = v.separate - v.shared;
  v.same_pipe_score = gap > 0 ? std::clamp((v.separate - v.ratio) / gap, -0.5, 1.5) : 0;
  return v;
}

std::vector<std::string> pipes_tied_by_interference(const std::map<std::string, InterferenceVerdict>& by_class) {
  const auto rank = [](const InterferenceVerdict& v) { return std::min(v.same_pipe_score, 1.0); };
  double top = 0.5;
  for (const auto& [cls, v] : by_class)
    if (v.decisive) top = std::max(top, rank(v));
  if (top <= 0.5) return {};
  // Scores within the tie window of the best: on sm_90 the tensor (mma.sync) and conversion
  // references slow INT, FP64 and SFU streams as much as those pipes' own references do.
  const auto tied = [&](const InterferenceVerdict& v) { return v.decisive && rank(v) >= top - kTieWindow; };
  std::vector<std::pair<std::string, const InterferenceVerdict*>> out;
  for (const std::string& cls : pipe_classes())
    if (const auto it = by_class.find(cls); it != by_class.end() && tied(it->second)) out.emplace_back(cls, &it->second);
  for (const auto& [cls, v] : by_class)  // classes outside the list
    if (std::find(pipe_classes().begin(), pipe_classes().end(), cls) == pipe_classes().end() && tied(v))
      out.emplace_back(cls, &v);
  // First the classes whose reference brought the row to the fair split or below (they share its
  // pipe), then the rest; within each, the ratio nearest one fairly split pipe first (the same
  // pipe at the same occupancy); equals keep the class order.
  const auto key = [](const InterferenceVerdict& v) {
    return std::pair{v.same_pipe_score >= 1 ? 0 : 1, std::abs(v.ratio - v.shared)};
  };
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return key(*a.second) < key(*b.second); });
  std::vector<std::string> names;
  for (const auto& [cls, v] : out) names.push_back(cls);
  return names;
}

std::string pipe_by_interference(const std::map<std::string, InterferenceVerdict>& by_class) {
  const auto tied = pipes_tied_by_interference(by_class);
  return tied.empty() ? std::string() : tied.front();
}

std::map<std::string, InterferenceVerdict> verdicts_from_json(const nlohmann::json& verdicts) {
  std::map<std::string, InterferenceVerdict> out;
  if (!verdicts.is_object()) return out;
  for (const auto& [cls, line] : verdicts.items()) {
    if (!line.is_object()) continue;
    const auto d = line.find("decisive");
    const auto s = line.find("same_pipe_score");
    if (d == line.end() || s == line.end() || !d->is_boolean() || !s->is_number()) continue;
    InterferenceVerdict v;
    v.decisive = d->get<bool>();
    v.same_pipe_score = s->get<double>();
    // The ratio and the shared split order a near tie; a run that lacks them keeps class order.
    if (const auto r = line.find("ratio"); r != line.end() && r->is_number()) v.ratio = r->get<double>();
    if (const auto sh = line.find("shared"); sh != line.end() && sh->is_number()) v.shared = sh->get<double>();
    out[cls] = v;
  }
  return out;
}

namespace {
// Literals, not std::string globals: probes call pipe_utilization_metrics() while registering,
// during static initialisation, possibly before this file's globals are constructed.
constexpr const char* kInstPrefix = "__inst_executed_pipe_";
constexpr const char* kCyclesPrefix = "sm__pipe_";
constexpr const char* kPct = ".avg.pct_of_peak_sustained_active";
constexpr double kBusyWindow = 0.9;  // a pipe at >= 90 % of the busiest one's utilization is busy too

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active" -> "alu";
// "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active" -> "shared"; else "".
std::string utilization_pipe(const std::string& name) {
  const std::string pct = kPct, inst = kInstPrefix, cycles = kCyclesPrefix, active = "_cycles_active";
  if (!ends_with(name, pct)) return {};
  const std::string stem = name.substr(0, name.size() - pct.size());
  if (const auto at = stem.find(inst); at != std::string::npos) return stem.substr(at + inst.size());
  if (stem.rfind(cycles, 0) == 0 && ends_with(stem, active))
    return stem.substr(cycles.size(), stem.size() - cycles.size() - active.size());
  return {};
}

CounterPipe by_utilization(const std::map<std::string, double>& ncu_metrics) {
  CounterPipe out;
  out.by_utilization = true;
  for (const auto& [name, value] : ncu_metrics) {
    const std::string pipe = utilization_pipe(name);
    if (pipe.empty() || !std::isfinite(value)) continue;
    out.utilization[pipe] = std::max(out.utilization[pipe], value);  // inst and cycles views of one pipe
  }
  double top = 0;
  for (const auto& [pipe, u] : out.utilization)
    if (u > top) {
      top = u;
      out.pipe = pipe;
    }
  if (top <= 0) return CounterPipe{{}, 0, {}, out.utilization, {}, true};
  out.share = top;
  for (const auto& [pipe, u] : out.utilization)
    if (u >= kBusyWindow * top) out.busiest.push_back(pipe);
  return out;
}

CounterPipe by_counts(const std::map<std::string, double>& ncu_metrics) {
  static const std::string kPrefix = "smsp__inst_executed_pipe_";
  std::map<std::string, double> raw;
  for (const auto& [name, value] : ncu_metrics) {
    if (name.rfind(kPrefix, 0) != 0 || !std::isfinite(value)) continue;
    std::string pipe = name.substr(kPrefix.size());
    if (const auto dot = pipe.find('.'); dot != std::string::npos) {
      if (pipe.substr(dot) != ".sum") continue;  // .avg, .max ... are views of the same count
      pipe = pipe.substr(0, dot);
    }
    if (pipe.rfind("tensor", 0) == 0) pipe = "tensor";  // tensor_op_hmma, tensor_op_imma, ...
    raw[pipe] = std::max(raw[pipe], value);
  }
  // fma counts fmaheavy and fmalite together; fold the parts in only when the total is absent.
  if (!raw.count("fma") && (raw.count("fmaheavy") || raw.count("fmalite")))
    raw["fma"] = raw["fmaheavy"] + raw["fmalite"];
  raw.erase("fmaheavy");
  raw.erase("fmalite");
  CounterPipe out;
  out.counts = raw;
  double total = 0, top = -1;
  for (const auto& [pipe, n] : raw) {
    total += n;
    if (n > top) {
      top = n;
      out.pipe = pipe;
    }
  }
  if (out.pipe.empty() || top <= 0) return CounterPipe{{}, 0, raw, {}, {}, false};
  out.share = top / total;
  out.busiest = {out.pipe};
  return out;
}
}  // namespace

const std::vector<std::string>& pipe_utilization_metrics() {
  static const std::vector<std::string> m = [] {
    std::vector<std::string> v;
    for (const char* p : {"adu", "alu", "cbu", "fma", "fmaheavy", "fmalite", "fp64", "lsu", "tensor", "uniform", "xu"})
      v.push_back(std::string("sm") + kInstPrefix + p + kPct);
    v.push_back(std::string(kCyclesPrefix) + "shared_cycles_active" + kPct);
    return v;
  }();
  return m;
}

CounterPipe pipe_by_counters(const std::map<std::string, double>& ncu_metrics) {
  const bool utilization = std::any_of(ncu_metrics.begin(), ncu_metrics.end(),
                                       [](const auto& m) { return !utilization_pipe(m.first).empty(); });
  return utilization ? by_utilization(ncu_metrics) : by_counts(ncu_metrics);
}

std::optional<CounterPipe> pipe_from_ncu(const nlohmann::json& extra, const std::string& kernel_part) {
  const auto ncu = extra.find("ncu");
  if (ncu == extra.end() || !ncu->is_object()) return std::nullopt;
  for (const auto& [kernel, metrics] : ncu->items()) {
    if (kernel.find(kernel_part) == std::string::npos || !metrics.is_object()) continue;
    std::map<std::string, double> m;
    for (const auto& [name, v] : metrics.items())
      if (v.is_number()) m[name] = v.get<double>();
    return pipe_by_counters(m);
  }
  return std::nullopt;
}

nlohmann::json describe_ncu_pipe(const nlohmann::json& extra, const std::string& kernel_part) {
  const auto p = pipe_from_ncu(extra, kernel_part);
  if (!p || p->pipe.empty()) return "ncu counters absent";
  nlohmann::json d = {{"pipe", p->pipe}, {"class", class_by_counters(*p)}, {"busiest", p->busiest}};
  if (p->by_utilization) {
    d["utilization_percent"] = p->utilization;
    d["method"] = "busiest pipe against its own peak (ncu pct_of_peak_sustained_active)";
  } else {
    d["share"] = p->share;
    d["counts"] = p->counts;
    d["method"] = "most executed instructions (ncu inst_executed_pipe counts; no utilization metrics)";
  }
  return d;
}

const std::vector<std::string>& pipe_classes() {
  static const std::vector<std::string> classes{"INT", "FP32", "FMAheavy", "FP64", "SFU",
                                                "LSU", "tensor", "conversion", "uniform"};
  return classes;
}

// Each class is what its reference row loads, as the reference rows' own counters showed on the
// H200 (2026-11-30): LOP3 alu; FFMA fma (both halves); IMAD fmaheavy; DFMA fp64 and the shared
// pipe; MUFU.EX2 xu; SHFL lsu; the HMMA.F16 chain the shared pipe (tensor at 46 %); F2F.F64 xu;
// S2UR the ADU (95 %), not ncu's "uniform" pipe. pipes.interference's reference_check re-checks
// this on every run under ncu.
const std::vector<std::string>& counter_pipes_of_class(const std::string& cls) {
  static const std::map<std::string, std::vector<std::string>> m{
      {"INT", {"alu"}},           {"FP32", {"fma", "fmaheavy", "fmalite"}}, {"FMAheavy", {"fmaheavy"}},
      {"FP64", {"fp64", "shared"}}, {"SFU", {"xu"}},                         {"LSU", {"lsu"}},
      {"tensor", {"tensor", "shared"}}, {"conversion", {"xu"}},             {"uniform", {"uniform", "adu"}}};
  static const std::vector<std::string> none;
  const auto it = m.find(cls);
  return it == m.end() ? none : it->second;
}

std::string class_of_counter_pipe(const std::string& pipe) {
  for (const std::string& cls : pipe_classes()) {
    const auto& pipes = counter_pipes_of_class(cls);
    if (std::find(pipes.begin(), pipes.end(), pipe) != pipes.end()) return cls;
  }
  if (pipe == "fp16") return "FP32";
  return {};
}

std::string class_by_counters(const CounterPipe& c) {
  for (const std::string& cls : pipe_classes())
    if (pipe_methods_agree(cls, c)) return cls;
  return {};
}

bool pipe_methods_agree(const std::string& interference_class, const CounterPipe& c) {
  const auto& pipes = counter_pipes_of_class(interference_class);
  return std::any_of(c.busiest.begin(), c.busiest.end(),
                     [&](const std::string& p) { return std::find(pipes.begin(), pipes.end(), p) != pipes.end(); });
}

double coissue_gain(double x_rate_alone, double y_rate_alone, double x_rate_mixed, double y_rate_mixed) {
  require_rate(x_rate_alone, "x_rate_alone");
  require_rate(y_rate_alone, "y_rate_alone");
  require_rate(x_rate_mixed, "x_rate_mixed");
  require_rate(y_rate_mixed, "y_rate_mixed");
  return x_rate_mixed / x_rate_alone + y_rate_mixed / y_rate_alone;
}

}  // namespace gd
