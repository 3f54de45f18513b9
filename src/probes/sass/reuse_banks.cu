// Register banks and the operand reuse flag by patching FFMA source registers: two sources a
// fixed distance apart conflict when they share a bank (one read port each), which halves FFMA
// issue; the reuse flag serves the repeated operand from the reuse cache and should hide it.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "analysis/control_fields.hpp"
#include "analysis/control_study.hpp"
#include "core/registry.hpp"
#include "sass/disasm.hpp"
#include "patch_chains.cuh"

namespace gd {
namespace reuse_banks {

using namespace patch_chains;

constexpr int kAcc = 8;      // independent accumulators: more than the FFMA latency, so issue is the limit
constexpr int kUnroll = 16;  // steps per loop trip: 128 FFMAs, 2 KiB of code. Straight-line 960
                             // steps (124 KiB) ran at 7.8 cycles per FFMA on an H200: instruction fetch
constexpr int kTrips[] = {64, 128};  // two launches: cycles per FFMA is their difference

struct Acc {
  float v[kAcc];
};

// Eight independent FFMA chains in a loop, a and b per lane from memory so they sit in registers
// (a kernel parameter would become a constant-bank operand and the FFMAs would not be the
// R, R, R, R form the patch rewrites).
__global__ void ffma_bank_kernel(float* x_io, long long* cycles, unsigned long long* clock, int trips) {
  const float a = x_io[kThreads * kAcc + threadIdx.x], b = x_io[kThreads * (kAcc + 1) + threadIdx.x];
  Acc acc;
#pragma unroll
  for (int i = 0; i < kAcc; ++i) acc.v[i] = x_io[i * kThreads + threadIdx.x];
  if (a < 0.0f || b < 0.0f) cycles[0] = -1;
  const unsigned long long g0 = ptx::globaltimer_ns();
  const long long c0 = clock64();
#pragma unroll 1
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int s = 0; s < kUnroll; ++s) {
#pragma unroll
      for (int i = 0; i < kAcc; ++i) acc.v[i] = ptx::ffma(acc.v[i], a, b);
    }
  }
  const long long c1 = clock64();
  const unsigned long long g1 = ptx::globaltimer_ns();
#pragma unroll
  for (int i = 0; i < kAcc; ++i) x_io[i * kThreads + threadIdx.x] = acc.v[i];
  if (threadIdx.x == 0) {
    cycles[0] = c1 - c0;
    clock[0] = (unsigned long long)(c1 - c0);
    clock[1] = g1 - g0;
  }
}

}  // namespace reuse_banks

namespace probe_reuse_banks {

using namespace patch_chains;
using reuse_banks::kAcc;
using reuse_banks::kTrips;
using reuse_banks::kUnroll;

// FFMA R, R, R, R on Volta and later: opcode 0x223 in bits 0..11, registers in
// sass::RegisterFields (tests/sass/patch_experiment_test.cu pins both on ptxas output).
constexpr std::uint64_t kFfmaRegOpcode = 0x223;
constexpr int kRZ = sass::RegisterFields::kRZ;

// The loop body: runs of FFMA R, R, R, R (registers aside; ptxas puts the loop counter's
// instructions between them), kAcc * kUnroll FFMAs in all.
std::vector<sass::InstructionRun> bank_runs(const sass::LocatedKernel& k) {
  std::vector<sass::InstructionRun> runs;
  std::size_t total = 0;
  for (const auto& r : sass::periodic_runs(k.cubin, k.kernel(), 1, 4, true))
    if ((k.word(r.first).lo & 0xfff) == kFfmaRegOpcode) runs.push_back(r), total += r.count;
  if (total != std::size_t(kAcc * kUnroll))
    throw Error("expected " + std::to_string(kAcc * kUnroll) + " FFMAs in runs in " + k.name + ", found " +
                std::to_string(total) + " in " + std::to_string(runs.size()) + " runs");
  return runs;
}

// Cycles per FFMA from the launches of kTrips[0] and kTrips[1] trips (the fixed cost falls out),
// and the SM clock of the longer one.
struct BankTiming {
  bool ok = false;
  double cycles_per_ffma = 0, clock_mhz = 0;
  std::string why;
};
BankTiming bank_timing(const sass::LaunchOutcome& shorter, const sass::LaunchOutcome& longer) {
  BankTiming t;
  for (const auto* o : {&shorter, &longer})
    if (!o->completed()) {
      t.why = sass::to_string(o->kind) + ": " + o->message;
      return t;
    }
  long long c[2];
  std::memcpy(&c[0], shorter.buffers.at(1).data(), 8);
  std::memcpy(&c[1], longer.buffers.at(1).data(), 8);
  unsigned long long clk[2];
  std::memcpy(clk, longer.buffers.at(2).data(), sizeof clk);
  t.ok = true;
  t.cycles_per_ffma = double(c[1] - c[0]) / double((kTrips[1] - kTrips[0]) * kAcc * kUnroll);
  t.clock_mhz = clk[1] ? double(clk[0]) / double(clk[1]) * 1e3 : 0;
  return t;
}


// Every FFMA of the runs reads `ra`, `rb`, `rc` (its destination and control word kept, stall 1
// so that issue, not the stall, sets the pace); `reuse`: the reuse flag of slot a on each.
sass::ControlPatch source_patch(const sass::LocatedKernel& k, const std::vector<sass::InstructionRun>& runs, int ra,
                               int rb, int rc, bool reuse) {
  sass::ControlPatch p(k);
  for (const auto& r : runs)
    for (std::size_t i = r.first; i < r.first + r.count; ++i) {
      const sass::Instruction128 w = k.word(i);
      if ((w.lo & 0xfff) != kFfmaRegOpcode)
        throw Error("instruction " + std::to_string(i) + " of the FFMA run is not FFMA R, R, R, R (opcode " +
                    sass::hex64(w.lo & 0xfff) + ")");
      p.set_word(i, sass::RegisterFields::with_sources(w, ra, rb, rc));
      sass::ControlWord c = p.control(i);
      c.stall = 1;
      c.reuse = reuse ? 1 : 0;
      p.set_control(i, c);
    }
  return p;
}

// The first few instructions of the first run of `kernel` in each cubin as the disassembler prints
// them, or raw control words where none is installed: the SASS before and after a patch, for the
// record. One disassembler call for all of them, of that kernel only (a call per cubin, whole,
// was about a second of the probe).
std::vector<nlohmann::json> listings(const std::vector<const sass::Cubin*>& cubins, const std::string& kernel,
                                     std::size_t first, std::size_t n) {
  std::vector<nlohmann::json> out;
  for (const sass::Disassembly& d : sass::disassemble_all(cubins, [&](const sass::Kernel& k) { return k.name == kernel; })) {
    nlohmann::json lines = nlohmann::json::array();
    if (const auto it = d.kernels.find(kernel); it != d.kernels.end())
      for (std::size_t i = first; i < first + n && i < it->second.size(); ++i) {
        const auto& ins = it->second[i];
        lines.push_back(ins.control.to_string() + "  " + (d.has_text ? ins.text : sass::hex64(ins.raw.lo)));
      }
    out.push_back(std::move(lines));
  }
  return out;
}

void run_reuse_banks(ProbeContext& ctx) {
  if (const auto off = sass::patching_disabled()) ctx.skip(*off);
  const sass::LocatedKernel k = sass::locate_own_kernel(ctx.device(), "ffma_bank_kernel");
  const std::vector<sass::InstructionRun> runs = bank_runs(k);
  const int regs = k.kernel().info.registers;
  constexpr int kBase = 2, kMaxDistance = 8;
  if (regs >= 0 && regs <= kBase + 2 * kMaxDistance)
    throw Error("the bank kernel has " + std::to_string(regs) + " registers, too few to place sources up to R" +
                std::to_string(kBase + 2 * kMaxDistance));
  ctx.launched_by_name(k.name);

  std::mt19937 rng(std::random_device{}());
  std::vector<float> x(kThreads * (kAcc + 2));
  for (auto& v : x) v = float(rng() % 1000) / 1000.0f + 0.5f;
  std::vector<sass::LaunchJob> jobs;
  for (int trips : kTrips) jobs.push_back(chain_job(k, ctx.device().index, kThreads, x.data(), x.size() * 4, {sass::LaunchArg::of(trips)}));

  // Sources R2 and R2+d (third source RZ, or R2+2d), reuse of slot a off and on.
  struct Point {
    std::string sources;
    int distance;
    bool three, reuse;
    nlohmann::json patch;
  };
  std::vector<Point> points;
  std::vector<sass::Cubin> cubins;
  for (bool reuse : {false, true})
    for (bool three : {false, true})
      for (int d = 0; d <= kMaxDistance; ++d) {
        const int rc = three ? kBase + 2 * d : kRZ;
        const sass::ControlPatch p = source_patch(k, runs, kBase, kBase + d, rc, reuse);
        points.push_back({"R" + std::to_string(kBase) + ", R" + std::to_string(kBase + d) + ", " +
                              (three ? "R" + std::to_string(rc) : std::string("RZ")),
                          d, three, reuse, p.describe().at(0)});
        cubins.push_back(p.apply());
      }
  std::vector<sass::PatchedLaunch> launches;
  for (const auto& job : jobs) launches.push_back({&k.cubin, job});
  for (const auto& c : cubins)
    for (const auto& job : jobs) launches.push_back({&c, job});
  const auto outcomes = sass::launch_batch_in_child(launches, 20);

  const BankTiming unpatched = bank_timing(outcomes[0], outcomes[1]);
  if (!unpatched.ok) throw Error("the unpatched bank kernel failed: " + unpatched.why);
  std::vector<BankTrial> two, three;
  nlohmann::json table = nlohmann::json::array();
  double conflict_reuse_off = 0, conflict_reuse_on = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const BankTiming r = bank_timing(outcomes[2 + 2 * i], outcomes[3 + 2 * i]);
    const Point& p = points[i];
    const double c = r.ok ? r.cycles_per_ffma : 0;
    table.push_back({{"sources", p.sources}, {"distance", p.distance}, {"three_sources", p.three},
                     {"reuse_a", p.reuse}, {"outcome", r.ok ? "completed" : r.why}, {"cycles_per_ffma", c}, {"patch", p.patch}});
    if (!r.ok) continue;
    if (!p.reuse) (p.three ? three : two).push_back({p.distance, c});
  }
  const RegisterBanks banks = derive_register_banks(two);
  // The reuse flag's effect at the first conflicting distance, three sources.
  if (banks.banks > 0)
    for (const auto& t : table)
      if (t["distance"] == banks.banks && t["three_sources"] == true && t["outcome"] == "completed")
        (t["reuse_a"] == true ? conflict_reuse_on : conflict_reuse_off) = t["cycles_per_ffma"].get<double>();

  ctx.extra()["arch"] = k.cubin.arch().name();
  ctx.extra()["registers"] = regs;
  ctx.extra()["ffma_per_trip"] = kAcc * kUnroll;
  ctx.extra()["trials"] = table;
  ctx.extra()["banks"] = {{"count", banks.banks}, {"consistent", banks.consistent}, {"evidence", banks.evidence}};
  ctx.extra()["three_source_banks"] = derive_register_banks(three).evidence;
  // SASS before and after: as compiled, and three sources at the conflicting distance (2 when
  // none conflicted) without and with reuse.
  const std::size_t first = runs.front().first;
  const int shown = banks.banks > 0 ? banks.banks : 2;
  std::vector<const sass::Cubin*> listed = {&k.cubin};
  std::vector<std::string> keys = {"sass_before"};
  for (std::size_t i = 0; i < points.size(); ++i)
    if (points[i].distance == shown && points[i].three) {
      listed.push_back(&cubins[i]);
      keys.push_back(points[i].reuse ? "sass_after_reuse" : "sass_after_no_reuse");
    }
  const std::vector<nlohmann::json> shown_sass = listings(listed, k.name, first, 3);
  for (std::size_t i = 0; i < keys.size(); ++i) ctx.extra()[keys[i]] = shown_sass.at(i);
  ctx.set_observed_sm_clock_mhz(unpatched.clock_mhz, "clock64 over %globaltimer across the unpatched launch (child process)");
  ctx.metric("ffma/cycles_unpatched", unpatched.cycles_per_ffma);
  ctx.metric("ffma/cycles_no_conflict", banks.free_cycles);
  if (banks.banks > 0) {
    ctx.metric("registers/banks", double(banks.banks));
    ctx.metric("ffma/cycles_bank_conflict", banks.conflict_cycles);
  }
  if (banks.banks == 0) ctx.extra()["finding"] = "no register-bank conflict showed: " + banks.evidence;
  if (conflict_reuse_off > 0 && conflict_reuse_on > 0) {
    ctx.metric("ffma/cycles_conflict_reuse_off", conflict_reuse_off);
    ctx.metric("ffma/cycles_conflict_reuse_on", conflict_reuse_on);
  }
  // No conflict is a finding (a chip without visible banks), recorded with its table, not a failure.
}

// The reuse flag: the bit that differs between the reuse-on and reuse-off patches at the
// conflicting distance with three sources, and the timing each gave.
void summarize_reuse_banks(SummaryContext& sc) {
  for (const Record* r : sc.ok_records()) {
    const Metric* banks = r->metric("registers/banks");
    if (r->derived || !banks) continue;
    const nlohmann::json* on = nullptr;
    const nlohmann::json* off = nullptr;
    if (!r->extra.contains("trials")) continue;
    for (const auto& t : r->extra["trials"])
      if (t.value("distance", -1) == int(banks->value()) && t.value("three_sources", false) &&
          t.value("outcome", "") == "completed" && t.contains("patch"))
        (t.value("reuse_a", false) ? on : off) = &t;
    if (!on || !off) continue;
    const std::string field = reuse_field_effect(
        parse_word((*on)["patch"].at("new_hi").get<std::string>()), parse_word((*off)["patch"].at("new_hi").get<std::string>()),
        (*on)["cycles_per_ffma"].get<double>(), (*off)["cycles_per_ffma"].get<double>());
    sc.derive({{"field", std::string("reuse")}}, {r}).extra["reuse_field"] = field;
  }
}

ProbeSpec reuse_banks_spec() {
  ProbeSpec s;
  s.id = "sass.patch.reuse_banks";
  s.description = "register-bank count and the operand reuse flag, by patching FFMA source registers (run in a child)";
  s.needs.min_cc = 70;
  s.sass = {expect_sass("*ffma_bank_kernel*", SassRegion::Clocked, {{"FFMA", kAcc * kUnroll, kAcc * kUnroll}})};
  s.metrics = {{"registers/banks", "count", "smallest register distance whose two sources conflict (index mod banks)"},
               {"ffma/cycles_unpatched", "cycles", "cycles per FFMA issue as compiled, one warp, 8 independent chains (loop of 128)"},
               {"ffma/cycles_no_conflict", "cycles", "cycles per FFMA with sources in different banks"},
               {"ffma/cycles_bank_conflict", "cycles", "cycles per FFMA with two sources in one bank"},
               {"ffma/cycles_conflict_reuse_off", "cycles", "three sources in one bank, reuse flags cleared"},
               {"ffma/cycles_conflict_reuse_on", "cycles", "three sources in one bank, reuse flag set on slot a"}};
  s.run = run_reuse_banks;
  s.summarize = summarize_reuse_banks;
  s.covers = {{"control.reuse.field", "extra.reuse_field", {{"field", std::string("reuse")}}}};
  // Not risky: every patched launch runs in launch_batch_in_child (a child with a watchdog).
  s.time_cap_s = 60;
  s.quick_time_cap_s = 30;
  return s;
}

GD_REGISTER_PROBE(reuse_banks_spec());

}  // namespace probe_reuse_banks
}  // namespace gd
