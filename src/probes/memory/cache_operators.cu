// Which level serves a repeated access under each cache operator (ld .ca/.cg/.cs/.lu/.cv/.nc, L1 and
// L2 eviction hints, createpolicy; st .wb/.cg/.cs/.wt; prefetch), from latency, beside each variant's SASS.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/ptx.cuh"
#include "core/ptx_memory.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"

namespace gd {
namespace probe_cache_operators {

namespace cop = ptx::cacheop;
constexpr int kSigLines = 128;       // 16 KiB of lines: inside any L1, far inside L2
constexpr int kSigLineBytes = 128;
constexpr int kSigLoadSteps = 512;   // a repeated access: the cycle four times after a warming pass
constexpr int kSigUnroll = 8;
constexpr long long kPrefetchWaitCycles = 20000;  // lets the prefetches land before the first read

// Links the sampled lines into one cycle (plain stores, in a launch of its own).
__global__ void sig_link_kernel(char* base, const unsigned* order, int lines) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  for (int k = 0; k < lines; ++k)
    *reinterpret_cast<const void**>(base + std::size_t(order[k]) * kSigLineBytes) =
        base + std::size_t(order[(k + 1) % lines]) * kSigLineBytes;
}

// One thread. A load operator chases the cycle once to warm, then the timed chase repeats it with
// the same operator. A store operator rewrites every line's pointer with itself, a prefetch touches
// every line, and the timed chase is then the first read of each line with plain loads.
template <class Op>
__global__ void __launch_bounds__(32) signature_kernel(char* base, const unsigned* order, int lines, int steps,
                                                       RegionTiming* timing, const void** sink) {
  if (threadIdx.x != 0) return;
  const void* start = base + std::size_t(order[0]) * kSigLineBytes;
  const void* p = start;
  if constexpr (Op::kind == cop::Kind::Load) {
    for (int k = 0; k < lines; ++k) p = Op::load(p);
  } else if constexpr (Op::kind != cop::Kind::None) {
    for (int k = 0; k < lines; ++k)
      Op::store(base + std::size_t(order[k]) * kSigLineBytes, base + std::size_t(order[(k + 1) % lines]) * kSigLineBytes);
  }
  if constexpr (Op::kind == cop::Kind::Prefetch) {
    const long long t0 = clock64();
    while (clock64() - t0 < kPrefetchWaitCycles) {
    }
  }
  const std::uintptr_t warm_end = reinterpret_cast<std::uintptr_t>(p);
  p = start;
  RegionClock clock;
  clock.begin();
  for (int i = 0; i < steps / kSigUnroll; ++i) {
#pragma unroll
    for (int k = 0; k < kSigUnroll; ++k) {
      if constexpr (Op::kind == cop::Kind::Load) p = Op::load(p);
      else p = static_cast<const void*>(ptx::ld_ptr(static_cast<const void* const*>(p)));
    }
  }
  timing[0] = clock.end();
  sink[0] = reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(p) ^ warm_end);
}

// The catalog: each operator with the SASS it compiles to on sm_90a (what the timed region, or for
// stores and prefetches the whole kernel, must contain).
struct SigRow {
  const char* name;  // the struct, as in the demangled kernel name
  const char* tag;
  const char* sass;
};
template <class Op>
struct Sig;
#define GD_SIG_ROW(Op, tag, sass) \
  template <>                     \
  struct Sig<cop::Op> {           \
    static constexpr SigRow row{#Op, tag, sass}; \
  };
GD_SIG_ROW(LdDefault, "ld", "LDG.E.64")
GD_SIG_ROW(LdCa, "ld.ca", "LDG.E.64.STRONG.SM")
GD_SIG_ROW(LdCg, "ld.cg", "LDG.E.64.STRONG.GPU")
GD_SIG_ROW(LdCs, "ld.cs", "LDG.E.EF.64")
GD_SIG_ROW(LdLu, "ld.lu", "LDG.E.LU.64")
GD_SIG_ROW(LdCv, "ld.cv", "LDG.E.64.STRONG.SYS")
GD_SIG_ROW(LdNc, "ld.nc", "LDG.E.64.CONSTANT")
GD_SIG_ROW(LdL1NoAllocate, "ld.L1::no_allocate", "LDG.E.NA.64")
GD_SIG_ROW(LdL1EvictLast, "ld.L1::evict_last", "LDG.E.EL.64")
GD_SIG_ROW(LdL1EvictFirst, "ld.L1::evict_first", "LDG.E.EF.64")
GD_SIG_ROW(LdPolicyEvictLast, "ld.L2::cache_hint(createpolicy evict_last)", "LDG.E.64")
GD_SIG_ROW(StWb, "st.wb", "STG.E.64.STRONG.SM")
GD_SIG_ROW(StCg, "st.cg", "STG.E.64.STRONG.GPU")
GD_SIG_ROW(StCs, "st.cs", "STG.E.EF.64")
GD_SIG_ROW(StWt, "st.wt", "STG.E.64.STRONG.SYS")
GD_SIG_ROW(PrefetchL1, "prefetch.L1", "CCTL.E.PF1")
GD_SIG_ROW(FirstTouch, "first_read", "LDG.E.64")
#undef GD_SIG_ROW

using AllSigOps = std::tuple<cop::LdDefault, cop::LdCa, cop::LdCg, cop::LdCs, cop::LdLu, cop::LdCv, cop::LdNc,
                             cop::LdL1NoAllocate, cop::LdL1EvictLast, cop::LdL1EvictFirst, cop::LdPolicyEvictLast,
                             cop::StWb, cop::StCg, cop::StCs, cop::StWt, cop::PrefetchL1, cop::FirstTouch>;

template <class F>
void for_each_sig(F&& f) {
  std::apply([&](auto... op) { (f(op), ...); }, AllSigOps{});
}

template <class Op>
void run_signature_for(ProbeContext& ctx) {
  std::mt19937 rng(std::random_device{}());
  std::vector<unsigned> order(kSigLines * 4);  // lines spread over 4x the set: no two adjacent
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), rng);
  order.resize(kSigLines);
  DeviceBuffer<char> lines(std::size_t(kSigLines) * 4 * kSigLineBytes);
  lines.fill_zero();
  DeviceBuffer<unsigned> order_dev(order.size());
  order_dev.from_host(order);
  DeviceBuffer<RegionTiming> timing(1);
  DeviceBuffer<const void*> sink(1);
  const int steps = Op::kind == cop::Kind::Load ? kSigLoadSteps : kSigLines;
  std::vector<RegionTiming> last;
  RepeatPolicy policy;
  policy.target_rel_ci = 0.01;
  const RepeatResult r = ctx.measure(
      [&] {
        // Relinked by another launch every sample, so no sample starts from the last one's L1.
        launch(ctx, sig_link_kernel, {1, 32}, lines.get(), order_dev.get(), kSigLines);
        launch(ctx, signature_kernel<Op>, {1, 32}, lines.get(), order_dev.get(), kSigLines, steps, timing.get(), sink.get());
        GD_CUDA_CHECK_LAUNCH();
        last = timing.to_host();
        return double(last[0].cycles) / steps;
      },
      policy);
  ctx.set_observed_sm_clock_mhz(clock_mhz(last));
  ctx.metric("latency/cycles", r.summary);
  ctx.metric("latency/ns", r.summary.median / ctx.observed_sm_clock_mhz() * 1e3);
  ctx.extra()["sass"] = Sig<Op>::row.sass;
  ctx.extra()["measures"] = Op::kind == cop::Kind::Load ? "a repeated load with this operator, after one warming pass"
                                                        : "the first plain read of each line after this operation";
}

void run_signature(ProbeContext& ctx) {
  const std::string tag = ctx.str_param("op");
  bool found = false;
  for_each_sig([&](auto op) {
    using Op = decltype(op);
    if (found || Sig<Op>::row.tag != tag) return;
    found = true;
    run_signature_for<Op>(ctx);
  });
  if (!found) throw Error("unknown cache operator '" + tag + "'");
}

// The table: each operator's latency named by the level it matches, against this run's own
// references (the plain load's repeat is L1, the .cg load's repeat is L2; past 1.5x L2: beyond).
void summarize_signature(SummaryContext& sc) {
  const auto cycles_of = [&](const std::string& tag) -> const Record* {
    const auto rs = sc.ok_records({{"op", tag}});
    return rs.empty() || rs[0]->metric("latency/cycles") == nullptr ? nullptr : rs[0];
  };
  const Record* l1 = cycles_of("ld");
  const Record* l2 = cycles_of("ld.cg");
  if (l1 == nullptr || l2 == nullptr) return;
  const double c1 = l1->metric("latency/cycles")->value(), c2 = l2->metric("latency/cycles")->value();
  nlohmann::json table = nlohmann::json::object();
  std::vector<const Record*> sources;
  int served_by_l1 = 0;
  for (const Record* r : sc.ok_records()) {
    const double c = r->metric("latency/cycles")->value();
    const std::string level = c <= std::sqrt(c1 * c2) ? "L1" : c <= 1.5 * c2 ? "L2" : "beyond L2";
    served_by_l1 += level == "L1";
    table[std::get<std::string>(*find_param(r->params, "op"))] = {
        {"cycles", c}, {"served_by", level}, {"sass", r->extra.value("sass", "")}, {"measures", r->extra.value("measures", "")}};
    sources.push_back(r);
  }
  Record& out = sc.derive({{"op", std::string("table")}}, sources);
  sc.add_metric(out, "signature/served_by_l1", single_value(served_by_l1));
  out.extra["table"] = table;
  out.extra["references_cycles"] = {{"L1", c1}, {"L2", c2}};
}

ProbeSpec signature_spec() {
  ProbeSpec s;
  s.id = "memory.cache_op";
  s.description = "latency signature of each cache operator and hint (which level serves a repeated access), with its SASS";
  std::vector<std::string> tags;
  for_each_sig([&](auto op) {
    using Op = decltype(op);
    const SigRow row = Sig<Op>::row;
    tags.push_back(row.tag);
    const std::string glob = std::string("*signature_kernel<gd::ptx::cacheop::") + row.name + ">*";
    // A plain LDG.E.64 pattern also matches every qualified form: those are forbidden for it.
    const std::vector<std::string> qualified = {"LDL", "STL", "LDG.E.64.STRONG", "LDG.E.64.CONSTANT", "LDG.E.EF",
                                                "LDG.E.NA", "LDG.E.EL", "LDG.E.LU"};
    if (Op::kind == cop::Kind::Load)
      s.sass.push_back(expect_sass(glob, SassRegion::Clocked, {{row.sass, kSigUnroll, -1}},
                                   std::string(row.sass) == "LDG.E.64" ? qualified : std::vector<std::string>{"LDL", "STL"}));
    else
      s.sass.push_back(expect_sass(glob, SassRegion::Whole, {{row.sass, 1, -1}, {"LDG.E.64", kSigUnroll, -1}}));
  });
  s.sass.push_back(expect_sass("*sig_link_kernel*", SassRegion::Whole, {{"STG.E.64", 1, -1}}));
  s.axes = {std::move(Axis::list("op", tags))
                .quick_list({std::string("ld"), std::string("ld.cg"), std::string("ld.cv"), std::string("st.wb")})};
  s.metrics = {{"latency/cycles", "cycles", "per dependent access (see extra.measures)"},
               {"latency/ns", "ns", "the same at the observed clock"},
               {"signature/served_by_l1", "count", "operators whose access is served by L1"}};
  // Each operator's load repeats after one warming pass, so ld.cg reads L2-resident lines.
  s.covers = {{"cache_ops.ld_global_cg.latency", "latency/cycles", {{"op", std::string("ld.cg")}}}};
  s.run = run_signature;
  s.summarize = summarize_signature;
  s.time_cap_s = 4;
  s.quick_time_cap_s = 1;
  return s;
}

GD_REGISTER_PROBE(signature_spec());

}  // namespace probe_cache_operators
}  // namespace gd
