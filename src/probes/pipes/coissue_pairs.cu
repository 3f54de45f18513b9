// Co-issue of the pairs the matrix (interference.cu) does not hold: memory (an LDG chase) and the
// seeds' V-pipe (VIADD.16x2, as throughput.simd.vpipe_vs_iadd3 takes it) each beside INT, FP32,
// FP64, SFU and tensor work, and beside each other; FMNMX, the seeds' other V-pipe instruction,
// beside INT; and what ALU work interleaved with mma.sync in the same warp costs the tensor chain.
// Which work overlaps for free, for the pairs a kernel author mixes.
#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/coissue.hpp"
#include "analysis/vpipe.hpp"
#include "core/registry.hpp"
#include "pipe_rows.cuh"
#include "pair_runner.cuh"

namespace gd {
namespace probe_coissue_pairs {

using namespace pipe_pairs;
using alu_catalog::Dfma;
using alu_catalog::Ffma;
using alu_catalog::Fmnmx;
using alu_catalog::HmmaF16;
using alu_catalog::Iadd3;
using alu_catalog::MufuEx2;
using alu_catalog::Vadd2;
constexpr double kTargetCycles = 30000;

// X and Y each on half the warps, in groups of four as in alu_streams::alu_pair_kernel (so the
// PairRunner reads them apart): X's region opens after the marker, which the verifier counts.
template <class X, class Y>
__global__ void pair_of_kernel(RegionTiming* timing, PairSide xs, PairSide ys, int) {
  const int w = threadIdx.x / 32;
  const bool y_side = (w / 4) % 2 != 0;
  const int index = (w / 8) * 4 + w % 4;
  const bool first = blockIdx.x == 0 && index == 0 && threadIdx.x % 32 == 0;
  RegionTiming t{};
  if (!y_side && index < xs.active) t = alu_streams::pair_side<X, true>(xs, first);
  else if (y_side && index < ys.active) t = alu_streams::pair_side<Y>(ys, first);
  if (threadIdx.x % 32 == 0) timing[blockIdx.x * (blockDim.x / 32) + w] = t;
}

// The seeds' class of each row (their INT is IADD3, FP32 FFMA, FP64 DFMA, SFU MUFU, TC HMMA,
// MEM LDG; V-pipe VIADD.16x2).
template <class Op>
constexpr const char* class_of() {
  if constexpr (std::is_same_v<Op, LdgChase>) return "MEM";
  else if constexpr (std::is_same_v<Op, Vadd2>) return "V-pipe";
  else if constexpr (std::is_same_v<Op, Fmnmx>) return "FMNMX";
  else if constexpr (std::is_same_v<Op, Iadd3>) return "INT";
  else if constexpr (std::is_same_v<Op, Ffma>) return "FP32";
  else if constexpr (std::is_same_v<Op, Dfma>) return "FP64";
  else if constexpr (std::is_same_v<Op, MufuEx2>) return "SFU";
  else return "TC";
}

// The pairs, with the seed item each answers.
template <class X, class Y>
struct Pair {
  using A = X;
  using B = Y;
};
using Pairs = std::tuple<Pair<LdgChase, Iadd3>, Pair<LdgChase, Ffma>, Pair<LdgChase, Dfma>, Pair<LdgChase, MufuEx2>,
                         Pair<LdgChase, HmmaF16>, Pair<LdgChase, Vadd2>, Pair<Vadd2, Iadd3>, Pair<Vadd2, Ffma>,
                         Pair<Vadd2, Dfma>, Pair<Vadd2, MufuEx2>, Pair<Vadd2, HmmaF16>, Pair<Fmnmx, Iadd3>>;
// The seed item of each pair, in Pairs order ("": no item of its own; FMNMX+INT feeds the V-pipe
// backend verdict).
constexpr const char* kPairItems[] = {"int_mem",    "fp32_mem",   "fp64_mem",   "sfu_mem",   "mem_tc",   "mem_vpipe",
                                      "int_vpipe", "fp32_vpipe", "fp64_vpipe", "sfu_vpipe", "tc_vpipe", ""};
static_assert(std::size(kPairItems) == std::tuple_size_v<Pairs>);

template <class P>
std::string pair_name() {
  return std::string(class_of<typename P::A>()) + "+" + class_of<typename P::B>();
}

// One pair both ways: each side's rate beside the other (which outlasts it) over alone, and the
// verdicts judge_interference gives each side (for whether the two share a pipe).
struct PairResult {
  double gain = 0;  // x beside y over x alone + y beside x over y alone: 2 full overlap, 1 taking turns
  InterferenceVerdict x_beside_y, y_beside_x;
};

template <class P>
PairResult measure_pair(ProbeContext& ctx, std::vector<RegionTiming>& timings) {
  alu_catalog::Rng rng(std::random_device{}());
  const Side x = make_side<typename P::A>(ctx, rng), y = make_side<typename P::B>(ctx, rng);
  PairRunner pr(ctx, pair_of_kernel<typename P::A, typename P::B>);
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.time_cap_s = 0.2;
  const int x_trips = trips_for(pr.run(x, 2, kSideWarps, nullptr, 0, 0, 0).x_cycles_per_step, x, kTargetCycles);
  const int y_trips = trips_for(pr.run(x, 0, 0, &y, 2, kSideWarps, 0).y_cycles_per_step, y, kTargetCycles);
  const auto median = [&](auto f) { return ctx.measure(f, policy).summary.median; };
  const double x_alone = median([&] { return pr.run(x, x_trips, kSideWarps, nullptr, 0, 0, 0).x; });
  const double y_alone = median([&] { return pr.run(x, 0, 0, &y, y_trips, kSideWarps, 0).y; });
  const double x_beside = median([&] { return pr.run(x, x_trips, kSideWarps, &y, 2 * y_trips, kSideWarps, 0).x; });
  const double y_beside = median([&] { return pr.run(x, 2 * x_trips, kSideWarps, &y, y_trips, kSideWarps, 0).y; });
  timings.insert(timings.end(), pr.timings().begin(), pr.timings().end());
  PairResult r;
  r.x_beside_y = judge_interference({issue_rate(x_alone, x), issue_rate(y_alone, y), issue_rate(x_beside, x)});
  r.y_beside_x = judge_interference({issue_rate(y_alone, y), issue_rate(x_alone, x), issue_rate(y_beside, y)});
  r.gain = x_beside / x_alone + y_beside / y_alone;
  return r;
}

nlohmann::json verdict_json(const InterferenceVerdict& v) {
  return {{"ratio", v.ratio}, {"decisive", v.decisive}, {"same_pipe_score", v.same_pipe_score}};
}

void run_pairs(ProbeContext& ctx) {
  std::vector<RegionTiming> timings;
  nlohmann::json detail = nlohmann::json::object();
  std::vector<VpipeBesideInt> beside_int;
  [&]<class... P>(std::tuple<P...>*) {
    ([&] {
      const PairResult r = measure_pair<P>(ctx, timings);
      const std::string name = pair_name<P>();
      ctx.metric("coissue/" + name, r.gain);
      detail[name] = {{"gain", r.gain},
                      {std::string(class_of<typename P::A>()) + "_beside", verdict_json(r.x_beside_y)},
                      {std::string(class_of<typename P::B>()) + "_beside", verdict_json(r.y_beside_x)}};
      // Both directions decisive and separate: confirmed; either one shared: shared (coissue_pairs).
      const std::string a = class_of<typename P::A>(), b = class_of<typename P::B>();
      const CoissuePairs verdict = coissue_pairs({a, b}, {{a, {{b, r.x_beside_y}}}, {b, {{a, r.y_beside_x}}}});
      const char* kind = !verdict.confirmed.empty() ? "confirmed" : !verdict.shared.empty() ? "shared" : "undecided";
      detail[name]["verdict"] = kind;
      if constexpr (std::is_same_v<P, Pair<Vadd2, Iadd3>> || std::is_same_v<P, Pair<Fmnmx, Iadd3>>)
        beside_int.push_back({a == "V-pipe" ? "VIADD.16x2" : a, kind, r.gain});
    }(), ...);
  }(static_cast<Pairs*>(nullptr));
  ctx.extra()["pairs"] = detail;
  if (const std::string v = vpipe_backend_text(beside_int); !v.empty()) ctx.extra()["vpipe_backend"] = v;
  else ctx.extra()["vpipe_backend_undetermined"] = "a V-pipe instruction's pair with IADD3 was undecided";
  ctx.extra()["meaning"] =
      "coissue/A+B: A's rate beside B over alone plus B's beside A over alone (2: the two overlap fully, 1: they take "
      "turns). MEM is an L1-resident LDG.E.64 chase, V-pipe VIADD.16x2, INT IADD3, FP32 FFMA, FP64 DFMA, SFU "
      "MUFU.EX2, TC HMMA.1688.F16; 16 warps per side per SM, 4 chains each. Which pipe each row runs on is "
      "pipes.interference.<row>'s answer";
  ctx.set_observed_sm_clock_mhz(clock_mhz(timings));
}

std::vector<MetricSpec> pair_metrics() {
  std::vector<MetricSpec> m;
  [&]<class... P>(std::tuple<P...>*) {
    (m.push_back({"coissue/" + pair_name<P>(), "ratio",
                  "each stream's rate beside the other over alone, summed (2: full co-issue, 1: taking turns)"}),
     ...);
  }(static_cast<Pairs*>(nullptr));
  return m;
}

std::vector<SeedCover> pair_covers() {
  std::vector<SeedCover> out;
  int i = 0;
  [&]<class... P>(std::tuple<P...>*) {
    ([&] {
      if (*kPairItems[i] != 0) out.push_back({std::string("pipes.coissue.") + kPairItems[i], "coissue/" + pair_name<P>(), {}});
      ++i;
    }(), ...);
  }(static_cast<Pairs*>(nullptr));
  out.push_back({"pipes.vpipe.independent_backend", "extra.vpipe_backend", {}});
  return out;
}

// X's chain in its marked region and Y's opcodes anywhere in the kernel (Y's rows never share an
// opcode with X's, so the whole-kernel count is Y's).
template <class P>
std::vector<SassExpectation> pair_sass() {
  using X = typename P::A;
  using Y = typename P::B;
  const std::string kernel =
      std::string("*pair_of_kernel<*::") + X::tag + ", *::" + Y::tag + ">*";
  return {alu_catalog::chain_sass<X>(kernel, alu_streams::pair_steps_per_trip<X>(), SassRegion::Marked),
          alu_catalog::chain_sass<Y>(kernel, alu_streams::pair_steps_per_trip<Y>(), SassRegion::Whole)};
}

ProbeSpec pairs_spec() {
  ProbeSpec s;
  s.id = "pipes.coissue.memory_vpipe";
  s.description = "co-issue of LDG (memory) and VIADD.16x2 (V-pipe) with INT, FP32, FP64, SFU and tensor streams, "
                  "and of FMNMX with INT";
  [&]<class... P>(std::tuple<P...>*) {
    ([&] {
      for (SassExpectation& e : pair_sass<P>()) s.sass.push_back(std::move(e));
    }(), ...);
  }(static_cast<Pairs*>(nullptr));
  s.needs.min_cc = Vadd2::min_cc;  // VIADD.16x2 exists from sm_90
  s.metrics = pair_metrics();
  s.covers = pair_covers();
  s.run = run_pairs;
  s.time_cap_s = 12;
  s.quick_time_cap_s = 6;
  return s;
}
GD_REGISTER_PROBE(pairs_spec());

// --- ALU work in the same warp as a mma.sync chain ----------------------------------------------
// Each warp runs Ilp independent HMMA chains and, after every HMMA, one step of each of N
// independent ALU chains; one warp per scheduler (4 per SM). The HMMA's cycles with the ALU work
// over without: what interleaved integer or FP32 work costs the tensor pipe's issue.
constexpr int kMmaUnroll = 8;
constexpr int kMmaWarps = 4;

template <int Ilp, class Alu, int N>
__global__ void mma_interleave_kernel(RegionTiming* timing, unsigned long long* out, typename Alu::T* alu_out,
                                      const unsigned long long* x0, unsigned long long a, unsigned long long b,
                                      const typename Alu::T* y0, typename Alu::T ya, typename Alu::T yb, int trips) {
  using T = typename Alu::T;
  unsigned long long x[Ilp];
  alu_streams::load_streams<HmmaF16, Ilp>(x, x0);
  T y[N > 0 ? N : 1];
  if constexpr (N > 0) alu_streams::load_streams<Alu, N>(y, y0);
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < trips; ++i) {
#pragma unroll
    for (int u = 0; u < kMmaUnroll; ++u) {
#pragma unroll
      for (int k = 0; k < Ilp; ++k) {
        x[k] = HmmaF16::step(x[k], a, b);
#pragma unroll
        for (int j = 0; j < N; ++j) y[j] = Alu::step(y[j], ya, yb);
      }
    }
  }
  const RegionTiming t = clock.end();
  alu_streams::store_streams<HmmaF16, Ilp>(x, out, b);
  if constexpr (N > 0) alu_streams::store_streams<Alu, N>(y, alu_out, yb);
  if (threadIdx.x % 32 == 0) timing[blockIdx.x * kMmaWarps + threadIdx.x / 32] = t;
}

// One configuration's median cycles per HMMA (per warp, over every warp of the launch), checked
// against the host reference on its first launch.
template <int Ilp, class Alu, int N>
double cycles_per_mma(ProbeContext& ctx, std::vector<RegionTiming>& all) {
  using T = typename Alu::T;
  alu_catalog::Rng rng(std::random_device{}());
  std::vector<unsigned long long> x0;
  const auto [a, b] = alu_streams::stream_inputs<HmmaF16>(rng, Ilp, x0);
  std::vector<T> y0;
  const auto [ya, yb] = alu_streams::stream_inputs<Alu>(rng, std::max(N, 1), y0);
  DeviceBuffer<unsigned long long> in(x0.size()), out(Ilp + 1);
  DeviceBuffer<T> yin(y0.size()), yout(std::max(N, 1) + 1);
  in.from_host(x0);
  yin.from_host(y0);
  const int blocks = ctx.device().sm_count;
  DeviceBuffer<RegionTiming> timing(std::size_t(blocks) * kMmaWarps);
  const auto run = [&](int trips) {
    launch(ctx, mma_interleave_kernel<Ilp, Alu, N>, {unsigned(blocks), unsigned(kMmaWarps * 32)}, timing.get(), out.get(),
           yout.get(), in.get(), a, b, yin.get(), ya, yb, trips);
    GD_CUDA_CHECK_LAUNCH();
    const auto t = timing.to_host();
    std::vector<double> per;
    for (const RegionTiming& r : t) per.push_back(double(r.cycles) / (double(trips) * kMmaUnroll * Ilp));
    all.insert(all.end(), t.begin(), t.end());
    return summarize(per).median;
  };
  const int trips = std::clamp(int(kTargetCycles / std::max(1.0, run(2) * kMmaUnroll * Ilp)), 2, 1 << 20);
  bool checked = false;
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.time_cap_s = 0.2;
  return ctx.measure([&] {
              const double c = run(trips);
              if (!checked) {
                const std::int64_t steps = std::int64_t(trips) * kMmaUnroll;
                std::string why = alu_streams::chain_mismatch<HmmaF16>(out.to_host()[0], x0[0], a, b, steps);
                if (N > 0 && why.empty())
                  why = alu_streams::chain_mismatch<Alu>(yout.to_host()[0], y0[0], ya, yb, steps * Ilp);
                if (!why.empty()) throw Error("pipes.coissue.mma_interleave: " + why);
                checked = true;
              }
              return c;
            },
            policy)
      .summary.median;
}

// The seeds' two mixes: 8 IADD3 and 4 FFMA per mma.sync.
constexpr int kIadd3PerMma = 8;
constexpr int kFfmaPerMma = 4;

template <int Ilp>
void run_interleave_at(ProbeContext& ctx) {
  std::vector<RegionTiming> all;
  const double alone = cycles_per_mma<Ilp, Iadd3, 0>(ctx, all);
  const double with_iadd3 = cycles_per_mma<Ilp, Iadd3, kIadd3PerMma>(ctx, all);
  const double with_ffma = cycles_per_mma<Ilp, Ffma, kFfmaPerMma>(ctx, all);
  ctx.metric("mma/cycles", alone);
  ctx.metric("mma/cycles_with_iadd3x8", with_iadd3);
  ctx.metric("mma/cycles_with_ffmax4", with_ffma);
  ctx.metric("mma/extra_cycles_iadd3x8", with_iadd3 - alone);
  ctx.metric("mma/extra_cycles_ffmax4", with_ffma - alone);
  ctx.extra()["issue_slots_note"] =
      "one warp per scheduler: an HMMA plus its ALU steps need 1 + N issue slots, so the extra cycles show whether "
      "the ALU work fits in the HMMA's shadow";
  ctx.set_observed_sm_clock_mhz(clock_mhz(all));
}

constexpr int kInterleaveIlps[] = {1, 4};

void run_interleave(ProbeContext& ctx) {
  const std::int64_t ilp = ctx.int_param("ilp");
  if (ilp == kInterleaveIlps[0]) run_interleave_at<kInterleaveIlps[0]>(ctx);
  else if (ilp == kInterleaveIlps[1]) run_interleave_at<kInterleaveIlps[1]>(ctx);
  else throw Error("pipes.coissue.mma_interleave: ilp must be 1 or 4; got " + std::to_string(ilp));
}

template <int Ilp, class Alu, int N>
SassExpectation interleave_sass() {
  const std::string kernel = "*mma_interleave_kernel<" + std::to_string(Ilp) + ", *::" + Alu::tag + ", " +
                             std::to_string(N) + ">*";
  SassExpectation e = alu_catalog::chain_sass<HmmaF16>(kernel, kMmaUnroll * Ilp);
  if constexpr (N > 0)
    for (OpcodeExpectation& o : alu_catalog::expected_opcodes<Alu>(kMmaUnroll * Ilp * N)) e.require.push_back(o);
  return e;
}

template <int Ilp>
void add_interleave_sass(std::vector<SassExpectation>& out) {
  out.push_back(interleave_sass<Ilp, Iadd3, 0>());
  out.push_back(interleave_sass<Ilp, Iadd3, kIadd3PerMma>());
  out.push_back(interleave_sass<Ilp, Ffma, kFfmaPerMma>());
}

ProbeSpec interleave_spec() {
  ProbeSpec s;
  s.id = "pipes.coissue.mma_interleave";
  s.description = "cycles per mma.sync (HMMA) with 8 IADD3 or 4 FFMA interleaved in the same warp, over without";
  s.axes = {Axis::list("ilp", std::vector<std::int64_t>(std::begin(kInterleaveIlps), std::end(kInterleaveIlps)))};
  add_interleave_sass<kInterleaveIlps[0]>(s.sass);
  add_interleave_sass<kInterleaveIlps[1]>(s.sass);
  s.metrics = {{"mma/cycles", "cycles", "per HMMA.1688.F16, per warp: Ilp chains, one warp per scheduler"},
               {"mma/cycles_with_iadd3x8", "cycles", "per HMMA with 8 independent IADD3 after each"},
               {"mma/cycles_with_ffmax4", "cycles", "per HMMA with 4 independent FFMA after each"},
               {"mma/extra_cycles_iadd3x8", "cycles", "what the 8 IADD3 add to each HMMA"},
               {"mma/extra_cycles_ffmax4", "cycles", "what the 4 FFMA add to each HMMA"}};
  // The seeds interleave into a tensor loop at its issue rate: our four chains per warp, not one.
  const Params at{{"ilp", std::int64_t(kInterleaveIlps[1])}};
  s.covers = {{"pipes.coissue.tc_with_iadd3", "mma/extra_cycles_iadd3x8", at},
              {"pipes.coissue.tc_with_ffma", "mma/extra_cycles_ffmax4", at}};
  s.run = run_interleave;
  s.time_cap_s = 4;
  s.quick_time_cap_s = 2;
  return s;
}
GD_REGISTER_PROBE(interleave_spec());

}  // namespace probe_coissue_pairs
}  // namespace gd
