// Stall-count threshold per instruction class (FP32, INT, FP16x2, FP64, MUFU, conversion, shared
// and global loads), by patching the stall field of a dependent chain with and without its
// scoreboard wait: which results the stall alone protects (fixed latency) and which need a barrier.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "analysis/control_fields.hpp"
#include "analysis/control_study.hpp"
#include "core/registry.hpp"
#include "../latency/alu_catalog.cuh"
#include "patch_chains.cuh"

namespace gd {
namespace stall_classes {

using namespace patch_chains;

// A global-memory pointer chase, p = *p as one 64-bit LDG per step. The kernel turns next[]
// into pointers into `slots` first (their addresses exist only in the child's allocation).
__global__ void ldg_chase_stall_kernel(std::uint32_t* x_io, long long* cycles, unsigned long long* clock,
                                       const std::uint32_t* next, unsigned long long* slots) {
  for (int i = threadIdx.x; i < kChaseSlots; i += blockDim.x) slots[i] = (unsigned long long)(slots + next[i]);
  __syncthreads();
  unsigned long long p = (unsigned long long)(slots + x_io[threadIdx.x]);
  if (p == 0) cycles[0] = -1;
  p = timed_regions(
      p, [](unsigned long long v) { return (unsigned long long)ptx::ld_ptr(reinterpret_cast<const void* const*>(v)); },
      cycles, clock);
  x_io[threadIdx.x] = std::uint32_t((p - (unsigned long long)slots) / 8);
}

// FADD, F2I and I2F per step: a conversion chain that counts (a plain round trip settles after
// one step, so a step that read a stale register would not show). The PTX wrappers are volatile:
// with the plain intrinsics the compiler hoisted every clock read above the whole chain.
struct CvtCount {
  using T = float;
  static constexpr const char* tag = "CvtCount";
  __host__ __device__ static float step(float x, float a, float) { return ptx::f32_s32_f32(ptx::fadd_rn(x, a)); }
  static std::vector<alu_catalog::OpcodePerStep> sass() { return {{"F2I"}}; }
  static constexpr alu_catalog::Tolerance tolerance = alu_catalog::kExact;
};

}  // namespace stall_classes

namespace probe_stall_classes {

using namespace patch_chains;
using stall_classes::CvtCount;
using Rng = std::mt19937_64;

// What one class hands the shared sweep: x_io's start, the launch arguments after (x_io, cycles,
// clock), how to check the unpatched result against the host, and for a pointer chase how many
// steps a lane took.
struct ClassInputs {
  std::vector<std::uint8_t> x;
  std::vector<sass::LaunchArg> args;  // after x_io, cycles and clock
  std::size_t lane_bytes = 4;
  std::function<std::string(const std::vector<std::uint8_t>& out)> host_mismatch;  // "" when right
  std::function<int(const std::vector<std::uint8_t>& out, int lane)> steps_seen;   // chases only
};

struct ClassRow {
  std::string name;
  std::string description;
  std::string kernel_part;  // in the demangled kernel name
  std::string kernel_glob;
  std::vector<OpcodeExpectation> expect;
  Requirements needs;
  std::function<ClassInputs(Rng&)> inputs;
  bool covers_linearity = false;
  const void* kernel = nullptr;  // the host stub: taking it instantiates the kernel template
};

// A catalog step with inputs chosen so the chain counts (a = 1 and an integer b, an odd
// multiplier): a step that read its operand before the result landed changes the final value,
// where the catalog's contracting inputs would converge and hide it.
template <class Op>
ClassRow alu_row(std::string name, std::function<std::array<typename Op::T, 3>(Rng&, int lane)> setup,
                 std::string description, bool linearity = false) {
  using T = typename Op::T;
  ClassRow row;
  row.name = std::move(name);
  row.description = std::move(description);
  row.kernel_part = std::string("stall_class_kernel<") + (std::is_same_v<Op, CvtCount> ? "gd::stall_classes::" : "gd::alu_catalog::");
  row.kernel_part += Op::tag;
  row.kernel_part += ">";
  row.kernel_glob = "*" + row.kernel_part + "*";
  for (const auto& op : Op::sass()) row.expect.push_back({op.opcode, int(op.per_step * kSteps), -1});
  row.covers_linearity = linearity;
  row.kernel = reinterpret_cast<const void*>(&stall_class_kernel<Op>);
  row.inputs = [setup](Rng& rng) {
    std::vector<T> x0(kThreads);
    std::array<T, 3> first{};
    for (int i = 0; i < kThreads; ++i) {
      const auto v = setup(rng, i);
      if (i == 0) first = v;
      x0[i] = v[0];
    }
    const T a = first[1], b = first[2];
    ClassInputs in;
    in.lane_bytes = sizeof(T);
    in.x.resize(x0.size() * sizeof(T));
    std::memcpy(in.x.data(), x0.data(), in.x.size());
    in.args = {sass::LaunchArg::of(a), sass::LaunchArg::of(b)};
    in.host_mismatch = [x0, a, b](const std::vector<std::uint8_t>& out) -> std::string {
      for (int i = 0; i < kThreads; ++i) {
        T want = x0[i];
        for (int s = 0; s < kSteps; ++s) want = Op::step(want, a, b);
        T got;
        std::memcpy(&got, out.data() + i * sizeof(T), sizeof(T));
        bool ok;
        if constexpr (Op::tolerance.exact()) {
          ok = std::memcmp(&got, &want, sizeof(T)) == 0;
        } else {
          ok = std::isfinite(double(got)) &&
               std::abs(double(got) - double(want)) <= Op::tolerance.abs + Op::tolerance.rel * std::abs(double(want));
        }
        if (!ok) return "lane " + std::to_string(i) + " differs from the host reference";
      }
      return "";
    };
    return in;
  };
  return row;
}

// A random single cycle through every slot (Sattolo), so a chase reaches each slot at one step count.
std::vector<std::uint32_t> single_cycle(Rng& rng) {
  std::vector<std::uint32_t> perm(kChaseSlots);
  std::iota(perm.begin(), perm.end(), 0u);
  for (std::size_t i = perm.size() - 1; i > 0; --i) std::swap(perm[i], perm[rng() % i]);
  std::vector<std::uint32_t> next(kChaseSlots);
  for (std::size_t i = 0; i < perm.size(); ++i) next[perm[i]] = perm[(i + 1) % perm.size()];
  return next;
}

ClassRow chase_row(std::string name, std::string kernel_part, const void* kernel, std::string opcode, bool global,
                   std::string description) {
  ClassRow row;
  row.kernel = kernel;
  row.name = std::move(name);
  row.description = std::move(description);
  row.kernel_part = std::move(kernel_part);
  row.kernel_glob = "*" + row.kernel_part + "*";
  row.expect = {{std::move(opcode), kSteps, kSteps}};
  row.inputs = [global](Rng& rng) {
    const std::vector<std::uint32_t> next = single_cycle(rng);
    std::vector<std::uint32_t> x0(kThreads);
    for (auto& v : x0) v = std::uint32_t(rng() % kChaseSlots);
    ClassInputs in;
    in.x.resize(x0.size() * 4);
    std::memcpy(in.x.data(), x0.data(), in.x.size());
    in.args = {sass::LaunchArg::device_buffer(next.data(), next.size() * 4)};
    if (global) {
      const std::vector<unsigned long long> slots(kChaseSlots, 0);
      in.args.push_back(sass::LaunchArg::device_buffer(slots.data(), slots.size() * 8));
    }
    in.steps_seen = [next, x0](const std::vector<std::uint8_t>& out, int lane) {
      std::uint32_t end;
      std::memcpy(&end, out.data() + lane * 4, 4);
      return chase_steps_seen(next, x0[lane], end, kSteps);
    };
    in.host_mismatch = [f = in.steps_seen](const std::vector<std::uint8_t>& out) -> std::string {
      for (int i = 0; i < kThreads; ++i)
        if (f(out, i) != kSteps) return "lane " + std::to_string(i) + " did not take " + std::to_string(kSteps) + " steps";
      return "";
    };
    return in;
  };
  return row;
}

float small_int(Rng& r, int below) { return float(r() % unsigned(below)); }

std::vector<ClassRow> class_rows() {
  namespace cat = alu_catalog;
  std::vector<ClassRow> rows;
  rows.push_back(alu_row<cat::Ffma>(
      "ffma", [](Rng& r, int) { return std::array<float, 3>{small_int(r, 1000), 1.0f, 1.0f + small_int(r, 7)}; },
      "FP32 FFMA, x*1+b with small integers (exact, counts steps)", true));
  rows.push_back(alu_row<cat::Fadd>(
      "fadd", [](Rng& r, int) { return std::array<float, 3>{small_int(r, 1000), 1.0f + small_int(r, 7), 0.0f}; },
      "FP32 FADD, x+a with small integers"));
  rows.push_back(alu_row<cat::Iadd3>(
      "iadd3", [](Rng& r, int) { return std::array<std::uint32_t, 3>{std::uint32_t(r()), std::uint32_t(r()), std::uint32_t(r())}; },
      "INT IADD3, x+a+b"));
  rows.push_back(alu_row<cat::Imad>(
      "imad", [](Rng& r, int) { return std::array<std::uint32_t, 3>{std::uint32_t(r()), std::uint32_t(r()) | 1u, std::uint32_t(r())}; },
      "INT IMAD, x*a+b with an odd multiplier (a bijection: no fixed point)"));
  rows.push_back(alu_row<cat::Hfma2>(
      "hfma2",
      [](Rng& r, int) {
        const std::uint32_t one = ptx::float_to_half_bits(1.0f);
        const std::uint32_t x = ptx::float_to_half_bits(small_int(r, 500)) | ptx::float_to_half_bits(small_int(r, 500)) << 16;
        return std::array<std::uint32_t, 3>{x, one | one << 16, one | one << 16};
      },
      "FP16x2 HFMA2, x*1+1 per half (exact below 2048; sm_90 alternates HFMA2 and HFMA2.MMA)"));
  rows.push_back(alu_row<cat::Dfma>(
      "dfma", [](Rng& r, int) { return std::array<double, 3>{double(r() % 1000), 1.0, 1.0 + double(r() % 7)}; },
      "FP64 DFMA, x*1+b with small integers"));
  rows.push_back(alu_row<cat::Dadd>(
      "dadd", [](Rng& r, int) { return std::array<double, 3>{double(r() % 1000), 1.0 + double(r() % 7), 0.0}; },
      "FP64 DADD, x+a with small integers"));
  rows.push_back(alu_row<cat::MufuTanh>(
      "mufu_tanh",
      [](Rng& r, int) { return std::array<float, 3>{float(cat::uniform(r, -1, 1)), 0.0f, 0.0f}; },
      "SFU MUFU.TANH (the chain shrinks like 1/sqrt(steps), so every step changes the bits)"));
  rows.push_back(alu_row<cat::MufuRcp>(
      "mufu_rcp", [](Rng& r, int) { return std::array<float, 3>{float(cat::uniform(r, 0.5, 2)), 0.0f, 0.0f}; },
      "SFU MUFU.RCP of -x (period two: a missed step flips which value ends the chain)"));
  rows.push_back(alu_row<CvtCount>(
      "cvt_f2i_i2f", [](Rng& r, int) { return std::array<float, 3>{small_int(r, 1000), 1.0f + small_int(r, 7), 0.0f}; },
      "conversion FADD + F2I + I2F per step (counts steps)"));
  rows.push_back(chase_row("lds", "lds_chase_kernel", reinterpret_cast<const void*>(&lds_chase_kernel<kChaseSlots>), "LDS", false, "shared-memory load LDS, a pointer chase"));
  rows.push_back(chase_row("ldg", "ldg_chase_stall_kernel",
                           reinterpret_cast<const void*>(&stall_classes::ldg_chase_stall_kernel), "LDG", true,
                           "global load LDG.E.64, a pointer chase over 8 KiB (L1 after the first lap)"));
  return rows;
}

void run_stall_class(ProbeContext& ctx, const ClassRow& row) {
  if (const auto off = sass::patching_disabled()) ctx.skip(*off);
  const sass::LocatedKernel k = sass::locate_own_kernel(ctx.device(), row.kernel_part);
  const ChainShape shape = find_chain(k);
  const bool barrier = chain_has_barrier(k, shape.runs);
  const int compiler_stall = k.control(shape.runs.front().first).stall;
  ctx.launched_by_name(k.name);

  Rng rng(std::random_device{}());
  const ClassInputs in = row.inputs(rng);
  const sass::LaunchJob job = chain_job(k, ctx.device().index, kThreads, in.x.data(), in.x.size(), in.args);

  // One batch: the code as compiled three times, then every stall with the waits kept and, for a
  // chain ptxas guards with a barrier, every stall with the waits removed. A chain ptxas left
  // without the yield flag is swept once more with the waits kept and yield set: with the waits
  // kept, stalls 1, 12 and 13 gave wrong results on the H200 only on such chains.
  constexpr int kUnpatched = 3;
  struct Point {
    int stall = -1;
    bool drop_waits = false;
    bool set_yield = false;
    nlohmann::json patch;
    std::size_t patched = 0;
  };
  // A quick run sweeps the removed waits from stall 15 down and stops at the first fault: without
  // its waits a load chain faults at every stall (a fresh child each, about a second after a
  // memory fault: three of them were 3.9 s of the 12-03b quick run's 61 s), and stall 15 failing
  // already says no stall up to 15 suffices; the full run sweeps all sixteen. It leaves out the
  // yield sweep, which explains wrong kept-wait stalls but feeds no metric.
  const bool compiler_yield = k.control(shape.runs.front().first).yield;
  const int quick_stop_after = ctx.quick() ? 1 : 0;
  std::vector<Point> points(kUnpatched);
  std::vector<std::string> groups(kUnpatched);
  std::vector<sass::Cubin> cubins;
  for (int sweep = 0; sweep < 3; ++sweep) {
    const bool drop = sweep == 1, yield = sweep == 2;
    if (drop && !barrier) continue;
    if (yield && (!barrier || compiler_yield || ctx.quick())) continue;
    for (int i = 0; i <= 15; ++i) {
      const int s = drop && ctx.quick() ? 15 - i : i;
      const sass::ControlPatch p = stall_patch(k, shape.runs, s, drop, yield);
      points.push_back({s, drop, yield, p.describe(), p.size()});
      groups.push_back(drop ? "waits removed" : yield ? "waits kept, yield set" : "waits kept");
      cubins.push_back(p.apply());
    }
  }
  std::vector<sass::PatchedLaunch> launches;
  for (std::size_t i = 0; i < points.size(); ++i)
    launches.push_back({i < kUnpatched ? &k.cubin : &cubins[i - kUnpatched], job, groups[i]});
  const std::vector<sass::LaunchOutcome> outcomes = sass::launch_batch_in_child(launches, 20, {}, quick_stop_after);

  std::vector<ChainResult> results;
  for (const auto& o : outcomes) results.push_back(read_chain_result(o));
  std::vector<double> latency, mhz;
  for (int i = 0; i < kUnpatched; ++i) {
    const ChainResult& r = results[i];
    if (!r.completed()) throw Error("the unpatched kernel did not run through the driver API: " + r.kind());
    if (const std::string why = in.host_mismatch(r.outcome.buffers.at(0)); !why.empty())
      throw Error("the unpatched chain is already wrong (" + why + "): the loading path or the inputs are broken");
    latency.push_back(r.fit.slope);
    mhz.push_back(r.clock_mhz);
  }
  const ChainResult& reference = results[0];

  std::vector<StallTrial> kept, no_wait, kept_yield;
  nlohmann::json table = nlohmann::json::array();
  std::string unwaited;
  int not_run = 0;
  for (std::size_t i = kUnpatched; i < points.size(); ++i) {
    const Point& p = points[i];
    const ChainResult& r = results[i];
    if (r.outcome.kind == sass::LaunchOutcome::Kind::NotRun) {  // the quick sweep stopped: not a trial
      ++not_run;
      table.push_back({{"stall", p.stall}, {"waits", p.drop_waits ? "removed" : "kept"},
                       {"yield", p.set_yield ? "set" : "as compiled"}, {"outcome", r.kind()}});
      continue;
    }
    const int wrong = wrong_lanes(r, reference, in.lane_bytes);
    (p.set_yield ? kept_yield : p.drop_waits ? no_wait : kept).push_back(stall_trial(p.stall, r, wrong));
    nlohmann::json t = {{"stall", p.stall},      {"waits", p.drop_waits ? "removed" : "kept"},
                        {"yield", p.set_yield ? "set" : "as compiled"},
                        {"outcome", r.kind()},   {"wrong_lanes", wrong},
                        {"cycles_per_step", r.fit.slope}, {"clock_mhz", r.clock_mhz},
                        {"patched_instructions", p.patched}, {"patch", p.patch.empty() ? nlohmann::json() : p.patch.at(0)}};
    if (in.steps_seen && r.completed()) {
      std::vector<int> seen;
      for (int lane = 0; lane < kThreads; ++lane) seen.push_back(in.steps_seen(r.outcome.buffers.at(0), lane));
      t["steps_seen_lane0"] = seen[0];
      t["read"] = unwaited_read(seen, kSteps);
      if (p.drop_waits && p.stall == 15) unwaited = t["read"].get<std::string>();
    }
    table.push_back(std::move(t));
  }
  const StallClassVerdict v = judge_stall_class(kept, no_wait, barrier, summarize(latency).median, shape.per_step);
  PatchEffect effect = patch_effect(kept, compiler_stall);
  // Without its waits a load chain may not even finish (a stale address faults): that shows the
  // edit reached the chip as well as a wrong value does.
  if (!effect.took)
    for (const auto& t : no_wait)
      if (!t.right()) {
        effect = {true, "with the waits removed, stall " + std::to_string(t.stall) +
                            (t.completed ? " gave wrong results" : " made the launch fail")};
        break;
      }

  ctx.extra()["class"] = row.name;
  ctx.extra()["arch"] = k.cubin.arch().name();
  ctx.extra()["kernel"] = k.name;
  ctx.extra()["chain"] = {{"period", shape.period}, {"instructions_per_step", shape.per_step},
                          {"first_instruction", shape.runs.front().first},
                          {"compiler_control", k.control(shape.runs.front().first + shape.period).to_string()},
                          {"compiler_write_barrier", barrier}};
  ctx.extra()["stall_sweep"] = table;
  if (not_run > 0) ctx.extra()["stall_points_not_run"] = not_run;
  ctx.extra()["compiler_yield"] = compiler_yield;
  ctx.extra()["wrong_stalls_waits_kept"] = wrong_stalls(kept);
  if (!kept_yield.empty()) ctx.extra()["wrong_stalls_waits_kept_yield_set"] = wrong_stalls(kept_yield);
  ctx.extra()["verdict"] = v.note;
  if (!unwaited.empty()) ctx.extra()["unwaited_read"] = unwaited;
  require_patch_effect(ctx, effect);

  ctx.set_observed_sm_clock_mhz(summarize(mhz).median, "clock64 over %globaltimer across the unpatched launches (child process)");
  ctx.metric("latency/chain_cycles", summarize(latency));
  ctx.metric("stall/compiler", double(compiler_stall));
  ctx.metric("stall/fixed_latency", v.fixed_latency ? 1.0 : 0.0);
  if (v.threshold >= 0) ctx.metric("stall/threshold", double(v.threshold));
  if (v.threshold_no_wait >= 0) ctx.metric("stall/threshold_no_wait", double(v.threshold_no_wait));
  if (v.fixed_latency) {
    ctx.metric("stall/cycles_per_stall", v.cycles_per_stall);
    ctx.metric("stall/threshold_minus_latency", double(v.threshold_no_wait) - v.chain_latency / shape.per_step);
  }
}

// The sweep with the compiler's waits kept (yield as compiled), as recorded: the trials and the
// upper words each patch wrote over the old ones.
struct RecordedSweep {
  std::vector<StallTrial> kept;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> words;  // old, new upper word
};
RecordedSweep recorded_sweep(const Record& r) {
  RecordedSweep out;
  for (const auto& t : r.extra.value("stall_sweep", nlohmann::json::array())) {
    if (t.value("waits", "") != "kept" || t.value("yield", "") != "as compiled" || !t.contains("wrong_lanes")) continue;
    out.kept.push_back({t.at("stall").get<int>(), t.value("outcome", "") == "completed", t.at("wrong_lanes").get<int>(),
                        t.value("cycles_per_step", 0.0)});
    if (t.contains("patch") && t["patch"].is_object())
      out.words.emplace_back(parse_word(t["patch"].at("old_hi").get<std::string>()), parse_word(t["patch"].at("new_hi").get<std::string>()));
  }
  return out;
}

// The linearity row's derived record: issue delay over the stall count fitted from the threshold
// up, what the stalls below it did, and the bits the stall patches changed, which the fit shows
// to be the stall field when the delay follows the count one cycle per count.
void summarize_stall_field(SummaryContext& sc) {
  for (const Record* r : sc.ok_records()) {
    if (r->derived || !r->metric("stall/threshold")) continue;
    const RecordedSweep sweep = recorded_sweep(*r);
    const int threshold = int(r->metric("stall/threshold")->value());
    const int period = r->extra.contains("chain") ? r->extra["chain"].value("instructions_per_step", 1) : 1;
    const StallLinearity lin = stall_linearity(sweep.kept, threshold, period);
    if (lin.fit.n < 3) continue;
    const std::string below = below_threshold_effect(sweep.kept, threshold, kThreads);
    const std::string bits = upper_bits_text(changed_upper_bits(sweep.words));
    char delay[160];
    std::snprintf(delay, sizeof delay, "%.3f cycles per count over stalls %d-%d, r2 %.5f", lin.fit.slope, lin.first,
                  lin.last, lin.fit.r2);
    const std::string field = lin.one_to_one && !bits.empty()
                                  ? bits + ": the stall patches changed these bits, and the issue delay followed them (" +
                                        delay + ")"
                                  : "undetermined: the patched bits (" + bits + ") did not move the delay 1:1 (" + delay + ")";
    Record& d = sc.derive({{"fit", std::string("stall_count")}}, {r});
    sc.add_metric(d, "stall/cycles_per_stall", single_value(lin.fit.slope));
    sc.add_metric(d, "stall/fit_r2", single_value(lin.fit.r2));
    d.extra["linearity"] = lin.text;
    d.extra["below_latency"] = below;
    d.extra["stall_field"] = field;
  }
}

// A quick run sweeps three rows that stand for the three kinds of chain: a fixed-latency ALU
// (FFMA, which also carries the stall field's linearity), a variable-latency unit behind a
// barrier (MUFU.RCP) and a memory load (LDS).
const char* const kQuickRows[] = {"ffma", "mufu_rcp", "lds"};

ProbeSpec stall_class_spec(const ClassRow& row) {
  ProbeSpec s;
  s.id = "sass.patch.stall." + row.name;
  s.description = "stall threshold of " + row.description + ", waits kept and removed (cubin patched, run in a child)";
  s.needs = row.needs;
  s.needs.min_cc = std::max(70, s.needs.min_cc);  // the control-word layout patched is Volta's and later
  s.sass = {expect_sass(row.kernel_glob, SassRegion::Clocked, row.expect)};
  s.metrics = {
      {"latency/chain_cycles", "cycles", "cycles per dependent step as compiled (chain-length slope, unpatched)"},
      {"stall/compiler", "cycles", "the stall ptxas wrote on the chain"},
      {"stall/fixed_latency", "bool", "1: some stall up to 15 keeps the chain right without any barrier wait"},
      {"stall/threshold", "cycles", "smallest stall right with the compiler's waits kept"},
      {"stall/threshold_no_wait", "cycles", "smallest stall right with the chain's waits removed"},
      {"stall/cycles_per_stall", "cycles", "extra cycles per instruction for each stall cycle above the threshold"},
      {"stall/threshold_minus_latency", "cycles", "threshold minus the measured latency per instruction (0: they agree)"},
      {"stall/fit_r2", "ratio", "r2 of the line of cycles per instruction over the stall count (derived, fit=stall_count)"}};
  if (row.covers_linearity) {
    const Params fit = {{"fit", std::string("stall_count")}};
    s.covers = {{"control.stall.linearity", "extra.linearity", fit},
                {"control.stall.below_latency", "extra.below_latency", fit},
                {"control.stall.field", "extra.stall_field", fit}};
    s.summarize = summarize_stall_field;
  }
  s.run = [row](ProbeContext& ctx) { run_stall_class(ctx, row); };
  // Not risky: every patched launch runs in launch_batch_in_child (a child with a watchdog).
  s.time_cap_s = 60;
  s.quick_time_cap_s = 30;
  if (std::find(std::begin(kQuickRows), std::end(kQuickRows), row.name) == std::end(kQuickRows))
    s.quick_leaves_out = "a quick run sweeps the FFMA, MUFU.RCP and LDS rows, one per kind of chain (fixed latency, "
                         "barrier-guarded unit, memory load); the other nine took 3.5 s of the 2026-12-04 quick run";
  return s;
}

const bool registered = [] {
  for (const ClassRow& row : class_rows()) ProbeRegistration{stall_class_spec(row)};
  return true;
}();

}  // namespace probe_stall_classes
}  // namespace gd
