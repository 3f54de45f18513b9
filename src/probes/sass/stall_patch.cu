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
#include "sass/patch_experiment.hpp"
#include "patch_chains.cuh"

namespace gd {
namespace stall_patch {

using namespace patch_chains;  // 4 regions of 1, 2, 4, 8 chains of 64 steps, one warp
constexpr int kTotalChains = (1 << kRegions) - 1;

// x <- x * a + b with a = 1 and b a small integer: every step is exact, so the result counts the
// steps that saw their predecessor's result; a step that read a stale register is a missing b.
// The host fits cycles over the four region lengths like every other latency, and reads the SM
// clock from clock64 against %globaltimer across the launch.
// External linkage: the host never launches it through the runtime, so an internal-linkage
// kernel could be dropped; the probe finds it in the cubin and launches it patched.
__global__ void ffma_stall_chain_kernel(float* x_io, long long* cycles, unsigned long long* clock, float a, float b) {
  float x = x_io[threadIdx.x];
  // A branch on x, a and b makes the clocks start after the load and the parameter reads have
  // landed: otherwise the first region alone waits for a and b (about 20 cycles on an H200),
  // which is not a fixed cost of every region and bent the slope to 3.966 cycles per FFMA.
  if (x < 0.0f || a < 0.0f || b < 0.0f) cycles[0] = -1;
  x = timed_regions(x, [a, b](float v) { return ptx::ffma(v, a, b); }, cycles, clock);
  x_io[threadIdx.x] = x;
}

}  // namespace stall_patch

namespace probe_stall_patch {

using stall_patch::kChain;
using stall_patch::kRegions;
using stall_patch::kThreads;
using stall_patch::kTotalChains;

struct ChainLocation {
  sass::LocatedKernel code;
  std::vector<sass::InstructionRun> runs;  // one per region, in program order
  const sass::Cubin& cubin() const { return code.cubin; }
  const sass::Kernel& kernel() const { return code.kernel(); }
};

ChainLocation locate_chain(const DeviceInfo& device) {
  ChainLocation loc{sass::locate_own_kernel(device, "ffma_stall_chain_kernel"), {}};
  loc.runs = sass::identical_runs(loc.cubin(), loc.kernel(), kChain - 1);
  // A region's last FFMA may write a different register (the one stored), so it can fall outside.
  std::string found;
  for (const auto& r : loc.runs) found += (found.empty() ? "" : ", ") + std::to_string(r.count);
  bool as_written = loc.runs.size() == std::size_t(kRegions);
  for (int i = 0; as_written && i < kRegions; ++i) as_written = loc.runs[i].count + 1 >= std::size_t((1 << i) * kChain);
  if (!as_written)
    throw Error("expected " + std::to_string(kRegions) + " runs of about 64, 128, 256, 512 identical FFMA words, found [" +
                found + "]: the chain was not compiled as written");
  return loc;
}

// Every FFMA of each region's run but its last gets `stall`: each of them feeds the next FFMA.
sass::Cubin with_stall(const ChainLocation& loc, int stall) {
  sass::ControlPatch p(loc.code);
  for (const auto& run : loc.runs)
    for (std::size_t i = run.first; i + 1 < run.first + run.count; ++i) {
      sass::ControlWord w = p.control(i);
      w.stall = stall;
      p.set_control(i, w);
    }
  return p.apply();
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

sass::LaunchJob chain_job(const ChainLocation& loc, const DeviceInfo& device, const std::vector<float>& x0, float b) {
  sass::LaunchJob job;
  job.kernel = loc.code.name;
  job.device = device.index;
  job.block = kThreads;
  const std::vector<long long> cycles(kRegions, 0);
  const unsigned long long clock[2] = {0, 0};
  const float a = 1.0f;
  job.args = {sass::LaunchArg::device_buffer(x0.data(), x0.size() * sizeof(float)),
              sass::LaunchArg::device_buffer(cycles.data(), cycles.size() * sizeof(long long)),
              sass::LaunchArg::device_buffer(clock, sizeof clock), sass::LaunchArg::of(a), sass::LaunchArg::of(b)};
  return job;
}

StallOutcome read_outcome(const sass::LaunchOutcome& o, int stall, const std::vector<float>& x0, float b) {
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
  if (const auto off = sass::patching_disabled()) ctx.skip(*off);
  const ChainLocation loc = locate_chain(ctx.device());
  const int compiler_stall = loc.code.control(loc.runs.front().first + 1).stall;

  std::mt19937 rng(std::random_device{}());
  std::vector<float> x0(kThreads);
  for (auto& v : x0) v = float(rng() % 1000);
  const float b = float(1 + rng() % 7);

  ctx.launched_by_name(loc.code.name);  // verified as compiled; the patch's effect is checked below
  // One batch in a child process: the code as compiled (the first launch is the warm-up), every
  // stall from 0 to a few above the compiler's, then the code as compiled again for its timing.
  const int top = std::min(15, compiler_stall + (ctx.quick() ? 1 : 4));
  const int repeats = ctx.quick() ? 3 : 9;
  std::vector<int> stalls = {-1};
  for (int s = 0; s <= top; ++s) stalls.push_back(s);
  for (int i = 0; i < repeats; ++i) stalls.push_back(-1);
  std::vector<sass::Cubin> patched;
  for (int s = 0; s <= top; ++s) patched.push_back(with_stall(loc, s));
  const sass::LaunchJob job = chain_job(loc, ctx.device(), x0, b);
  std::vector<sass::PatchedLaunch> launches;
  for (int s : stalls) launches.push_back({s < 0 ? &loc.cubin() : &patched[std::size_t(s)], job});
  const std::vector<sass::LaunchOutcome> results = sass::launch_batch_in_child(launches);

  const StallOutcome baseline = read_outcome(results[0], -1, x0, b);
  if (baseline.kind != "completed" || baseline.wrong_lanes)
    throw Error("the unpatched kernel loaded through the driver API is already wrong (" + baseline.kind + ", " +
                std::to_string(baseline.wrong_lanes) + " wrong lanes): the loading path is broken");
  if (baseline.clock_mhz <= 0) throw Error("the unpatched launch recorded no %globaltimer interval");
  std::vector<StallOutcome> outcomes;
  std::vector<double> unpatched_cycles, mhz;
  for (std::size_t i = 1; i < stalls.size(); ++i) {
    const StallOutcome o = read_outcome(results[i], stalls[i], x0, b);
    if (stalls[i] >= 0) {
      outcomes.push_back(o);
      continue;
    }
    if (o.kind != "completed" || o.wrong_lanes) throw Error("an unpatched repeat went wrong: " + o.kind);
    unpatched_cycles.push_back(o.cycles_per_ffma());
    mhz.push_back(o.clock_mhz);
  }

  const int threshold = stall_threshold(trials_of(outcomes));
  if (threshold < 0) throw Error("no tested stall count gave the right result, not even " + std::to_string(top));
  const PatchEffect effect = patch_effect(trials_of(outcomes), compiler_stall);

  nlohmann::json table = nlohmann::json::array();
  for (const auto& o : outcomes)
    table.push_back({{"stall", o.stall}, {"outcome", o.kind}, {"wrong_lanes", o.wrong_lanes},
                     {"mean_missing_steps", o.mean_missing_steps}, {"cycles_per_ffma", o.cycles_per_ffma()},
                     {"fit_r2", o.fit.r2}});
  ctx.extra()["stall_sweep"] = table;
  ctx.extra()["arch"] = loc.cubin().arch().name();
  ctx.extra()["chain"] = {{"kernel", loc.code.name}, {"first_instruction", loc.runs.front().first},
                          {"length", kChain}, {"regions", kRegions}, {"patched_instructions", patched_count(loc)}};
  ctx.extra()["mercury_sections"] = loc.cubin().has_mercury_sections();
  patch_chains::require_patch_effect(ctx, effect);

  ctx.set_observed_sm_clock_mhz(summarize(mhz).median, "clock64 over %globaltimer across the unpatched launches (child process)");
  ctx.metric("stall/threshold", double(threshold));
  ctx.metric("stall/compiler", double(compiler_stall));
  ctx.metric("cycles_per_ffma/unpatched", summarize(unpatched_cycles));
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
  // Not risky: every patched launch runs in launch_batch_in_child (a child with a watchdog).
  s.time_cap_s = 120;
  s.quick_time_cap_s = 60;
  return s;
}

GD_REGISTER_PROBE(stall_patch_spec());

}  // namespace probe_stall_patch
}  // namespace gd
