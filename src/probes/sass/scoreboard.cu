// Scoreboards by cubin patching: which of the six dependency barriers can guard a load, which
// barrier guards which operand (one wait removed at a time), and that a patched kernel that hangs
// is killed by the watchdog while the launches around it stay intact.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "analysis/control_fields.hpp"
#include "analysis/control_study.hpp"
#include "core/registry.hpp"
#include "patch_chains.cuh"

namespace gd {
namespace scoreboard {

using namespace patch_chains;

struct Pair {
  std::uint32_t u, v;
};

// Two independent shared-memory chases interleaved: LDS u, [u]; LDS v, [v]; ... (period two), so
// one consumer's wait can be taken from one chain and not the other.
__global__ void lds_two_chase_kernel(std::uint32_t* x_io, long long* cycles, unsigned long long* clock,
                                     const std::uint32_t* next) {
  __shared__ std::uint32_t slots[kChaseSlots];
  const std::uint32_t base = fill_chase_slots(slots, next);
  Pair p{base + 4 * x_io[threadIdx.x], base + 4 * x_io[kThreads + threadIdx.x]};
  p = timed_regions(p, [](Pair q) { return Pair{ptx::ld_shared_u32(q.u), ptx::ld_shared_u32(q.v)}; }, cycles, clock);
  x_io[threadIdx.x] = (p.u - base) / 4;
  x_io[kThreads + threadIdx.x] = (p.v - base) / 4;
}

}  // namespace scoreboard

namespace probe_scoreboard {

using namespace patch_chains;
using Rng = std::mt19937_64;

std::vector<std::uint32_t> random_cycle(Rng& rng) {
  std::vector<std::uint32_t> perm(kChaseSlots), next(kChaseSlots);
  std::iota(perm.begin(), perm.end(), 0u);
  for (std::size_t i = perm.size() - 1; i > 0; --i) std::swap(perm[i], perm[rng() % i]);
  for (std::size_t i = 0; i < perm.size(); ++i) next[perm[i]] = perm[(i + 1) % perm.size()];
  return next;
}

// The chase's result per lane and chain: "right", "stale" (fewer steps) or "wrong".
std::string chase_read(const ChainResult& r, const std::vector<std::uint32_t>& next,
                       const std::vector<std::uint32_t>& x0, int chain) {
  if (!r.completed()) return r.kind();
  std::vector<int> seen;
  for (int lane = 0; lane < kThreads; ++lane) {
    std::uint32_t end;
    std::memcpy(&end, r.outcome.buffers.at(0).data() + 4 * (chain * kThreads + lane), 4);
    seen.push_back(chase_steps_seen(next, x0[chain * kThreads + lane], end, kSteps));
  }
  const std::string s = unwaited_read(seen, kSteps);
  return s == "interlocked" ? "right" : s;
}

// The write barriers ptxas put on the chain's instructions (it may use more than one).
std::vector<int> chain_barriers(const sass::LocatedKernel& k, const ChainShape& shape) {
  std::vector<int> b;
  for (const auto& r : shape.runs)
    for (std::size_t i = r.first; i < r.first + r.count; ++i) {
      const int w = k.control(i).write_barrier;
      if (w < 6 && std::find(b.begin(), b.end(), w) == b.end()) b.push_back(w);
    }
  return b;
}

// Splits the two chains onto barriers 0 (chain A, the run's even loads) and 1 (chain B, the odd
// ones): everything the compiler guarded with a chain barrier first moves to 0, what waited on it
// outside the chain waits on both, then in the chain A waits on 0 and B on 1. `drop`: the chain
// (0 A, 1 B) whose waits are removed, or -1. Throws unless each load reads the address the load
// two before it wrote (the two chases alternate).
sass::ControlPatch split_barriers(const sass::LocatedKernel& k, const ChainShape& shape, const std::vector<int>& compiled,
                                  int drop) {
  for (const auto& r : shape.runs)
    for (std::size_t i = r.first + 2; i < r.first + r.count; ++i)
      if (sass::RegisterFields::ra(k.word(i)) != sass::RegisterFields::rd(k.word(i - 2)))
        throw Error("the two chases do not alternate: instruction " + std::to_string(i) + " does not read R" +
                    std::to_string(sass::RegisterFields::rd(k.word(i - 2))));
  sass::ControlPatch p(k);
  for (int c : compiled)
    if (c != 0) p.rename_barrier(c, 0);
  std::vector<bool> in_chain(k.size(), false);
  for (const auto& r : shape.runs)
    for (std::size_t i = r.first; i < r.first + r.count; ++i) in_chain[i] = true;
  for (std::size_t i = 0; i < k.size(); ++i) {
    sass::ControlWord w = p.control(i);
    if (!in_chain[i]) {
      if (w.wait_mask & 1u) w.wait_mask |= 2u;
      if (w.write_barrier == 1) w.write_barrier = 0;  // barrier 1 is the v chain's alone
      if (w.read_barrier == 1) w.read_barrier = 0;
      if (w.wait_mask & 2u) w.wait_mask |= 1u;
      p.set_control(i, w);
    }
  }
  for (const auto& r : shape.runs)
    for (std::size_t i = r.first; i < r.first + r.count; ++i) {
      const int chain = int((i - r.first) % 2);
      sass::ControlWord w = p.control(i);
      w.write_barrier = chain;
      // The first pair waits on what came before the run, and on both barriers.
      if (i < r.first + 2) w.wait_mask |= 3u;
      else w.wait_mask = std::uint8_t(drop == chain ? 0u : 1u << chain);
      p.set_control(i, w);
    }
  return p;
}

void run_scoreboard(ProbeContext& ctx) {
  if (const auto off = sass::patching_disabled()) ctx.skip(*off);
  const sass::LocatedKernel one = sass::locate_own_kernel(ctx.device(), "lds_chase_kernel");
  const sass::LocatedKernel two = sass::locate_own_kernel(ctx.device(), "lds_two_chase_kernel");
  const ChainShape one_shape = find_chain(one);
  const ChainShape two_shape = find_chain(two, 2);
  const std::vector<int> barriers = chain_barriers(one, one_shape), barriers_two = chain_barriers(two, two_shape);
  if (barriers.empty() || barriers_two.empty()) throw Error("ptxas set no write barrier on the shared-memory chase");
  const auto self_branch = sass::self_branch_index(one);
  ctx.launched_by_name(one.name);
  ctx.launched_by_name(two.name);

  Rng rng(std::random_device{}());
  const std::vector<std::uint32_t> next = random_cycle(rng);
  std::vector<std::uint32_t> x0(2 * kThreads);
  for (auto& v : x0) v = std::uint32_t(rng() % kChaseSlots);
  auto job_for = [&](const sass::LocatedKernel& k, std::size_t lanes) {
    return chain_job(k, ctx.device().index, kThreads, x0.data(), lanes * 4,
                     {sass::LaunchArg::device_buffer(next.data(), next.size() * 4)});
  };
  const sass::LaunchJob job_one = job_for(one, kThreads), job_two = job_for(two, 2 * kThreads);

  struct Point {
    std::string experiment;
    std::string setting;
    bool two_chains = false;
    nlohmann::json patch;
  };
  std::vector<Point> points;
  std::vector<sass::Cubin> cubins;
  cubins.reserve(16);
  std::vector<int> cubin_of;  // -1: unpatched
  auto add = [&](Point p, const sass::ControlPatch* patch) {
    if (patch) {
      p.patch = patch->describe();
      cubins.push_back(patch->apply());
    }
    cubin_of.push_back(patch ? int(cubins.size()) - 1 : -1);
    points.push_back(std::move(p));
  };
  add({"unpatched", "one chase", false, {}}, nullptr);
  add({"unpatched", "two chases", true, {}}, nullptr);
  // Every barrier index in turn guards the chase (7 is "none"; 6 has no wait bit), the rest of
  // the kernel keeping its own.
  for (int b = 0; b <= 7; ++b) {
    const sass::ControlPatch p = rename_chain_barriers(one, one_shape, barriers, b);
    add({"barrier", std::to_string(b), false, {}}, &p);
  }
  for (int drop : {-1, 0, 1}) {
    const sass::ControlPatch p = split_barriers(two, two_shape, barriers_two, drop);
    add({"wait_removed", drop < 0 ? "none" : drop == 0 ? "chain A (barrier 0)" : "chain B (barrier 1)", true, {}}, &p);
  }
  std::vector<sass::PatchedLaunch> launches;
  for (std::size_t i = 0; i < points.size(); ++i)
    launches.push_back({cubin_of[i] < 0 ? (points[i].two_chains ? &two.cubin : &one.cubin) : &cubins[cubin_of[i]],
                        points[i].two_chains ? job_two : job_one});
  const auto outcomes = sass::launch_batch_in_child(launches, 20);

  nlohmann::json table = nlohmann::json::array();
  int usable = 0;
  std::vector<double> mhz;
  std::string attribution;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const ChainResult r = read_chain_result(outcomes[i]);
    const Point& p = points[i];
    nlohmann::json t = {{"experiment", p.experiment}, {"setting", p.setting}, {"outcome", r.kind()},
                        {"cycles_per_step", r.fit.slope}, {"patch", p.patch}};
    const std::string u = chase_read(r, next, x0, 0);
    t[p.two_chains ? "u" : "read"] = u;
    std::string v;
    if (p.two_chains) t["v"] = v = chase_read(r, next, x0, 1);
    if (p.experiment == "unpatched") {
      if (u != "right" || (p.two_chains && v != "right"))
        throw Error("the unpatched chase is already wrong (" + r.kind() + "): the loading path is broken");
      mhz.push_back(r.clock_mhz);
      ctx.metric(p.two_chains ? "latency/two_chase_cycles_per_step" : "latency/lds_chase_cycles", r.fit.slope);
    }
    if (p.experiment == "barrier" && u == "right" && std::stoi(p.setting) <= 5) ++usable;
    if (p.experiment == "wait_removed") attribution += p.setting + " -> u " + u + ", v " + v + "; ";
    table.push_back(std::move(t));
  }

  // The hang: one chase instruction replaced by the kernel's own branch-to-self, launched between
  // two healthy launches under a short watchdog.
  // A quick run leaves it out: its watchdog wait is the whole cost of the hang (2.4 s of the 12-03b
  // quick run's 61 s) and it feeds no headline.
  if (self_branch && !ctx.quick()) {
    // The child's first launch (its CUDA context included) answers within a second. Under
    // compute-sanitizer (single-sample runs) the child's context and instrumented launches take
    // seconds each, and a native-speed watchdog would kill the healthy launches next to the hung one.
    const double kWatchdog = ctx.single_sample() ? 30 : 4;
    sass::ControlPatch hang(one);
    hang.set_word(one_shape.runs.front().first + 1, one.word(*self_branch));
    const sass::Cubin hung = hang.apply();
    const auto t0 = std::chrono::steady_clock::now();
    const auto o = sass::launch_batch_in_child({{&one.cubin, job_one}, {&hung, job_one}, {&one.cubin, job_one}}, kWatchdog);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const ChainResult before = read_chain_result(o[0]), after = read_chain_result(o[2]);
    const std::string b = chase_read(before, next, x0, 0), a = chase_read(after, next, x0, 0);
    ctx.extra()["hang"] = {{"patch", hang.describe()},  {"outcome", sass::to_string(o[1].kind)},
                           {"reason", o[1].message},    {"watchdog_s", kWatchdog},
                           {"batch_seconds", seconds},  {"launch_before", b},
                           {"launch_after", a}};
    if (o[1].kind != sass::LaunchOutcome::Kind::TimedOut)
      throw Error("the self-branch patch did not hang (" + sass::to_string(o[1].kind) + ": " + o[1].message + ")");
    if (b != "right" || a != "right")
      throw Error("a launch next to the hung one was lost: before " + b + ", after " + a);
    ctx.metric("watchdog/hang_batch_s", seconds);
  } else {
    ctx.extra()["hang"] = self_branch ? "a quick run leaves the hang experiment out (its watchdog wait is most of its time)"
                                      : "no branch-to-self word in the kernel: the hang experiment did not run";
  }

  ctx.extra()["arch"] = one.cubin.arch().name();
  ctx.extra()["compiled_barriers"] = {{"one_chase", barriers}, {"two_chases", barriers_two}};
  ctx.extra()["experiments"] = table;
  ctx.extra()["wait_attribution"] = attribution;
  ctx.set_observed_sm_clock_mhz(summarize(mhz).median, "clock64 over %globaltimer across the unpatched launches (child process)");
  ctx.metric("scoreboard/usable_barriers", double(usable));
}

// The write-barrier field and the wait mask: the bits the experiments' patches changed when they
// changed that field alone (decoded from the control words they record), and what the settings
// did to the chase (barriers 0-5 guard it, 6 and 7 are none; removing a chain's wait breaks it).
void summarize_scoreboard_fields(SummaryContext& sc) {
  for (const Record* r : sc.ok_records()) {
    if (r->derived || !r->extra.contains("experiments")) continue;
    std::uint64_t write_bits = 0, wait_bits = 0;
    std::vector<FieldTrial> write, wait;
    for (const auto& e : r->extra["experiments"]) {
      const std::string kind = e.value("experiment", ""), setting = e.value("setting", "");
      if (kind != "barrier" && kind != "wait_removed") continue;
      const bool write_edit = kind == "barrier";
      if (e.contains("patch") && e["patch"].is_array())
        for (const auto& p : e["patch"]) {
          const auto a = sass::ControlWord::parse(p.value("old", "")), b = sass::ControlWord::parse(p.value("new", ""));
          if (!a || !b || *a == *b) continue;
          sass::ControlWord only = *a;
          if (write_edit) only.write_barrier = b->write_barrier;
          else only.wait_mask = b->wait_mask;
          if (only == *b)
            (write_edit ? write_bits : wait_bits) |= parse_word(p.at("old_hi").get<std::string>()) ^ parse_word(p.at("new_hi").get<std::string>());
        }
      const std::string read = e.value("read", e.value("u", ""));
      const bool right = e.value("outcome", "") == "completed" && read == "right" && e.value("v", "right") == "right";
      if (write_edit) write.push_back({"write barrier " + setting, right, e.value("outcome", "")});
      else wait.push_back({"waits removed: " + setting, right, e.value("outcome", "")});
    }
    const std::string write_field = field_effect(write_bits, write), wait_field = field_effect(wait_bits, wait);
    Record& d = sc.derive({{"fields", std::string("barriers")}}, {r});
    d.extra["write_barrier_field"] = write_field;
    d.extra["wait_mask_field"] = wait_field;
  }
}

ProbeSpec scoreboard_spec() {
  ProbeSpec s;
  s.id = "sass.patch.scoreboard";
  s.description = "dependency barriers by patching a shared-memory chase: usable indices, which wait guards which "
                  "operand, and a hanging patch under the watchdog";
  s.needs.min_cc = 70;
  s.sass = {expect_sass("*lds_chase_kernel*", SassRegion::Clocked, {{"LDS", kSteps, kSteps}}),
            expect_sass("*lds_two_chase_kernel*", SassRegion::Clocked, {{"LDS", 2 * kSteps, 2 * kSteps}})};
  s.metrics = {{"scoreboard/usable_barriers", "count", "barrier indices (0..5) that keep a load chain right when renamed to"},
               {"latency/lds_chase_cycles", "cycles", "cycles per step of the one-chain LDS chase, unpatched"},
               {"latency/two_chase_cycles_per_step", "cycles", "cycles per step of the two interleaved chases, unpatched"},
               {"watchdog/hang_batch_s", "s", "wall time of the batch around the hanging patch (watchdog 4 s, single-sample 30 s: extra.hang.watchdog_s; a quick run leaves it out)"}};
  s.covers = {{"control.scoreboard.count", "scoreboard/usable_barriers", {}},
              {"control.write_sb.field", "extra.write_barrier_field", {{"fields", std::string("barriers")}}},
              {"control.wait_mask.field", "extra.wait_mask_field", {{"fields", std::string("barriers")}}}};
  s.summarize = summarize_scoreboard_fields;
  s.run = run_scoreboard;
  // Not risky: every patched launch runs in launch_batch_in_child (a child with a watchdog).
  s.time_cap_s = 60;
  s.quick_time_cap_s = 40;
  return s;
}

GD_REGISTER_PROBE(scoreboard_spec());


}  // namespace probe_scoreboard
}  // namespace gd
