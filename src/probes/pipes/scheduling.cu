// Warp scheduling: a dependent FFMA chain's cycles per iteration as warps per SM grow (where
// latency hiding starts), warp-to-scheduler binding by %warpid, single-warp issue rate, dual
// issue within one warp, and BAR.SYNC cost: how many warps a kernel needs, and where.
#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "../compute/alu_streams.cuh"
#include "analysis/fit.hpp"
#include "analysis/scheduler_sharing.hpp"
#include "core/registry.hpp"

namespace gd {
namespace probe_scheduling {

using alu_catalog::Ffma;
using alu_catalog::Lop3;

// Four significant digits, no trailing zeros: "4.062", "12".
std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// Schedulers (sub-cores) per SM: the rule pipes.sched.warp_binding checks on every run.
constexpr int kSchedulersPerSm = 4;

// --- dependent chain vs warps per SM (the catalog's FFMA stream kernel) ----------------------
void run_chain_warps(ProbeContext& ctx) {
  const int ilp = int(ctx.int_param("ilp"));
  const int warps = int(ctx.int_param("warps_per_sm"));
  const int bps = warps > 32 ? 2 : 1;
  if (warps % bps) ctx.skip("odd warp counts above one block are not split");
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.time_cap_s = 0.3;
  const auto r = alu_streams::measure_stream_rate<Ffma>(ctx, ilp, warps, 40000, policy, bps);
  ctx.set_observed_sm_clock_mhz(r.clock_mhz);
  ctx.metric("throughput/per_clk_per_sm", r.rate);
  // Each thread runs ilp chains: one iteration of a chain per warps * 32 * ilp results.
  ctx.metric("chain/cycles_per_iteration", warps * 32.0 * ilp / r.rate.median);
  ctx.metric("issue/instr_per_clk_per_sm", r.rate.median / 32);
}

void summarize_chain_warps(SummaryContext& sc) {
  for (std::int64_t ilp : {1, 8}) {
    std::vector<std::pair<double, const Record*>> pts;
    for (const Record* r : sc.ok_records({{"ilp", ilp}}))
      if (r->metric("chain/cycles_per_iteration") && r->metric("throughput/per_clk_per_sm"))
        pts.push_back({double(std::get<std::int64_t>(*find_param(r->params, "warps_per_sm"))), r});
    if (pts.empty()) continue;
    std::sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const double base = pts.front().second->metric("chain/cycles_per_iteration")->stats.median;
    std::vector<double> x, y;
    std::vector<const Record*> src;
    nlohmann::json curve = nlohmann::json::array();
    std::string curve_text;  // the seeds' form: "warps:cycles, ..."
    for (const auto& [w, r] : pts) {
      const double c = r->metric("chain/cycles_per_iteration")->stats.median;
      x.push_back(w);
      y.push_back(r->metric("throughput/per_clk_per_sm")->stats.median);
      src.push_back(r);
      curve.push_back({{"warps_per_sm", w}, {"cycles_per_iteration", c}});
      curve_text += (curve_text.empty() ? "" : ", ") + short_number(w) + ":" + short_number(c);
    }
    // The largest warp count before which every warp still ran at the single-warp pace.
    double hidden_up_to = pts.front().first, slower_from = 0;
    for (const auto& [w, r] : pts) {
      if (r->metric("chain/cycles_per_iteration")->stats.median > 1.1 * base) {
        slower_from = w;
        break;
      }
      hidden_up_to = w;
    }
    const Knee k = find_knee(x, y);
    Record& d = sc.derive({{"ilp", ilp}, {"warps_per_sm", std::string("summary")}}, src);
    sc.add_metric(d, "chain/flat_up_to_warps", single_value(hidden_up_to));
    if (slower_from > 0) sc.add_metric(d, "chain/slower_from_warps", single_value(slower_from));
    sc.add_metric(d, "chain/saturation_warps", single_value(k.x));
    sc.add_metric(d, "chain/single_warp_cycles", single_value(base));
    // A scheduler's peak: the SM's issue rate from the knee on (the median over those points, so
    // one noisy point does not set it), over its 4 schedulers (warpid mod 4: pipes.sched.warp_binding).
    std::vector<double> plateau;
    for (const auto& [w, r] : pts)
      if (w >= k.x)
        if (const Metric* m = r->metric("issue/instr_per_clk_per_sm")) plateau.push_back(m->stats.median);
    if (!plateau.empty())
      sc.add_metric(d, "issue/scheduler_peak_instr_per_clk", single_value(summarize(plateau).median / kSchedulersPerSm));
    d.extra["curve"] = curve;
    d.extra["curve_text"] = curve_text + " (warps per SM: cycles per iteration of one dependent chain)";
    d.extra["meaning"] = "flat_up_to_warps: each warp keeps its single-warp pace up to here (the latency is hidden "
                         "by the other schedulers and warps); saturation_warps: 95 % of the best rate";
  }
}

ProbeSpec chain_warps_spec() {
  ProbeSpec s;
  s.id = "pipes.sched.ffma_chain_warps";
  s.description = "dependent FFMA chains: cycles per iteration and rate as warps per SM grow (ilp 1 and 8)";
  s.axes = {std::move(Axis::list("ilp", {1, 8})).quick({1}),
            std::move(Axis::list("warps_per_sm", {1, 2, 3, 4, 5, 6, 8, 12, 16, 20, 24, 32, 48, 64})).quick({1, 4, 5, 16, 32})};
  for (int ilp : {1, 8})
    s.sass.push_back(expect_sass(std::string("*alu_stream_kernel<*::Ffma, ") + std::to_string(ilp) + ">*",
                                 SassRegion::Clocked, {{"FFMA", alu_streams::stream_steps_per_trip<Ffma>(ilp), -1}}));
  s.metrics = {{"throughput/per_clk_per_sm", "FFMA/clk/SM", "FFMA results per clock per SM"},
               {"chain/cycles_per_iteration", "cycles", "cycles per dependent FFMA of one chain"},
               {"issue/instr_per_clk_per_sm", "instr/clk/SM", "warp-instructions issued per clock per SM"},
               {"chain/flat_up_to_warps", "warps", "largest warp count keeping the single-warp pace (within 10 %)"},
               {"chain/saturation_warps", "warps", "fewest warps reaching 95 % of the best rate"},
               {"chain/single_warp_cycles", "cycles", "one warp's cycles per iteration"},
               {"chain/slower_from_warps", "warps", "first warp count past the single-warp pace (more than 10 % slower)"},
               {"issue/scheduler_peak_instr_per_clk", "instr/clk",
                "one scheduler's issue rate from the knee on: the SM's (median over those points) over its 4 schedulers"}};
  const Params summary{{"ilp", std::int64_t(1)}, {"warps_per_sm", std::string("summary")}};
  const Params summary8{{"ilp", std::int64_t(8)}, {"warps_per_sm", std::string("summary")}};
  s.covers = {{"scheduler.latency_hiding.warp_threshold", "chain/slower_from_warps", summary},
              {"scheduler.latency_hiding.best_warps_per_sm", "chain/saturation_warps", summary},
              {"scheduler.latency_hiding.warp_scaling", "extra.curve_text", summary},
              {"scheduler.issue.subcore_peak", "issue/scheduler_peak_instr_per_clk", summary8}};
  s.run = run_chain_warps;
  s.summarize = summarize_chain_warps;
  s.time_cap_s = 6;
  s.quick_time_cap_s = 2;
  return s;
}
GD_REGISTER_PROBE(chain_warps_spec());

// --- binding: which warps share a scheduler -----------------------------------------------------
// Each warp runs 4 independent FFMA chains, enough to fill its scheduler's issue slot alone: two
// warps on one scheduler each take twice as long. Records each warp's %warpid and cycles.
struct WarpRecord {
  RegionTiming t;
  unsigned warpid;
};
constexpr int kBindingTrips = 64;
constexpr int kBindingFfmaPerTrip = 256;  // per thread: 64 steps of 4 chains

__global__ void warp_binding_kernel(float* out, WarpRecord* rec, float a, float b, int trips) {
  float x[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) x[k] = a * float(threadIdx.x + k);
  __syncthreads();
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < trips; ++i) {
#pragma unroll
    for (int j = 0; j < kBindingFfmaPerTrip / 4; ++j) {
#pragma unroll
      for (int k = 0; k < 4; ++k) x[k] = ptx::ffma(x[k], a, b);
    }
  }
  const RegionTiming t = clock.end();
  unsigned wid;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(wid));
  const float sum = x[0] + x[1] + x[2] + x[3];
  if (sum == b) out[1] = sum;
  if (threadIdx.x % 32 == 0) rec[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = {t, wid};
  if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = sum;
}

void run_binding(ProbeContext& ctx) {
  const int warps = int(ctx.int_param("warps"));
  const DeviceInfo& d = ctx.device();
  if (warps * 32 > d.max_threads_per_block) ctx.skip("block larger than the device allows");
  std::mt19937 rng(std::random_device{}());
  const float a = std::uniform_real_distribution<float>(0.5f, 0.99f)(rng), b = 0.25f;
  DeviceBuffer<float> out(2);
  DeviceBuffer<WarpRecord> rec(std::size_t(d.sm_count) * warps);
  std::vector<WarpRecord> last;
  const auto sample = [&] {
    launch(ctx, warp_binding_kernel, {unsigned(d.sm_count), unsigned(warps * 32)}, out.get(), rec.get(), a, b, kBindingTrips);
    GD_CUDA_CHECK_LAUNCH();
    last = rec.to_host();
    // Per block: does "shares warpid mod 4 with another warp" predict the slow warps?
    int blocks_consistent = 0;
    for (int blk = 0; blk < d.sm_count; ++blk) {
      std::map<unsigned, int> per_sched;
      for (int w = 0; w < warps; ++w) ++per_sched[last[blk * warps + w].warpid % 4];
      long long lone = 0;  // the slowest warp alone on its scheduler
      for (int w = 0; w < warps; ++w) {
        const auto& r = last[blk * warps + w];
        if (per_sched[r.warpid % 4] == 1) lone = std::max(lone, r.t.cycles);
      }
      bool ok = true;
      for (int w = 0; w < warps; ++w) {
        const auto& r = last[blk * warps + w];
        const bool slow = double(r.t.cycles) > 1.5 * double(lone ? lone : r.t.cycles);
        if (lone && slow != (per_sched[r.warpid % 4] > 1)) ok = false;
      }
      blocks_consistent += ok;
    }
    return 100.0 * blocks_consistent / d.sm_count;
  };
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.time_cap_s = 0.3;
  const Summary s = ctx.measure(sample, policy).summary;
  ctx.metric("binding/blocks_consistent_percent", s);
  nlohmann::json block0 = nlohmann::json::array();
  for (int w = 0; w < warps; ++w) block0.push_back({{"warp", w}, {"warpid", last[w].warpid}, {"cycles", last[w].t.cycles}});
  ctx.extra()["block0"] = block0;
  ctx.extra()["rule_tested"] = "warps with equal %warpid mod 4 share a scheduler: those sharing one run slower than "
                               "1.5x the lone ones, and only those";
  std::vector<RegionTiming> all;
  for (const auto& r : last) all.push_back(r.t);
  ctx.set_observed_sm_clock_mhz(clock_mhz(all));
}

// Over every warp count: the binding (warpid mod 4 when every sample's blocks agreed with it),
// and from block 0's warps (stored per point), how a scheduler shares its issue slot between the
// warps bound to it. Each warp alone issues nearly every clock (4 independent FFMA chains), so a
// greedy scheduler would run one sharer at a lone warp's pace and finish it first; a round-robin
// one slows the sharers alike. Their cycles per instruction together, over one issue slot, bound
// what switching between warps costs.
void summarize_binding(SummaryContext& sc) {
  const auto points = sc.ok_records();
  std::vector<double> percents, fairness, over_lone, cpi;
  std::string at;
  for (const Record* r : points) {
    const Metric* m = r->metric("binding/blocks_consistent_percent");
    if (!m) continue;
    percents.push_back(m->stats.min);
    at += (at.empty() ? "" : ", ") + short_number(double(std::get<std::int64_t>(*find_param(r->params, "warps"))));
    std::vector<std::pair<unsigned, double>> block0;
    for (const auto& w : r->extra.value("block0", nlohmann::json::array()))
      block0.push_back({w.at("warpid").get<unsigned>(), w.at("cycles").get<double>()});
    if (const auto s = scheduler_sharing(block0, double(kBindingTrips) * kBindingFfmaPerTrip, kSchedulersPerSm)) {
      fairness.push_back(s->max_over_min);
      if (s->over_lone > 0) over_lone.push_back(s->over_lone);
      cpi.push_back(s->cycles_per_instr);
    }
  }
  if (percents.empty()) return;
  const double worst = *std::min_element(percents.begin(), percents.end());
  Record& d = sc.derive({{"warps", std::string("summary")}}, points);
  sc.add_metric(d, "binding/worst_consistent_percent", single_value(worst));
  d.extra["binding"] = (worst >= 100 ? std::string("warpid % 4: every block at ")
                                     : "not shown to be warpid % 4: " + short_number(worst) +
                                           " % of blocks at worst agreed, at ") +
                       at + " warps per block, in every sample";
  // The schedulers per SM, only where the warpid-mod-4 rule held in every block: with 2 or 8
  // schedulers other warps would share (warps 0 and 4 of 5 would not, or 0 and 2 would too).
  if (worst >= 100) {
    sc.add_metric(d, "binding/schedulers_per_sm", single_value(kSchedulersPerSm));
    // The driver's resident-warp limit per SM over those schedulers: the warps each can hold.
    if (sc.device().max_warps_per_sm > 0)
      sc.add_metric(d, "binding/max_warps_per_scheduler", single_value(double(sc.device().max_warps_per_sm) / kSchedulersPerSm));
  }
  if (fairness.empty()) return;
  const double unfair = *std::max_element(fairness.begin(), fairness.end());
  const double slowed = over_lone.empty() ? 0 : *std::min_element(over_lone.begin(), over_lone.end());
  sc.add_metric(d, "policy/sharers_max_over_min", single_value(unfair));
  sc.add_metric(d, "switch/extra_cycles_per_instr", single_value(summarize(cpi).median - 1));
  const bool fair = unfair <= 1.1 && slowed >= 1.5;
  d.extra["policy"] = (fair ? "round-robin: " : "not round-robin: ") + std::string("warps sharing a scheduler finish within x") +
                      short_number(unfair) + " of each other, each at x" + short_number(slowed) +
                      " or more a lone warp's time (block 0; a greedy scheduler would run one sharer at the lone pace)";
}

ProbeSpec binding_spec() {
  ProbeSpec s;
  s.id = "pipes.sched.warp_binding";
  s.description = "warp-to-scheduler binding: per-warp time of issue-bound FFMA warps against %warpid mod 4";
  s.axes = {std::move(Axis::list("warps", {5, 6, 8})).quick({5})};
  s.sass = {expect_sass("*warp_binding_kernel*", SassRegion::Clocked, {{"FFMA", kBindingFfmaPerTrip, -1}})};
  s.metrics = {{"binding/blocks_consistent_percent", "%", "blocks whose slow warps are exactly those sharing warpid mod 4"},
               {"binding/worst_consistent_percent", "%", "the lowest sample over every warp count"},
               {"binding/schedulers_per_sm", "count",
                "schedulers (sub-cores) per SM: the modulus of the binding rule, where every block agreed with it"},
               {"binding/max_warps_per_scheduler", "warps",
                "the driver's resident warps per SM over binding/schedulers_per_sm"},
               {"policy/sharers_max_over_min", "ratio",
                "block 0: cycles of the slowest warp sharing a scheduler over the fastest (1: the slot is shared fairly)"},
               {"switch/extra_cycles_per_instr", "cycles",
                "block 0: a shared scheduler's cycles per warp-instruction of its sharers, minus the one issue slot "
                "(median over warp counts): a bound on what switching between its warps costs"}};
  const Params summary{{"warps", std::string("summary")}};
  s.covers = {{"scheduler.subcore.binding", "extra.binding", summary},
              {"scheduler.policy", "extra.policy", summary},
              {"scheduler.warp_switch_cost", "switch/extra_cycles_per_instr", summary},
              {"topology.subcores_per_sm", "binding/schedulers_per_sm", summary},
              {"scheduler.max_warps_per_subcore", "binding/max_warps_per_scheduler", summary}};
  s.run = run_binding;
  s.summarize = summarize_binding;
  s.time_cap_s = 2;
  s.quick_time_cap_s = 1;
  return s;
}
GD_REGISTER_PROBE(binding_spec());

// --- dual issue: an FFMA and a LOP3 stream interleaved in one warp ------------------------------
// Mode: 1 FFMA only, 2 LOP3 only, 3 both (a template argument: a run-time mode would branch per step).
template <int Mode>
__global__ void dual_stream_kernel(float* out, RegionTiming* timing, const float* fx, const uint32_t* ix, float a,
                                   float b, uint32_t ia, uint32_t ib, int trips) {
  float f[4];
  uint32_t u[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    f[k] = fx[threadIdx.x % 32 * 4 + k];
    u[k] = ix[threadIdx.x % 32 * 4 + k];
  }
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < trips; ++i) {
#pragma unroll
    for (int j = 0; j < 32; ++j) {
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        if constexpr ((Mode & 1) != 0) f[k] = ptx::ffma(f[k], a, b);
        if constexpr ((Mode & 2) != 0) u[k] = ptx::lop3_xor3(u[k], ia, ib);
      }
    }
  }
  const RegionTiming t = clock.end();
  const float s = f[0] + f[1] + f[2] + f[3] + float(u[0] ^ u[1] ^ u[2] ^ u[3]);
  if (s == b || threadIdx.x == 0) out[threadIdx.x == 0 ? 0 : 1] = s;
  if (threadIdx.x == 0) timing[0] = t;
}

void run_dual_issue(ProbeContext& ctx) {
  std::mt19937 rng(std::random_device{}());
  std::vector<float> fx(128);
  std::vector<uint32_t> ix(128);
  for (auto& v : fx) v = std::uniform_real_distribution<float>(0.5f, 1)(rng);
  for (auto& v : ix) v = rng();
  DeviceBuffer<float> f(128), out(2);
  DeviceBuffer<uint32_t> i(128);
  f.from_host(fx);
  i.from_host(ix);
  DeviceBuffer<RegionTiming> timing(1);
  constexpr int kTrips = 256;
  std::vector<RegionTiming> all;
  const auto rate = [&](int mode) {
    const auto kernel = mode == 1 ? dual_stream_kernel<1> : mode == 2 ? dual_stream_kernel<2> : dual_stream_kernel<3>;
    launch(ctx, kernel, {1, 32}, out.get(), timing.get(), f.get(), i.get(), 0.75f, 0.125f, uint32_t(rng()),
           uint32_t(rng()), kTrips);
    GD_CUDA_CHECK_LAUNCH();
    const RegionTiming t = timing.to_host()[0];
    all.push_back(t);
    const double instr = double(kTrips) * 32 * 4 * ((mode & 1) + ((mode >> 1) & 1));
    return instr / double(t.cycles);
  };
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.time_cap_s = 0.3;
  const double ffma = ctx.measure([&] { return rate(1); }, policy).summary.median;
  const double lop3 = ctx.measure([&] { return rate(2); }, policy).summary.median;
  const double both = ctx.measure([&] { return rate(3); }, policy).summary.median;
  ctx.metric("issue/ffma_only_instr_per_clk", ffma);
  ctx.metric("issue/lop3_only_instr_per_clk", lop3);
  ctx.metric("issue/interleaved_instr_per_clk", both);
  ctx.extra()["dual_issue"] = both > 1.05 ? "yes: one warp issued more than one instruction per clock"
                                          : "no: one warp issues at most one instruction per clock";
  ctx.set_observed_sm_clock_mhz(clock_mhz(all));
}

ProbeSpec dual_issue_spec() {
  ProbeSpec s;
  s.id = "pipes.sched.dual_issue";
  s.description = "single-warp issue rate: FFMA alone, LOP3 alone, and both streams interleaved in one warp";
  s.sass = {expect_sass("*dual_stream_kernel<1>*", SassRegion::Clocked, {{"FFMA", 128, -1}}),
            expect_sass("*dual_stream_kernel<2>*", SassRegion::Clocked, {{"LOP3.LUT", 128, -1}}),
            expect_sass("*dual_stream_kernel<3>*", SassRegion::Clocked, {{"FFMA", 128, -1}, {"LOP3.LUT", 128, -1}})};
  s.metrics = {{"issue/ffma_only_instr_per_clk", "instr/clk", "one warp, 4 FFMA chains"},
               {"issue/lop3_only_instr_per_clk", "instr/clk", "one warp, 4 LOP3 chains"},
               {"issue/interleaved_instr_per_clk", "instr/clk", "one warp, both (above 1: dual issue)"}};
  s.covers = {{"scheduler.issue.width", "issue/interleaved_instr_per_clk", {}},
              {"scheduler.issue.single_warp", "issue/ffma_only_instr_per_clk", {}}};
  s.run = run_dual_issue;
  s.time_cap_s = 2;
  s.quick_time_cap_s = 1;
  return s;
}
GD_REGISTER_PROBE(dual_issue_spec());


// --- dispatch latency: from a clock read to an instruction's issue and to its first result ---
// Four shapes between two %clock64 reads, each one asm block: nothing (the clock pair), the op,
// the op and a volatile shared store of its result (the store cannot issue before the result
// exists, and ptxas keeps volatile stores between the clock reads; a dependent ALU consumer it
// re-associates and sinks out of the region), and the store alone. issue = op - nothing; first
// result = op+store - store: from the op's dispatch until a consumer can issue (the seed's
// "clock64 read to first IADD3 result"). One warp, the minimum over 16 trips of a warm loop; the
// SASS expectation pins what lies between the clock reads.
#define GD_DISPATCH_CLOCKED(Body) "{\n.reg .u64 t0, t1;\nmov.u64 t0, %%clock64;\n" Body "mov.u64 t1, %%clock64;\nsub.s64 %0, t1, t0;\n}"
#define GD_DISPATCH_OP(Tag, Name, Opcode, Constraint, CType, Op, Next)                                 \
  struct Tag {                                                                                      \
    using T = CType;                                                                                \
    static constexpr const char* name = Name;                                                       \
    static constexpr const char* tag = #Tag;                                                        \
    static constexpr const char* opcode = Opcode;                                                   \
    __device__ static T next(T x, T a) { return Next; }                                             \
    __device__ static long long cycles(int shape, T x, T a, T b, unsigned slot, T& y) {             \
      long long d = 0;                                                                              \
      if (shape == 0)                                                                               \
        asm volatile(GD_DISPATCH_CLOCKED("") : "=l"(d));                                            \
      else if (shape == 1)                                                                          \
        asm volatile(GD_DISPATCH_CLOCKED(Op)                                                        \
                     : "=l"(d), "=" Constraint(y) : Constraint(x), Constraint(a), Constraint(b), "r"(slot)); \
      else if (shape == 2)                                                                          \
        asm volatile(GD_DISPATCH_CLOCKED(Op "st.volatile.shared.b32 [%5], %1;\n")                   \
                     : "=l"(d), "=" Constraint(y) : Constraint(x), Constraint(a), Constraint(b), "r"(slot)); \
      else                                                                                          \
        asm volatile(GD_DISPATCH_CLOCKED("st.volatile.shared.b32 [%5], %2;\n")                      \
                     : "=l"(d), "=" Constraint(y) : Constraint(x), Constraint(a), Constraint(b), "r"(slot)); \
      return d;                                                                                     \
    }                                                                                               \
  }
// clang-format off
// Two adds of three inputs: ptxas fuses them into one IADD3 (one add.u32 alone it emits as IMAD.IADD
// or VIADD). Next: the loop's update of x, an operation ptxas cannot share with the op's.
GD_DISPATCH_OP(DispatchIadd3, "iadd3", "IADD3", "r", uint32_t, "add.u32 %1, %2, %3;\nadd.u32 %1, %1, %4;\n", x ^ 0x9e3779b9u);
GD_DISPATCH_OP(DispatchFfma, "ffma", "FFMA", "f", float, "fma.rn.f32 %1, %2, %3, %4;\n", x + a);
GD_DISPATCH_OP(DispatchEx2, "mufu_ex2", "MUFU.EX2", "f", float, "ex2.approx.ftz.f32 %1, %2;\n", x + a);
// clang-format on
#undef GD_DISPATCH_OP
#undef GD_DISPATCH_CLOCKED
using DispatchOps = std::tuple<DispatchIadd3, DispatchFfma, DispatchEx2>;
constexpr int kDispatchTrips = 16;

template <class Op, int Shape>
__global__ void dispatch_kernel(long long* cycles, typename Op::T* sink, typename Op::T x, typename Op::T a,
                                typename Op::T b) {
  __shared__ uint32_t slots[32];
  const auto slot = static_cast<unsigned>(__cvta_generic_to_shared(&slots[threadIdx.x % 32]));
  long long best = 1LL << 62;
  typename Op::T y{}, keep{};
  // x and a per lane: ptxas would otherwise run the op on the uniform datapath (UIADD3) or
  // pre-add the uniform a + b and emit a two-input VIADD.
  x = x + static_cast<typename Op::T>(threadIdx.x % 32);
  a = a + static_cast<typename Op::T>(threadIdx.x % 2);
#pragma unroll 1
  for (int i = 0; i < kDispatchTrips; ++i) {
    best = min(best, Op::cycles(Shape, x, a, b, slot, y));
    keep = keep + y;
    x = Op::next(x, a);  // each trip's op reads a new value: nothing is hoisted
  }
  if (threadIdx.x == 0) {
    cycles[0] = best;
    sink[0] = keep + static_cast<typename Op::T>(slots[1] & 1u);
  }
}

template <class Op>
void run_dispatch_op(ProbeContext& ctx) {
  using T = typename Op::T;
  DeviceBuffer<long long> cycles(1);
  DeviceBuffer<T> sink(1);
  const auto shape_cycles = [&](auto kernel) {
    return ctx.measure([&] {
      launch(ctx, kernel, {1, 32}, cycles.get(), sink.get(), T(1), T(1) / T(3), T(2));
      GD_CUDA_CHECK_LAUNCH();
      return double(cycles.to_host()[0]);
    }).summary;
  };
  const Summary none = shape_cycles(dispatch_kernel<Op, 0>);
  const Summary op = shape_cycles(dispatch_kernel<Op, 1>);
  const Summary op_store = shape_cycles(dispatch_kernel<Op, 2>);
  const Summary store = shape_cycles(dispatch_kernel<Op, 3>);
  ctx.metric("dispatch/clock_pair_cycles", none);
  ctx.metric("dispatch/issue_cycles", op.median - none.median);
  ctx.metric("dispatch/first_result_cycles", op_store.median - store.median);
  ctx.extra()["raw_cycles"] = {{"clock_pair", none.median},
                               {"op", op.median},
                               {"op_and_store_of_its_result", op_store.median},
                               {"store_alone", store.median}};
}

void run_dispatch(ProbeContext& ctx) {
  const std::string op = ctx.str_param("op");
  bool ran = false;
  [&]<class... O>(std::tuple<O...>*) {
    ((op == O::name ? (run_dispatch_op<O>(ctx), ran = true) : false), ...);
  }(static_cast<DispatchOps*>(nullptr));
  if (!ran) throw Error("pipes.sched.dispatch: no op named '" + op + "'");
}

ProbeSpec dispatch_spec() {
  ProbeSpec s;
  s.id = "pipes.sched.dispatch";
  s.description = "dispatch latency: cycles from a %clock64 read to one instruction's issue and to its first dependent result";
  std::vector<std::string> ops;
  // Between the clock reads: 0 nothing; 1 the op; 2 the op and the store; 3 the store.
  [&]<class... O>(std::tuple<O...>*) {
    (ops.push_back(O::name), ...);
    const auto glob = [](const char* tag, int shape) {
      return std::string("*dispatch_kernel<*::") + tag + ", " + std::to_string(shape) + ">*";
    };
    ((s.sass.push_back(expect_sass(glob(O::tag, 0), SassRegion::Clocked, {{O::opcode, 0, 0}, {"STS", 0, 0}})),
      s.sass.push_back(expect_sass(glob(O::tag, 1), SassRegion::Clocked, {{O::opcode, 1, 1}, {"STS", 0, 0}})),
      s.sass.push_back(expect_sass(glob(O::tag, 2), SassRegion::Clocked, {{O::opcode, 1, 1}, {"STS", 1, 1}})),
      s.sass.push_back(expect_sass(glob(O::tag, 3), SassRegion::Clocked, {{O::opcode, 0, 0}, {"STS", 1, 1}}))),
     ...);
  }(static_cast<DispatchOps*>(nullptr));
  s.axes = {Axis::list("op", ops)};
  s.metrics = {{"dispatch/clock_pair_cycles", "cycles", "two back-to-back %clock64 reads"},
               {"dispatch/issue_cycles", "cycles", "one independent instruction between the reads, over the pair alone"},
               {"dispatch/first_result_cycles", "cycles",
                "the op and a shared store of its result between the reads, over the store alone: from the op's "
                "dispatch until a consumer of its result can issue"}};
  s.run = run_dispatch;
  s.time_cap_s = 2;
  s.quick_time_cap_s = 1;
  s.covers = {{"scheduler.dispatch_latency", "dispatch/first_result_cycles", {{"op", "iadd3"}}}};
  return s;
}
GD_REGISTER_PROBE(dispatch_spec());

// --- BAR.SYNC cost against the number of warps it synchronizes ---------------------------------
__global__ void bar_sync_kernel(RegionTiming* timing, int trips) {
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < trips; ++i) {
#pragma unroll
    for (int j = 0; j < 32; ++j) __syncthreads();
  }
  const RegionTiming t = clock.end();
  if (threadIdx.x == 0) timing[blockIdx.x] = t;
}

void run_barrier(ProbeContext& ctx) {
  const int warps = int(ctx.int_param("warps"));
  if (warps * 32 > ctx.device().max_threads_per_block) ctx.skip("block larger than the device allows");
  DeviceBuffer<RegionTiming> timing(1);
  std::vector<RegionTiming> all;
  const auto cost = [&](int trips) {
    launch(ctx, bar_sync_kernel, {1, unsigned(warps * 32)}, timing.get(), trips);
    GD_CUDA_CHECK_LAUNCH();
    const RegionTiming t = timing.to_host()[0];
    all.push_back(t);
    return t;
  };
  // The slope over two trip counts: clock reads and loop entry fall out.
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.time_cap_s = 0.3;
  const Summary s = ctx.measure([&] {
    const double c1 = double(cost(16).cycles), c2 = double(cost(48).cycles);
    return (c2 - c1) / (32.0 * 32);
  }, policy).summary;
  ctx.metric("barrier/cycles", s);
  ctx.set_observed_sm_clock_mhz(clock_mhz(all));
}

ProbeSpec barrier_spec() {
  ProbeSpec s;
  s.id = "pipes.sched.bar_sync";
  s.description = "BAR.SYNC (__syncthreads) cycles per barrier for 1 to 32 warps in the block";
  s.axes = {std::move(Axis::list("warps", {1, 2, 4, 8, 16, 32})).quick({1, 32})};
  s.sass = {expect_sass("*bar_sync_kernel*", SassRegion::Clocked, {{"BAR.SYNC", 32, -1}})};
  s.metrics = {{"barrier/cycles", "cycles", "per barrier, slope over loop trips"}};
  s.run = run_barrier;
  s.time_cap_s = 2;
  s.quick_time_cap_s = 1;
  return s;
}
GD_REGISTER_PROBE(barrier_spec());

}  // namespace probe_scheduling
}  // namespace gd
