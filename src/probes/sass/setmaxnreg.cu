// setmaxnreg: what a warp group's register increase and decrease cost (clock reads around each),
// and what moving registers from a producer warp group to consumer warp groups buys a
// warp-specialized kernel (FMA rate with and without it, spills, register counts), as CUTLASS does.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "analysis/control_issue.hpp"
#include "core/device_buffer.hpp"
#include "core/event_timing.hpp"
#include "core/launch.cuh"
#include "core/ptx_async.cuh"
#include "core/ptx_setmaxnreg.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "warp_specialized.cuh"

namespace gd {
namespace probe_setmaxnreg {

using namespace warp_specialized;

// ---------------------------------------------------------------------------------------------
// Cost. Three warp groups, one CTA, 168 registers a thread at launch (384 threads, one CTA per
// SM: ptxas pins the budget). Per trip: warp group 0 gives 128 registers back (168 -> 40), then
// groups 1 and 2 take them (168 -> 232) with the pool already holding them; then both return to
// 168; then groups 1-2 ask for 232 while group 0 waits kBlockDelay cycles before releasing, so the
// increase has to wait. Every op sits between two clock reads; so does nothing (the reads' cost).
constexpr int kCostThreads = 384, kLaunchRegs = 168, kLowRegs = 40, kHighRegs = 232;
constexpr long long kBlockDelay = 2000;
constexpr int kCostFields = 4;  // per warp and trip: empty pair, first op, second op, blocked inc

// Cycles of f() between two clock reads.
template <class F>
__device__ __forceinline__ long long clocked(F&& f) {
  const long long a = clock64();
  f();
  return clock64() - a;
}

__global__ void __launch_bounds__(kCostThreads, 1) setmaxnreg_cost_kernel(int trips, long long* out, RegionTiming* timing) {
#ifdef GD_HAS_SETMAXNREG
  const int wg = threadIdx.x / 128, warp = threadIdx.x / 32;
  const bool producer = wg == 0;
  RegionClock region;
  region.begin();
  for (int t = 0; t < trips; ++t) {
    const long long empty = clocked([] {});
    __syncthreads();
    long long first = 0, second = 0, blocked = 0;
    if (producer) first = clocked([] { ptx::setmaxnreg_dec<kLowRegs>(); });
    __syncthreads();  // the released registers are in the pool
    if (!producer) first = clocked([] { ptx::setmaxnreg_inc<kHighRegs>(); });
    __syncthreads();
    if (!producer) second = clocked([] { ptx::setmaxnreg_dec<kLaunchRegs>(); });
    __syncthreads();
    if (producer) second = clocked([] { ptx::setmaxnreg_inc<kLaunchRegs>(); });
    __syncthreads();
    if (producer) {
      const long long s = clock64();
      while (clock64() - s < kBlockDelay) {
      }
      ptx::setmaxnreg_dec<kLowRegs>();
    } else {
      blocked = clocked([] { ptx::setmaxnreg_inc<kHighRegs>(); });
    }
    __syncthreads();
    if (!producer) ptx::setmaxnreg_dec<kLaunchRegs>();
    __syncthreads();
    if (producer) ptx::setmaxnreg_inc<kLaunchRegs>();
    __syncthreads();
    if (threadIdx.x % 32 == 0) {
      long long* o = out + (std::size_t(t) * (kCostThreads / 32) + warp) * kCostFields;
      o[0] = empty;
      o[1] = first;
      o[2] = second;
      o[3] = blocked;
    }
  }
  const RegionTiming rt = region.end();
  if (threadIdx.x == 0) timing[0] = rt;
#endif
}

int launch_registers(const void* kernel) {
  cudaFuncAttributes a{};
  GD_CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
  return a.numRegs;
}

void require_setmaxnreg(ProbeContext& ctx) {
  if (!ctx.device().has(Feature::Setmaxnreg))
    ctx.skip("setmaxnreg needs arch-specific code for this chip (sm_90a or sm_100a); the loaded code is " +
             ctx.device().arch_code_loaded);
}

void run_setmaxnreg_cost(ProbeContext& ctx) {
  require_setmaxnreg(ctx);
  const auto trips = ctx.int_param("trips");
  if (trips < 2 || trips > 4096) throw UserError("trips must be in [2, 4096], not " + std::to_string(trips));
  // An increase the pool cannot satisfy waits forever: only launch when the 40 + 2 * 232 split
  // fits in what the CTA holds.
  const int regs = launch_registers(reinterpret_cast<const void*>(setmaxnreg_cost_kernel));
  if (regs * 3 < kLowRegs + 2 * kHighRegs)
    ctx.skip("the cost kernel was built with " + std::to_string(regs) + " registers a thread; the 40/232/232 split needs " + std::to_string(kLaunchRegs));
  const std::size_t warps = kCostThreads / 32;
  DeviceBuffer<long long> out(static_cast<std::size_t>(trips) * warps * kCostFields);
  DeviceBuffer<RegionTiming> timing(1);
  std::vector<RegionTiming> timings;
  std::vector<double> empty, dec_low, inc_high, dec_back, inc_back, blocked;
  const auto sample = [&]() -> double {
    launch(ctx, setmaxnreg_cost_kernel, LaunchShape{1, kCostThreads}, int(trips), out.get(), timing.get());
    GD_CUDA_CHECK_LAUNCH();
    const std::vector<long long> o = out.to_host();
    timings.push_back(timing.to_host()[0]);
    std::vector<double> this_inc;
    for (std::int64_t t = 1; t < trips; ++t)  // trip 0 warms the code up
      for (std::size_t w = 0; w < warps; ++w) {
        const long long* f = &o[(std::size_t(t) * warps + w) * kCostFields];
        const bool producer = w < 4;
        empty.push_back(double(f[0]));
        (producer ? dec_low : inc_high).push_back(double(f[1]));
        (producer ? inc_back : dec_back).push_back(double(f[2]));
        if (!producer) {
          blocked.push_back(double(f[3]));
          this_inc.push_back(double(f[1]));
        }
      }
    return summarize(this_inc).median;
  };
  RepeatPolicy policy;
  policy.min_samples = 5;
  policy.max_samples = 20;
  policy.target_rel_ci = 0.05;
  policy.time_cap_s = ctx.quick() ? 0.2 : 0.5;
  ctx.measure(sample, policy);
  ctx.set_observed_sm_clock_mhz(clock_mhz(timings));

  nlohmann::json table = nlohmann::json::object();
  const auto emit = [&](const std::string& name, const std::vector<double>& v) {
    const ClockedCost c = clocked_cost(v, empty);
    ctx.metric(name, c.cycles);
    table[name] = {{"median_cycles", c.cycles}, {"min", c.min}, {"max", c.max}, {"n", c.n}};
  };
  emit("dec_168_to_40/cycles", dec_low);
  emit("inc_168_to_232/cycles", inc_high);
  emit("dec_232_to_168/cycles", dec_back);
  emit("inc_40_to_168/cycles", inc_back);
  emit("inc_blocked/cycles", blocked);
  ctx.extra()["costs"] = table;
  ctx.extra()["clock_pair_cycles"] = summarize(empty).median;
  ctx.extra()["launch_registers"] = regs;
  ctx.extra()["release_delay_cycles"] = kBlockDelay;
  ctx.extra()["note"] = "warp group 0 releases 128 registers a thread, groups 1-2 take them; inc_blocked: groups 1-2 "
                        "ask first while group 0 waits release_delay_cycles before releasing";
}

// ---------------------------------------------------------------------------------------------
// Warp-specialized producer/consumer. Warp group 0's elected thread streams 8 KiB tiles from global
// memory into a 4-stage shared ring with bulk copies (full/empty mbarriers); each consumer warp
// group takes every C-th tile, reads 16 floats a thread and runs Acc independent FMA chains over
// them. Acc is chosen to fit the consumers' budget after setmaxnreg and not the launch budget, so
// without setmaxnreg the same code spills.
template <int C, bool Smr>
__global__ void __launch_bounds__(WsShape<C>::threads, WsShape<C>::ctas_per_sm)
    warp_specialized_kernel(const float* src, int tiles_per_consumer, int src_tiles, unsigned* out, RegionTiming* timing) {
#ifdef GD_HAS_SETMAXNREG
  using S = WsShape<C>;
  __shared__ alignas(128) float ring[kStages][kTileFloats];
  __shared__ alignas(8) unsigned long long full[kStages], empty[kStages];
  const int wg = threadIdx.x / 128, lane = threadIdx.x % 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      ptx::mbarrier_init(ptx::smem_u32(&full[s]), 1);
      ptx::mbarrier_init(ptx::smem_u32(&empty[s]), 128);
    }
    ptx::fence_mbarrier_init();
  }
  __syncthreads();
  RegionClock region;
  if (threadIdx.x == 0) region.begin();
  const int tiles = tiles_per_consumer * C;
  // Each role changes its budget at the top of its own branch: ptxas limits the code after a
  // setmaxnreg to its count, and where two budgets meet, to the smaller one.
  if (wg == 0) {
    if constexpr (Smr) ptx::setmaxnreg_dec<S::producer_regs>();
    if (threadIdx.x == 0)
      for (int t = 0; t < tiles; ++t) {
        const int s = t % kStages;
        if (t >= kStages) ptx::mbarrier_wait_parity(ptx::smem_u32(&empty[s]), unsigned((t / kStages - 1) & 1));
        ptx::mbarrier_arrive_expect_tx(ptx::smem_u32(&full[s]), kTileBytes);
        const long long tile = ws_tile(int(blockIdx.x), tiles, t, src_tiles);
        ptx::bulk_load(ptx::smem_u32(ring[s]), src + tile * kTileFloats, kTileBytes, ptx::smem_u32(&full[s]));
      }
  } else {
    if constexpr (Smr) ptx::setmaxnreg_inc<S::consumer_regs>();
    float acc[S::acc];
#pragma unroll
    for (int j = 0; j < S::acc; ++j) acc[j] = ws_acc_init(j, lane);
    for (int t = wg - 1; t < tiles; t += C) {
      const int s = t % kStages;
      ptx::mbarrier_wait_parity(ptx::smem_u32(&full[s]), unsigned((t / kStages) & 1));
      const float4* tile = reinterpret_cast<const float4*>(ring[s]);
      float4 q[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) q[k] = tile[k * 128 + lane];
      ptx::mbarrier_arrive(ptx::smem_u32(&empty[s]));  // the tile is in registers: the slot is free
#pragma unroll
      for (int k = 0; k < 4; ++k) {
#pragma unroll
        for (int j = 0; j < S::acc; ++j) acc[j] = fmaf(acc[j], q[k].x, q[k].y);
#pragma unroll
        for (int j = 0; j < S::acc; ++j) acc[j] = fmaf(acc[j], q[k].z, q[k].w);
      }
    }
    unsigned x = 0;
#pragma unroll
    for (int j = 0; j < S::acc; ++j) x ^= __float_as_uint(acc[j]) * unsigned(2 * j + 1);
    out[blockIdx.x * S::threads + threadIdx.x] = x;
  }
  __syncthreads();
  if (threadIdx.x == 0) timing[blockIdx.x] = region.end();
#endif
}

template <int C, bool Smr>
void measure_warp_specialized(ProbeContext& ctx) {
  using S = WsShape<C>;
  const auto kernel = warp_specialized_kernel<C, Smr>;
  const auto tiles_per_consumer = ctx.int_param("tiles");
  if (tiles_per_consumer < 1 || tiles_per_consumer > (1 << 16))
    throw UserError("tiles (per consumer warp group) must be in [1, 65536], not " + std::to_string(tiles_per_consumer));
  cudaFuncAttributes attr{};
  GD_CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)));
  if (Smr && attr.numRegs * (1 + C) < S::producer_regs + C * S::consumer_regs)
    ctx.skip("the kernel was built with " + std::to_string(attr.numRegs) + " registers a thread, fewer than the " +
             std::to_string(S::producer_regs) + " + " + std::to_string(C) + " x " + std::to_string(S::consumer_regs) +
             " split needs (it would wait forever)");
  int per_sm = 0;
  GD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, S::threads, 0));
  if (per_sm < 1) throw Error("the warp-specialized kernel cannot be resident on an SM");
  const int sms = ctx.device().sm_count, ctas = sms * per_sm;

  constexpr int kSrcTiles = 64;  // 512 KiB, L2-resident: the consumers, not DRAM, set the pace
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> mul(0.5f, 1.0f), add(-1.0f, 1.0f);
  std::vector<float> host(std::size_t(kSrcTiles) * kTileFloats);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = i % 2 ? add(rng) : mul(rng);
  DeviceBuffer<float> src(host.size());
  src.from_host(host);
  DeviceBuffer<unsigned> out(static_cast<std::size_t>(ctas) * S::threads);
  DeviceBuffer<RegionTiming> timing(static_cast<std::size_t>(ctas));
  const auto run = [&] {
    launch(ctx, kernel, LaunchShape{unsigned(ctas), unsigned(S::threads)}, src.get(), int(tiles_per_consumer), kSrcTiles,
           out.get(), timing.get());
  };
  run();
  GD_CUDA_CHECK_LAUNCH();
  // Every consumer lane of the first and the last CTA, bit for bit.
  const std::vector<unsigned> got = out.to_host();
  int wrong = 0;
  for (int cta : {0, ctas - 1})
    for (int c = 0; c < C; ++c)
      for (int lane = 0; lane < 128; ++lane)
        wrong += got[std::size_t(cta) * S::threads + 128 * (c + 1) + lane] !=
                 ws_reference<C>(host, kSrcTiles, int(tiles_per_consumer), cta, c, lane);
  if (wrong) throw Error(std::to_string(wrong) + " consumer lanes of the warp-specialized kernel disagree with the CPU reference");

  const double fma = double(ctas) * C * 128 * double(tiles_per_consumer) * 8 * S::acc;
  std::vector<RegionTiming> timings;
  RepeatPolicy policy;
  policy.min_samples = 5;
  policy.max_samples = 30;
  policy.target_rel_ci = 0.01;
  policy.time_cap_s = ctx.quick() ? 0.3 : 1.0;
  const RepeatResult r = measure_event_timed(
      ctx, run,
      [&](double s) {
        const std::vector<RegionTiming> t = timing.to_host();
        timings.insert(timings.end(), t.begin(), t.end());
        return 2 * fma / s / 1e12;
      },
      policy);
  const double mhz = clock_mhz(timings);
  ctx.set_observed_sm_clock_mhz(mhz);
  ctx.metric("tflops", r.summary);
  ctx.metric("fma_per_clk_per_sm", r.summary.median * 1e12 / 2 / (mhz * 1e6) / sms);
  ctx.metric("registers/launch", attr.numRegs);
  ctx.metric("registers/producer", Smr ? S::producer_regs : attr.numRegs);
  ctx.metric("registers/consumer", Smr ? S::consumer_regs : attr.numRegs);
  ctx.metric("spill_bytes_per_thread", double(attr.localSizeBytes));
  ctx.extra()["ctas_per_sm"] = per_sm;
  ctx.extra()["accumulators_per_consumer_thread"] = S::acc;
  ctx.extra()["checked_lanes"] = 2 * C * 128;
}

void run_warp_specialized(ProbeContext& ctx) {
  require_setmaxnreg(ctx);
  const auto consumers = ctx.int_param("consumers");
  const std::string smr = ctx.str_param("setmaxnreg");
  if (consumers != 1 && consumers != 2) throw UserError("consumers must be 1 or 2 warp groups, not " + std::to_string(consumers));
  if (smr != "on" && smr != "off") throw UserError("setmaxnreg must be on or off, not '" + smr + "'");
  if (consumers == 1) smr == "on" ? measure_warp_specialized<1, true>(ctx) : measure_warp_specialized<1, false>(ctx);
  else smr == "on" ? measure_warp_specialized<2, true>(ctx) : measure_warp_specialized<2, false>(ctx);
}

// Per consumer count: the FMA rate with setmaxnreg over the rate without (a derived record).
void summarize_warp_specialized(SummaryContext& sc) {
  for (std::int64_t c : {1, 2}) {
    const auto on = sc.ok_records({{"consumers", c}, {"setmaxnreg", std::string("on")}});
    const auto off = sc.ok_records({{"consumers", c}, {"setmaxnreg", std::string("off")}});
    if (on.empty() || off.empty() || !on[0]->metric("tflops") || !off[0]->metric("tflops")) continue;
    Record& d = sc.derive({{"consumers", c}, {"setmaxnreg", std::string("on_over_off")}}, {on[0], off[0]});
    sc.add_metric(d, "speedup", single_value(on[0]->metric("tflops")->value() / off[0]->metric("tflops")->value()));
  }
}

// Gated to compute capability 9.0 to 10.3 and arch-specific code (Feature::Setmaxnreg: sm_90a,
// sm_100a/103a). ptxas also compiles setmaxnreg for sm_120a, but in the producer/consumer kernels
// it drops it ("C7506: 'setmaxnreg' ignored to maintain compatibility into 'extern' call": the
// sm_120a bulk copy carries a call) and the "on" kernels spill like the "off" ones, so the
// comparison would say nothing there; sm_120a is outside the range and its SASS not applicable.
Requirements setmaxnreg_requirements() {
  Requirements q;
  q.min_cc = 90;
  q.max_cc = 103;
  q.features = {Feature::Setmaxnreg};
  return q;
}

ProbeSpec cost_spec() {
  ProbeSpec s;
  s.id = "sass.setmaxnreg.cost";
  s.description = "cycles of a warp group's setmaxnreg decrease (168->40) and increase (168->232), and of an increase that waits";
  s.needs = setmaxnreg_requirements();
  s.axes = {Axis::list("trips", std::vector<std::int64_t>{32})};
  s.sass = {expect_sass("*setmaxnreg_cost_kernel*", SassRegion::Clocked, {{"USETMAXREG.DEALLOC", 4, -1}, {"USETMAXREG.TRY_ALLOC", 4, -1}})};
  s.metrics = {{"dec_168_to_40/cycles", "cycles", "warp group 0 releases 128 registers a thread (clock pair cost removed)"},
               {"inc_168_to_232/cycles", "cycles", "groups 1-2 take 64 more each, the pool already holding them"},
               {"dec_232_to_168/cycles", "cycles", "groups 1-2 give them back"},
               {"inc_40_to_168/cycles", "cycles", "group 0 takes its registers back"},
               {"inc_blocked/cycles", "cycles", "groups 1-2 ask before group 0 releases (it waits 2000 cycles first)"}};
  s.covers = {{"scheduler.setmaxnreg.inc", "inc_168_to_232/cycles", {}}, {"scheduler.setmaxnreg.dec", "dec_168_to_40/cycles", {}}};
  s.run = run_setmaxnreg_cost;
  s.risky = true;  // an increase the pool cannot satisfy waits forever: run it under the watchdog
  s.time_cap_s = 10;
  s.quick_time_cap_s = 5;
  return s;
}

SassExpectation ws_sass(const std::string& args, bool smr, int acc) {
  // setmaxnreg on: two USETMAXREG and no spill; off: none, and the accumulators spill (that is
  // what the comparison shows), so local memory is required rather than forbidden.
  std::vector<OpcodeExpectation> req{{"FFMA", 8 * acc, -1}, {"UBLKCP", 1, -1}, {"SYNCS.ARRIVE", 1, -1}};
  if (smr) {
    req.push_back({"USETMAXREG", 2, 2});
    return expect_sass("*warp_specialized_kernel<" + args + ">*", SassRegion::Whole, req);
  }
  req.push_back({"USETMAXREG", 0, 0});
  req.push_back({"STL", 1, -1});
  return expect_sass("*warp_specialized_kernel<" + args + ">*", SassRegion::Whole, req, {});
}

ProbeSpec warp_specialized_spec() {
  ProbeSpec s;
  s.id = "sass.setmaxnreg.producer_consumer";
  s.description = "warp-specialized producer/consumer FMA kernel (bulk-copy ring, mbarriers) with and without setmaxnreg";
  s.needs = setmaxnreg_requirements();
  s.axes = {Axis::list("consumers", {1, 2}), Axis::list("setmaxnreg", std::vector<std::string>{"off", "on"}),
            Axis::list("tiles", std::vector<std::int64_t>{64})};
  s.sass = {ws_sass("1, false", false, WsShape<1>::acc), ws_sass("1, true", true, WsShape<1>::acc),
            ws_sass("2, false", false, WsShape<2>::acc), ws_sass("2, true", true, WsShape<2>::acc)};
  s.metrics = {{"tflops", "TFLOPS", "FP32 FMA rate of the consumers, whole chip (event-timed launches)"},
               {"fma_per_clk_per_sm", "FMA/clk/SM", "the same per SM per cycle at the observed clock"},
               {"registers/launch", "registers", "per thread at launch (cudaFuncGetAttributes)"},
               {"registers/producer", "registers", "per producer thread after setmaxnreg (the launch count without)"},
               {"registers/consumer", "registers", "per consumer thread after setmaxnreg (the launch count without)"},
               {"spill_bytes_per_thread", "bytes", "local memory per thread (ptxas spills)"},
               {"speedup", "x", "FMA rate with setmaxnreg over the rate without, same consumers"}};
  s.run = run_warp_specialized;
  s.summarize = summarize_warp_specialized;
  s.risky = true;
  s.time_cap_s = 20;
  s.quick_time_cap_s = 8;
  return s;
}

GD_REGISTER_PROBE(cost_spec());
GD_REGISTER_PROBE(warp_specialized_spec());

}  // namespace probe_setmaxnreg
}  // namespace gd
