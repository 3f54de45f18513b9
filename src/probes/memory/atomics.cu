// Global and shared atomics (add int/float/double/half2, min/max, exch, CAS, red, scopes): latency
// of one dependent atomic and GPU-wide throughput on distinct words vs one word; what counters and histograms cost.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/event_timing.hpp"
#include "core/launch.cuh"
#include "core/ptx.cuh"
#include "core/ptx_memory.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"

namespace gd {
namespace probe_atomics {

namespace atom = ptx::atomic;
constexpr int kAtomThreads = 256;
constexpr int kAtomUnroll = 4;
constexpr int kLatencySteps = 256;

template <bool Shared, class Op>
__device__ __forceinline__ typename Op::type apply(typename Op::type* g, unsigned s, typename Op::type v) {
  if constexpr (Shared) return Op::apply_shared(s, v);
  else return Op::apply_global(g, v);
}

// One thread: each atomic's operand is the value the previous one returned.
template <class Op, bool Shared>
__global__ void __launch_bounds__(kAtomThreads) atomic_latency_kernel(typename Op::type* g, int trips,
                                                                      typename Op::type* sink, RegionTiming* timing) {
  using T = typename Op::type;
  __shared__ T word[1];
  if (threadIdx.x != 0) return;
  word[0] = g[0];
  const unsigned s = ptx::shared_addr(word);
  T v = g[1];
  RegionClock clock;
  clock.begin();
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int k = 0; k < 8; ++k) v = apply<Shared, Op>(g, s, v);
  }
  const RegionTiming r = clock.end();
  timing[0] = r;
  sink[0] = v;
}

// Every thread issues kAtomUnroll independent atomics per trip: to its own words (distinct) or
// all to word 0 (same; per block for shared memory).
template <class Op, bool Shared>
__global__ void __launch_bounds__(kAtomThreads) atomic_throughput_kernel(typename Op::type* g, bool same, int trips,
                                                                         typename Op::type* sink, RegionTiming* timing) {
  using T = typename Op::type;
  __shared__ T words[kAtomThreads * kAtomUnroll];
  if constexpr (Shared) {
    for (int i = threadIdx.x; i < kAtomThreads * kAtomUnroll; i += blockDim.x) words[i] = T(0);
    __syncthreads();
  }
  BlockClock clock;
  clock.begin();
  const unsigned threads = Shared ? blockDim.x : gridDim.x * blockDim.x;
  const unsigned me = Shared ? threadIdx.x : blockIdx.x * blockDim.x + threadIdx.x;
  T acc = T(0);
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int k = 0; k < kAtomUnroll; ++k) {
      const unsigned i = same ? 0u : me + k * threads;
      const T old = apply<Shared, Op>(g + i, ptx::shared_addr(words + i), T(k + 1));
      if constexpr (Op::returns) acc = acc + old;
    }
  }
  clock.end(timing);
  if constexpr (Op::returns) {
    if (acc == T(7)) sink[0] = acc;  // keeps the returned values; practically never taken
  }
}

// The catalog: one row per atomic, with the SASS it must compile to on sm_90a per space ("" when
// it has no form in that space). On sm_90a shared-memory float adds have no single instruction:
// ptxas emits a compare-and-swap loop (ATOMS.CAST.SPIN), which is what their rows measure.
struct AtomRow {
  const char* name;  // the op's struct, as in the demangled kernel name
  const char* tag;
  const char* global_sass;
  const char* shared_sass;
  const char* type;
};

template <class Op>
struct Row;
#define GD_ATOM_ROW(Op, tag, g, s, type) \
  template <>                            \
  struct Row<atom::Op> {                 \
    static constexpr AtomRow row{#Op, tag, g, s, type}; \
  };
GD_ATOM_ROW(AddU32, "add_u32", "ATOMG.E.ADD.STRONG.GPU", "ATOMS.ADD", "int")
GD_ATOM_ROW(AddF32, "add_f32", "ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU", "ATOMS.CAST.SPIN", "float")
GD_ATOM_ROW(AddF64, "add_f64", "ATOMG.E.ADD.F64.RN.STRONG.GPU", "ATOMS.CAST.SPIN.64", "float")
GD_ATOM_ROW(AddF16x2, "add_f16x2", "ATOMG.E.ADD.F16x2.RN.STRONG.GPU", "ATOMS.CAST.SPIN", "float")
GD_ATOM_ROW(MinU32, "min_u32", "ATOMG.E.MIN.STRONG.GPU", "ATOMS.MIN", "int")
GD_ATOM_ROW(MaxS32, "max_s32", "ATOMG.E.MAX.S32.STRONG.GPU", "ATOMS.MAX.S32", "int")
GD_ATOM_ROW(ExchB32, "exch_b32", "ATOMG.E.EXCH.STRONG.GPU", "ATOMS.EXCH", "int")
GD_ATOM_ROW(CasB32, "cas_b32", "ATOMG.E.CAS.STRONG.GPU", "ATOMS.CAS", "int")
GD_ATOM_ROW(RedAddU32, "red_add_u32", "REDG.E.ADD.STRONG.GPU", "ATOMS.ADD", "int")
GD_ATOM_ROW(RedAddF32, "red_add_f32", "REDG.E.ADD.F32.FTZ.RN.STRONG.GPU", "ATOMS.CAST.SPIN", "float")
GD_ATOM_ROW(AddU32Cta, "add_u32_cta", "ATOMG.E.ADD.STRONG.SM", "", "int")
GD_ATOM_ROW(AddU32Sys, "add_u32_sys", "ATOMG.E.ADD.STRONG.SYS", "", "int")
#undef GD_ATOM_ROW

using AllOps = std::tuple<atom::AddU32, atom::AddF32, atom::AddF64, atom::AddF16x2, atom::MinU32, atom::MaxS32,
                          atom::ExchB32, atom::CasB32, atom::RedAddU32, atom::RedAddF32, atom::AddU32Cta, atom::AddU32Sys>;

template <class F>
void for_each_op(F&& f) {
  std::apply([&](auto... op) { (f(op), ...); }, AllOps{});
}

template <class Op, bool Shared>
void run_one(ProbeContext& ctx, const std::string& mode) {
  using T = typename Op::type;
  const DeviceInfo& d = ctx.device();
  if (mode == "latency") {
    if (!Op::returns) ctx.skip("a reduction returns nothing: no dependent chain, throughput only");
    DeviceBuffer<T> g(2), sink(1);
    g.fill_zero();
    DeviceBuffer<RegionTiming> timing(1);
    std::vector<RegionTiming> last;
    const RepeatResult r = ctx.measure([&] {
      launch(ctx, atomic_latency_kernel<Op, Shared>, {1, 32}, g.get(), kLatencySteps / 8, sink.get(), timing.get());
      GD_CUDA_CHECK_LAUNCH();
      last = timing.to_host();
      return double(last[0].cycles) / kLatencySteps;
    });
    ctx.set_observed_sm_clock_mhz(clock_mhz(last));
    ctx.metric("atomic/latency_cycles", r.summary);
    ctx.metric("atomic/latency_ns", r.summary.median / ctx.observed_sm_clock_mhz() * 1e3);
    return;
  }
  const bool same = mode == "same";
  const int blocks = d.sm_count * (d.max_warps_per_sm * 32 / kAtomThreads);
  // One word takes every atomic of the grid in turn: fewer trips keep a launch near a millisecond.
  const int trips = same && !Shared ? 1 : 32;
  const std::size_t words = Shared ? 1 : std::size_t(blocks) * kAtomThreads * kAtomUnroll;
  DeviceBuffer<T> g(words), sink(1);
  g.fill_zero();
  DeviceBuffer<RegionTiming> timing(blocks);
  const double ops = double(blocks) * kAtomThreads * kAtomUnroll * trips;
  const Summary gops = measure_event_timed(
      ctx,
      [&] { launch(ctx, atomic_throughput_kernel<Op, Shared>, {unsigned(blocks), kAtomThreads}, g.get(), same, trips,
                   sink.get(), timing.get()); },
      [&](double s) { return ops / s / 1e9; }, RepeatPolicy{}).summary;
  const double mhz = clock_mhz(timing.to_host());
  ctx.set_observed_sm_clock_mhz(mhz, "clock64 over %globaltimer, thread 0 of every block of the last launch");
  ctx.metric("atomic/gops", gops);
  ctx.metric("atomic/per_clk_per_sm", gops.median * 1e3 / mhz / d.sm_count);
  ctx.extra()["type"] = Row<Op>::row.type;
}

void run_atomic(ProbeContext& ctx) {
  const std::string tag = ctx.str_param("op"), space = ctx.str_param("space"), mode = ctx.str_param("mode");
  if (space != "global" && space != "shared") throw Error("space must be global or shared");
  if (mode != "latency" && mode != "distinct" && mode != "same") throw Error("mode must be latency, distinct or same");
  bool found = false;
  for_each_op([&](auto op) {
    using Op = decltype(op);
    if (Row<Op>::row.tag != tag) return;
    found = true;
    if (space == "shared") {
      if (std::string(Row<Op>::row.shared_sass).empty()) ctx.skip("no shared-memory form (shared memory is CTA-scoped)");
      run_one<Op, true>(ctx, mode);
    } else {
      run_one<Op, false>(ctx, mode);
    }
  });
  if (!found) throw Error("unknown atomic '" + tag + "'");
}

// Float against integer add (the SM_120 paper found float faster there): the ratio per space
// and mode, from the points that measured both.
void summarize_atomic(SummaryContext& sc) {
  for (const std::string space : {"global", "shared"})
    for (const std::string mode : {"latency", "distinct", "same"}) {
      const auto f = sc.ok_records({{"op", std::string("add_f32")}, {"space", space}, {"mode", mode}});
      const auto i = sc.ok_records({{"op", std::string("add_u32")}, {"space", space}, {"mode", mode}});
      if (f.empty() || i.empty()) continue;
      const std::string m = mode == "latency" ? "atomic/latency_cycles" : "atomic/gops";
      if (f[0]->metric(m) == nullptr || i[0]->metric(m) == nullptr) continue;
      Record& out = sc.derive({{"op", std::string("f32_over_u32")}, {"space", space}, {"mode", mode}}, {f[0], i[0]});
      sc.add_metric(out, "atomic/float_over_int", single_value(f[0]->metric(m)->value() / i[0]->metric(m)->value()));
      out.extra["metric"] = m;
    }
}

// Read-modify-write atomics (a value comes back) and reductions (RED, nothing comes back) are two
// probes: the reductions' SASS expectation is Hopper's REDG (sm_80 names it RED), so that probe
// needs sm_90 or later; the atomics' expectations hold from sm_80 on.
ProbeSpec atomic_spec(bool reductions) {
  ProbeSpec s;
  s.id = reductions ? "memory.atomic.red" : "memory.atomic.rmw";
  s.description = reductions
      ? "reductions (red.add u32/f32), global and shared: throughput on distinct words vs one word"
      : "atomics, global and shared: latency of a dependent chain, throughput on distinct words vs one word";
  if (reductions) s.needs.min_cc = 90;
  std::vector<std::string> tags;
  for_each_op([&](auto op) {
    using Op = decltype(op);
    if (Op::returns == reductions) return;
    const AtomRow row = Row<Op>::row;
    tags.push_back(row.tag);
    for (const bool shared : {false, true}) {
      const std::string sass = shared ? row.shared_sass : row.global_sass;
      if (sass.empty()) continue;
      const std::string tail = std::string("<gd::ptx::atomic::") + row.name + ", " + (shared ? "true" : "false") + ">*";
      if (Op::returns)
        s.sass.push_back(expect_sass("*atomic_latency_kernel" + tail, SassRegion::Clocked, {{sass, 8, -1}}));
      s.sass.push_back(expect_sass("*atomic_throughput_kernel" + tail, SassRegion::Whole, {{sass, kAtomUnroll, -1}}));
    }
  });
  Axis ops = Axis::list("op", tags);
  if (!reductions)
    ops.quick_values = {std::string("add_u32"), std::string("add_f32"), std::string("add_f64")};
  s.axes = {std::move(ops), Axis::list("space", std::vector<std::string>{"global", "shared"}),
            Axis::list("mode", reductions ? std::vector<std::string>{"distinct", "same"}
                                          : std::vector<std::string>{"latency", "distinct", "same"})};
  s.metrics = {{"atomic/latency_cycles", "cycles", "one atomic whose operand is the previous one's result (one thread)"},
               {"atomic/latency_ns", "ns", "the same at the observed clock"},
               {"atomic/gops", "Gop/s", "atomics per second over the whole GPU"},
               {"atomic/per_clk_per_sm", "op/clk/SM", "atomics per SM clock per SM"},
               {"atomic/float_over_int", "ratio", "add.f32 over add.u32 (latency or throughput)"}};
  const auto global_latency = [](const char* op) {
    return Params{{"mode", std::string("latency")}, {"op", std::string(op)}, {"space", std::string("global")}};
  };
  if (!reductions)
    s.covers = {{"atomics.global.add_f32", "atomic/latency_cycles", global_latency("add_f32")},
                {"atomics.global.add_u32", "atomic/latency_cycles", global_latency("add_u32")}};
  s.run = run_atomic;
  if (!reductions) s.summarize = summarize_atomic;
  s.time_cap_s = reductions ? 4 : 10;
  s.quick_time_cap_s = reductions ? 1 : 3;
  return s;
}

GD_REGISTER_PROBE(atomic_spec(false));
GD_REGISTER_PROBE(atomic_spec(true));

}  // namespace probe_atomics
}  // namespace gd
