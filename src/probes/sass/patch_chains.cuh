// The dependent chains the control-bit probes patch (probes/sass/*.cu), and the host side they
// share: four straight-line timed regions of 1, 2, 4 and 8 chains of 64 steps (so cycles per
// step is a chain-length slope and every step is one run of identical SASS words), launched from
// the patched cubin in a child process, one batch per experiment.
#pragma once
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/json.hpp"

#include "analysis/fit.hpp"
#include "analysis/stall_sweep.hpp"
#include "core/error.hpp"
#include "core/probe.hpp"
#include "core/ptx.cuh"
#include "core/ptx_async.cuh"
#include "core/stats.hpp"
#include "sass/patch_experiment.hpp"

namespace gd::patch_chains {

constexpr int kChain = 64;    // steps per chain
constexpr int kRegions = 4;   // regions of 1, 2, 4, 8 chains
constexpr int kSteps = ((1 << kRegions) - 1) * kChain;  // 960 steps in all
constexpr int kThreads = 32;  // one warp: nothing else can issue in a stall the patch removes
constexpr int kChaseSlots = 1024;

template <int kChains, class T, class Step>
__device__ __forceinline__ T chains(T x, const Step& step) {
#pragma unroll
  for (int i = 0; i < kChains * kChain; ++i) x = step(x);
  return x;
}

// The four regions between five clock reads, and the SM clock (clock64 over %globaltimer)
// across them; thread 0 writes the cycles. Clock values stay in registers until the end, so no
// store lands inside a region.
template <class T, class Step>
__device__ __forceinline__ T timed_regions(T x, const Step& step, long long* cycles, unsigned long long* clock) {
  const unsigned long long g0 = ptx::globaltimer_ns();
  const long long c0 = clock64();
  x = chains<1>(x, step);
  const long long c1 = clock64();
  x = chains<2>(x, step);
  const long long c2 = clock64();
  x = chains<4>(x, step);
  const long long c3 = clock64();
  x = chains<8>(x, step);
  const long long c4 = clock64();
  const unsigned long long g1 = ptx::globaltimer_ns();
  if (threadIdx.x == 0) {
    cycles[0] = c1 - c0;
    cycles[1] = c2 - c1;
    cycles[2] = c3 - c2;
    cycles[3] = c4 - c3;
    clock[0] = (unsigned long long)(c4 - c0);
    clock[1] = g1 - g0;
  }
  return x;
}

// Fills `slots` with the shared-window addresses of next[i]'s slots and returns the window
// address of slot 0, so that a chase step is one LDS R, [R].
template <int kSlots>
__device__ __forceinline__ std::uint32_t fill_chase_slots(std::uint32_t (&slots)[kSlots], const std::uint32_t* next) {
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(slots));
  for (int i = threadIdx.x; i < kSlots; i += blockDim.x) slots[i] = base + 4 * next[i];
  __syncthreads();
  return base;
}

// A shared-memory pointer chase, x = smem[x] as one LDS R, [R] per step: each lane starts at
// slot x_io[lane], follows next[] and writes back the slot it reached. A template so that every
// probe file that patches it instantiates the same kernel.
template <int kSlots>
__global__ void lds_chase_kernel(std::uint32_t* x_io, long long* cycles, unsigned long long* clock,
                                 const std::uint32_t* next) {
  __shared__ std::uint32_t slots[kSlots];
  const std::uint32_t base = fill_chase_slots(slots, next);
  std::uint32_t x = base + 4 * x_io[threadIdx.x];
  x = timed_regions(x, [](std::uint32_t v) { return ptx::ld_shared_u32(v); }, cycles, clock);
  x_io[threadIdx.x] = (x - base) / 4;
}

// One instruction-catalog step (latency/alu_catalog.cuh) as a chain. x from memory, one value
// per lane (a parameter would be warp-uniform and integer chains would move to the uniform
// datapath). A template, external linkage: the probes launch it from the cubin.
template <class Op>
__global__ void stall_class_kernel(typename Op::T* x_io, long long* cycles, unsigned long long* clock,
                                   typename Op::T a, typename Op::T b) {
  using T = typename Op::T;
  T x = x_io[threadIdx.x];
  // A branch on x, a and b: the clocks start after the load and the parameters have landed.
  if (x == a || x == b) cycles[0] = -1;
  x = timed_regions(x, [a, b](T v) { return Op::step(v, a, b); }, cycles, clock);
  x_io[threadIdx.x] = x;
}

// -------------------------------------------------------------------------------- host side

// One launch's results: the per-lane output and the timing.
struct ChainResult {
  sass::LaunchOutcome outcome;
  LineFit fit;            // cycles of the four regions over their step counts
  double clock_mhz = 0;   // clock64 over %globaltimer across the regions
  bool completed() const { return outcome.completed(); }
  std::string kind() const {
    return sass::to_string(outcome.kind) + (outcome.completed() ? "" : ": " + outcome.message);
  }
};

// A launch of a chain kernel: arguments (x_io, cycles, clock, extra...), x_io holding `x`.
inline sass::LaunchJob chain_job(const sass::LocatedKernel& k, int device, unsigned block, const void* x,
                                 std::size_t x_bytes, std::vector<sass::LaunchArg> extra = {}) {
  static const long long cycles[kRegions] = {};
  static const unsigned long long clock[2] = {};
  sass::LaunchJob job;
  job.kernel = k.name;
  job.device = device;
  job.block = block;
  job.args = {sass::LaunchArg::device_buffer(x, x_bytes), sass::LaunchArg::device_buffer(cycles, sizeof cycles),
              sass::LaunchArg::device_buffer(clock, sizeof clock)};
  for (auto& a : extra) job.args.push_back(std::move(a));
  return job;
}

// Arguments 1 and 2 of every chain kernel: the region cycles and the clock pair.
inline ChainResult read_chain_result(sass::LaunchOutcome o) {
  ChainResult r{std::move(o)};
  if (!r.completed()) return r;
  if (r.outcome.buffers.size() < 3) throw Error("a chain launch returned " + std::to_string(r.outcome.buffers.size()) + " buffers, not 3 or more");
  long long cyc[kRegions];
  std::memcpy(cyc, r.outcome.buffers[1].data(), sizeof cyc);
  std::vector<double> x, y;
  for (int i = 0; i < kRegions; ++i) {
    x.push_back(double((1 << i) * kChain));
    y.push_back(double(cyc[i]));
  }
  r.fit = fit_chain_slope(x, y);
  unsigned long long clk[2];
  std::memcpy(clk, r.outcome.buffers[2].data(), sizeof clk);
  r.clock_mhz = clk[1] ? double(clk[0]) / double(clk[1]) * 1e3 : 0;
  return r;
}

// Lanes whose output (buffer 0, `lane_bytes` each) differs bit for bit from the reference.
inline int wrong_lanes(const ChainResult& r, const ChainResult& reference, std::size_t lane_bytes) {
  if (!r.completed()) return kThreads;
  const auto& a = r.outcome.buffers.at(0);
  const auto& b = reference.outcome.buffers.at(0);
  int wrong = 0;
  for (int i = 0; i < kThreads; ++i) wrong += std::memcmp(a.data() + i * lane_bytes, b.data() + i * lane_bytes, lane_bytes) != 0;
  return wrong;
}

// The four region runs of a chain in its kernel: runs of one repeated instruction (period 1) or
// of a repeated group of instructions (ptxas alternates two encodings, or a step is a pair or a
// triple; sm_120's DFMA is padded with NOPs), registers ignored, the shortest period that gives
// four runs of at least half a chain. Throws when the
// chain was not compiled as four straight-line runs.
struct ChainShape {
  int period = 1;    // instructions before the words repeat (HFMA2 alternates two encodings)
  int per_step = 1;  // instructions per dependent step (the last region holds 8 chains of steps)
  std::vector<sass::InstructionRun> runs;
};
inline ChainShape find_chain(const sass::LocatedKernel& k, int max_period = 8) {
  std::string found;
  for (int period = 1; period <= max_period; ++period) {
    auto runs = sass::periodic_runs(k.cubin, k.kernel(), std::size_t(period), std::size_t(kChain * period / 2), true);
    if (runs.size() == std::size_t(kRegions)) {
      const double per_step = double(runs.back().count) / double(kChain << (kRegions - 1));
      return {period, std::max(1, int(per_step + 0.5)), std::move(runs)};
    }
    found += " period " + std::to_string(period) + ": " + std::to_string(runs.size()) + " runs;";
  }
  throw Error("expected " + std::to_string(kRegions) + " runs of a repeated step in " + k.name + " (" + found +
              "): the chain was not compiled as written");
}

// True when ptxas tracks a chain instruction's result with a write barrier (variable latency).
inline bool chain_has_barrier(const sass::LocatedKernel& k, const std::vector<sass::InstructionRun>& runs) {
  for (const auto& r : runs)
    for (std::size_t i = r.first; i < r.first + r.count; ++i)
      if (k.control(i).write_barrier != sass::ControlWord::kNoBarrier) return true;
  return false;
}

// Every chain instruction but each run's last gets `stall`; with `drop_waits`, every one but
// each run's first also loses its wait mask (the first waits for what came before the run);
// with `set_yield`, every chain instruction gets the yield flag.
inline sass::ControlPatch stall_patch(const sass::LocatedKernel& k, const std::vector<sass::InstructionRun>& runs,
                                      int stall, bool drop_waits, bool set_yield = false) {
  sass::ControlPatch p(k);
  for (const auto& r : runs)
    for (std::size_t i = r.first; i < r.first + r.count; ++i) {
      sass::ControlWord w = p.control(i);
      if (i + 1 < r.first + r.count) w.stall = stall;
      if (drop_waits && i > r.first) w.wait_mask = 0;
      if (set_yield) w.yield = true;
      p.set_control(i, w);
    }
  return p;
}

// The chain's barriers (`compiled`: the write barriers ptxas put on its loads) renamed to `to`,
// on the chain's instructions only: every instruction of the chain's form (its first word without
// control bits and registers) from the first one on, lead-in loads before the periodic runs
// included, sets `to` and waits on it instead; every other instruction after that first load
// which waited on a compiled barrier (the chain result's consumers) waits on `to` as well. What
// comes before the chain keeps its barriers: renamed there too, `to` = 7 (no barrier) let the
// slot fill read SR_TID, SR_CgaCtaId and the kernel parameters before they landed, so the
// unguarded launch measured broken set-up code (a misaligned address on an H200) instead of an
// unguarded chain, and under racecheck stored into another CTA's shared window ("invalid
// __shared__ write ... in a block that might not have entered yet").
inline sass::ControlPatch rename_chain_barriers(const sass::LocatedKernel& k, const ChainShape& shape,
                                                const std::vector<int>& compiled, int to) {
  if (to < 0 || to > 7) throw Error("rename_chain_barriers: barrier " + std::to_string(to) + " is out of range");
  const auto form = [&](std::size_t i) {
    sass::Instruction128 w = k.word(i);
    w.hi &= ~(sass::ControlWord::kMask | sass::RegisterFields::kHiMask);
    w.lo &= ~sass::RegisterFields::kLoMask;
    return w;
  };
  const sass::Instruction128 chain_form = form(shape.runs.at(0).first);
  std::size_t first = 0;
  while (first < k.size() && !(form(first) == chain_form)) ++first;
  const auto is_compiled = [&](int b) { return std::find(compiled.begin(), compiled.end(), b) != compiled.end(); };
  sass::ControlPatch p(k);
  for (std::size_t i = first; i < k.size(); ++i) {
    sass::ControlWord w = p.control(i);
    const sass::ControlWord before = w;
    bool waited = false;
    for (int c : compiled)
      if (w.wait_mask >> c & 1) waited = true;
    if (form(i) == chain_form) {
      if (is_compiled(w.write_barrier)) w.write_barrier = to;
      if (is_compiled(w.read_barrier)) w.read_barrier = to;
      for (int c : compiled) w.wait_mask &= std::uint8_t(~(1u << c));
    }
    if (waited && to < 6) w.wait_mask |= std::uint8_t(1u << to);
    if (!(w == before)) p.set_control(i, w);
  }
  return p;
}

inline StallTrial stall_trial(int stall, const ChainResult& r, int wrong) {
  return {stall, r.completed(), wrong, r.fit.slope};
}

// Fails the point when the edit left no trace on the chip (the chip ran other code than the
// edited words). A single-sample run is the exception: under compute-sanitizer the tool
// re-instruments the loaded code and each launch is slowed a hundredfold, so neither wrong lanes
// nor cycles can show the edit; the record then says the effect was not judged, and why.
inline void require_patch_effect(ProbeContext& ctx, const PatchEffect& effect) {
  ctx.extra()["patch_effect"] = effect.evidence;
  if (effect.took) return;
  if (ctx.single_sample()) {
    ctx.extra()["patch_effect_not_judged"] =
        "single-sample run (profiler or sanitizer): the timings are not measurements, so the edit's effect is not judged";
    return;
  }
  throw Error("the patch had no observable effect: " + effect.evidence);
}

}  // namespace gd::patch_chains
