// Control-bit experiment: the stall count ptxas writes on each FFMA of a dependent chain, lowered
// by patching the cubin, shows where the hardware stops hiding latency (results silently go wrong).
// It tells a kernel author the real FFMA latency the compiler must respect, straight from the chip.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "analysis/fit.hpp"
#include "analysis/stall_sweep.hpp"
#include "core/error.hpp"
#include "core/ptx.cuh"
#include "core/registry.hpp"
#include "sass/fatbin.hpp"
#include "sass/patch.hpp"

namespace gd {
namespace stall_patch {

constexpr int kChain = 64;      // dependent FFMAs per chain, fully unrolled: one identical word repeated
constexpr int kThreads = 32;    // one warp: nothing else can issue in a stall the patch removes
constexpr int kRegions = 4;     // timed regions of 1, 2, 4, 8 chains: cycles per FFMA is their slope
constexpr int kTotalChains = (1 << kRegions) - 1;

// kChains chains back to back, straight-line: no loop counter for ptxas to interleave, so each
// region is one run of identical FFMA words between two clock reads.
template <int kChains>
__device__ __forceinline__ float chains(float x, float a, float b) {
#pragma unroll
  for (int i = 0; i < kChains * kChain; ++i) x = ptx::ffma(x, a, b);
  return x;
}

// x <- x * a + b with a = 1 and b a small integer: every step is exact, so the result counts the
// steps that saw their predecessor's result; a step that read a stale register is a missing b.
// The host fits cycles over the four region lengths like every other latency, and reads the SM
// clock from clock64 against %globaltimer across the launch. Clock values stay in registers
// until the end, so no store lands inside a region.
// External linkage: the host never launches it through the runtime, so an internal-linkage
// kernel could be dropped; the probe finds it in the cubin and launches it patched.
__global__ void ffma_stall_chain_kernel(float* x_io, long long* cycles, unsigned long long* clock, float a, float b) {
  float x = x_io[threadIdx.x];
  // A branch on x, a and b makes the clocks start after the load and the parameter reads have
  // landed: otherwise the first region alone waits for a and b (about 20 cycles on an H200),
  // which is not a fixed cost of every region and bent the slope to 3.966 cycles per FFMA.
  if (x < 0.0f || a < 0.0f || b < 0.0f) cycles[0] = -1;
  const unsigned long long g0 = ptx::globaltimer_ns();
  const long long c0 = clock64();
  x = chains<1>(x, a, b);
  const long long c1 = clock64();
  x = chains<2>(x, a, b);
  const long long c2 = clock64();
  x = chains<4>(x, a, b);
  const long long c3 = clock64();
  x = chains<8>(x, a, b);
  const long long c4 = clock64();
  const unsigned long long g1 = ptx::globaltimer_ns();
  x_io[threadIdx.x] = x;
  if (threadIdx.x == 0) {
    cycles[0] = c1 - c0;
    cycles[1] = c2 - c1;
    cycles[2] = c3 - c2;
    cycles[3] = c4 - c3;
    clock[0] = (unsigned long long)(c4 - c0);
    clock[1] = g1 - g0;
  }
}

}  // namespace stall_patch

namespace {

using stall_patch::kChain;
using stall_patch::kRegions;
using stall_patch::kThreads;
using stall_patch::kTotalChains;

struct ChainLocation {
  sass::Cubin cubin;
  std::string kernel_name;
  std::vector<sass::InstructionRun> runs;  // one per region, in program order
  const sass::Kernel& kernel() const { return *cubin.find_kernel(kernel_name); }
};

sass::Arch code_arch(const DeviceInfo& d, const sass::EmbeddedCubins& ours) {
  if (!d.arch_code_loaded.empty()) return sass::Arch::parse(d.arch_code_loaded);
  for (bool specific : {true, false})
    for (const auto& a : ours.archs())
      if (a.sm == d.cc() && a.specific == specific) return a;
  throw SkipProbe("the binary has no SASS for " + d.sm_name() + " to patch");
}

ChainLocation locate_chain(const DeviceInfo& device) {
  sass::EmbeddedCubins ours = sass::own_cubins();
  const sass::Arch arch = code_arch(device, ours);
  for (auto& c : ours.cubins) {
    if (!(c.arch() == arch)) continue;
    for (const auto& k : c.kernels()) {
      if (k.demangled.find("ffma_stall_chain_kernel") == std::string::npos) continue;
      const std::string name = k.name;
      ChainLocation loc{std::move(c), name, {}};
      loc.runs = sass::identical_runs(loc.cubin, loc.kernel(), kChain - 1);
      // A region's last FFMA may write a different register (the one stored), so it can fall outside.
      std::string found;
      for (const auto& r : loc.runs) found += (found.empty() ? "" : ", ") + std::to_string(r.count);
      bool as_written = loc.runs.size() == std::size_t(kRegions);
      for (int i = 0; as_written && i < kRegions; ++i)
        as_written = loc.runs[i].count + 1 >= std::size_t((1 << i) * kChain);
      if (!as_written)
        throw Error("expected " + std::to_string(kRegions) + " runs of about 64, 128, 256, 512 identical FFMA words, found [" +
                    found + "]: the chain was not compiled as written");
      return loc;
    }
  }
  throw Error("the " + arch.name() + " code of this binary has no ffma_stall_chain_kernel");
}

// Every FFMA of each region's run but its last gets `stall`: each of them feeds the next FFMA.
sass::Cubin with_stall(const ChainLocation& loc, int stall) {
  std::vector<sass::InstructionEdit> edits;
  for (const auto& run : loc.runs)
    for (std::size_t i = run.first; i + 1 < run.first + run.count; ++i) {
      sass::ControlWord w = sass::ControlWord::decode(loc.cubin.instruction(loc.kernel(), i).hi);
      w.stall = stall;
      edits.push_back({loc.kernel_name, i, std::nullopt, w});
    }
  return sass::apply_patch(loc.cubin, edits);
}

std::size_t patched_count(const ChainLocation& loc) {
  std::size_t n = 0;
  for (const auto& run : loc.runs) n += run.count - 1;
  return n;
}

struct StallOutcome {
  int stall = 0;
  std::string kind;
  int wrong_lanes = 0;
  double mean_missing_steps = 0;  // steps whose result a dependent FFMA did not see
  LineFit fit;                    // cycles of the four regions over their FFMA counts
  double clock_mhz = 0;           // clock64 over %globaltimer across the launch
  double cycles_per_ffma() const { return fit.slope; }
};

LineFit fit_regions(const long long* cycles) {
  std::vector<double> x, y;
  for (int r = 0; r < kRegions; ++r) {
    x.push_back(double((1 << r) * kChain));
    y.push_back(double(cycles[r]));
  }
  return fit_chain_slope(x, y);
}

StallOutcome run_with_stall(const ChainLocation& loc, int stall, const DeviceInfo& device,
                            const std::vector<float>& x0, float b) {
  const sass::Cubin patched = stall < 0 ? loc.cubin : with_stall(loc, stall);
  sass::LaunchJob job;
  job.kernel = loc.kernel_name;
  job.device = device.index;
  job.block = kThreads;
  const std::vector<long long> cycles(kRegions, 0);
  const unsigned long long clock[2] = {0, 0};
  const float a = 1.0f;
  job.args = {sass::LaunchArg::device_buffer(x0.data(), x0.size() * sizeof(float)),
              sass::LaunchArg::device_buffer(cycles.data(), cycles.size() * sizeof(long long)),
              sass::LaunchArg::device_buffer(clock, sizeof clock), sass::LaunchArg::of(a), sass::LaunchArg::of(b)};
  const sass::LaunchOutcome o = sass::launch_in_child(patched, job);
  StallOutcome s{stall, sass::to_string(o.kind) + (o.completed() ? "" : ": " + o.message)};
  if (!o.completed()) return s;
  const auto* got = reinterpret_cast<const float*>(o.buffers.at(0).data());
  double missing = 0;
  for (int i = 0; i < kThreads; ++i) {
    const float expected = x0[i] + float(kTotalChains * kChain) * b;  // exact: small integers
    if (got[i] != expected) ++s.wrong_lanes;
    missing += (expected - got[i]) / b;
  }
  s.mean_missing_steps = missing / kThreads;
  s.fit = fit_regions(reinterpret_cast<const long long*>(o.buffers.at(1).data()));
  unsigned long long clk[2];
  std::memcpy(clk, o.buffers.at(2).data(), sizeof clk);
  s.clock_mhz = clk[1] ? double(clk[0]) / double(clk[1]) * 1e3 : 0;
  return s;
}

std::vector<StallTrial> trials_of(const std::vector<StallOutcome>& outcomes) {
  std::vector<StallTrial> t;
  for (const auto& o : outcomes) t.push_back({o.stall, o.kind == "completed", o.wrong_lanes, o.cycles_per_ffma()});
  return t;
}

void run_stall_patch(ProbeContext& ctx) {
  if (const char* off = std::getenv("GPUDISSECT_NO_PATCH"); off && *off && std::string(off) != "0")
    ctx.skip("cubin patching is turned off (GPUDISSECT_NO_PATCH)");
  const ChainLocation loc = locate_chain(ctx.device());
  const int compiler_stall = sass::ControlWord::decode(loc.cubin.instruction(loc.kernel(), loc.runs.front().first + 1).hi).stall;

  std::mt19937 rng(std::random_device{}());
  std::vector<float> x0(kThreads);
  for (auto& v : x0) v = float(rng() % 1000);
  const float b = float(1 + rng() % 7);

  ctx.launched_by_name(loc.kernel_name);  // verified as compiled; the patch's effect is checked below
  const StallOutcome baseline = run_with_stall(loc, -1, ctx.device(), x0, b);
  if (baseline.kind != "completed" || baseline.wrong_lanes)
    throw Error("the unpatched kernel loaded through the driver API is already wrong (" + baseline.kind + ", " +
                std::to_string(baseline.wrong_lanes) + " wrong lanes): the loading path is broken");
  if (baseline.clock_mhz <= 0) throw Error("the unpatched launch recorded no %globaltimer interval");
  const int top = std::min(15, compiler_stall + (ctx.quick() ? 1 : 4));
  std::vector<StallOutcome> outcomes;
  for (int s = 0; s <= top; ++s) outcomes.push_back(run_with_stall(loc, s, ctx.device(), x0, b));

  const int threshold = stall_threshold(trials_of(outcomes));
  if (threshold < 0) throw Error("no tested stall count gave the right result, not even " + std::to_string(top));
  const PatchEffect effect = patch_effect(trials_of(outcomes), compiler_stall);

  nlohmann::json table = nlohmann::json::array();
  for (const auto& o : outcomes)
    table.push_back({{"stall", o.stall}, {"outcome", o.kind}, {"wrong_lanes", o.wrong_lanes},
                     {"mean_missing_steps", o.mean_missing_steps}, {"cycles_per_ffma", o.cycles_per_ffma()},
                     {"fit_r2", o.fit.r2}});
  ctx.extra()["stall_sweep"] = table;
  ctx.extra()["arch"] = loc.cubin.arch().name();
  ctx.extra()["chain"] = {{"kernel", loc.kernel_name}, {"first_instruction", loc.runs.front().first},
                          {"length", kChain}, {"regions", kRegions}, {"patched_instructions", patched_count(loc)}};
  ctx.extra()["patch_effect"] = effect.evidence;
  ctx.extra()["mercury_sections"] = loc.cubin.has_mercury_sections();
  if (!effect.took) throw Error("the patch had no observable effect: " + effect.evidence);

  // The unpatched kernel again, repeated like every latency: one slope per launch.
  std::vector<double> mhz;
  RepeatPolicy policy;
  policy.warmup = 0;  // the baseline launch above was the warm-up
  policy.max_samples = 15;
  policy.target_rel_ci = 0.01;
  const Summary unpatched = ctx.measure([&] {
    const StallOutcome o = run_with_stall(loc, -1, ctx.device(), x0, b);
    if (o.kind != "completed" || o.wrong_lanes) throw Error("an unpatched repeat went wrong: " + o.kind);
    mhz.push_back(o.clock_mhz);
    return o.cycles_per_ffma();
  }, policy).summary;
  ctx.set_observed_sm_clock_mhz(summarize(mhz).median, "clock64 over %globaltimer across the unpatched launches (child process)");
  ctx.metric("stall/threshold", double(threshold));
  ctx.metric("stall/compiler", double(compiler_stall));
  ctx.metric("cycles_per_ffma/unpatched", unpatched);
}

ProbeSpec stall_patch_spec() {
  ProbeSpec s;
  s.id = "sass.patch.ffma_stall";
  s.description = "lowest FFMA stall count that keeps a dependent chain correct (cubin patched, run in a child)";
  s.needs.min_cc = 70;  // the control-word layout patched here is Volta's and later
  // The clocked region holds the chain once: the loops around it are not unrolled.
  // Between the first and last clock read: the four regions, 15 chains of FFMA and nothing else slow.
  s.sass = {expect_sass("*ffma_stall_chain_kernel*", SassRegion::Clocked, {{"FFMA", kTotalChains * kChain, kTotalChains * kChain}})};
  s.metrics = {{"stall/threshold", "cycles", "smallest stall on a dependent FFMA that still gives right results"},
               {"stall/compiler", "cycles", "the stall ptxas wrote on the chain"},
               {"cycles_per_ffma/unpatched", "cycles", "cycles per chain step as compiled (slope over chain lengths)"}};
  s.run = run_stall_patch;
  s.risky = true;  // patched machine code: a wrong patch can hang or fault; isolated by default
  s.time_cap_s = 120;
  s.quick_time_cap_s = 60;
  return s;
}

GD_REGISTER_PROBE(stall_patch_spec());

}  // namespace
}  // namespace gd
