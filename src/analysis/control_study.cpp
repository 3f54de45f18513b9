#include "analysis/control_study.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gd {

namespace {

std::string fmt(const char* f, double a, double b = 0, double c = 0) {
  char buf[200];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

}  // namespace

LineFit stall_cost(const std::vector<StallTrial>& trials, int threshold, int period) {
  std::vector<std::pair<double, double>> xy;
  for (const auto& t : trials)
    if (threshold >= 0 && t.stall >= threshold && t.right() && std::isfinite(t.cycles_per_step))
      xy.emplace_back(t.stall, t.cycles_per_step / std::max(1, period));
  std::sort(xy.begin(), xy.end());
  if (xy.size() < 2 || xy.front().first == xy.back().first) return {};
  std::vector<double> x, y;
  for (auto [a, b] : xy) x.push_back(a), y.push_back(b);
  return fit_line(x, y);
}

StallClassVerdict judge_stall_class(const std::vector<StallTrial>& kept, const std::vector<StallTrial>& no_wait,
                                    bool compiler_barrier, double chain_latency, int period) {
  StallClassVerdict v;
  period = std::max(1, period);
  v.chain_latency = chain_latency;
  v.threshold = stall_threshold(kept);
  v.threshold_no_wait = no_wait.empty() ? v.threshold : stall_threshold(no_wait);
  v.fixed_latency = v.threshold_no_wait >= 0;
  v.cycles_per_stall = stall_cost(no_wait.empty() ? kept : no_wait, v.threshold_no_wait, period).slope;
  const double per_instruction = chain_latency / period;
  if (!v.fixed_latency) {
    v.note = compiler_barrier
                 ? "needs a scoreboard: without the wait no stall up to 15 gives right results; the chain is " +
                       fmt("%.1f cycles per step", chain_latency)
                 : "no stall up to 15 gives right results although ptxas set no barrier";
    // A stall that corrupts results although the wait is still there: the wait is not all.
    std::string wrong;
    for (const auto& t : kept)
      if (!t.right()) wrong += (wrong.empty() ? "" : ", ") + std::to_string(t.stall);
    if (!wrong.empty()) v.note += "; with the waits kept, stall " + wrong + " still gave wrong results";
    return v;
  }
  const long rounded = std::lround(per_instruction);
  v.agrees = std::abs(per_instruction - double(rounded)) <= 0.15 && v.threshold_no_wait == rounded;
  if (v.agrees) {
    v.note = fmt("fixed latency: stall %.0f is the threshold and the chain takes %.2f cycles per instruction",
                 v.threshold_no_wait, per_instruction);
  } else if (period > 1) {
    v.note = fmt("fixed latency, several instructions per step: one stall on all of them must cover the slowest "
                 "(threshold %.0f), the chain is %.2f cycles per step (%.2f per instruction on average)",
                 v.threshold_no_wait, chain_latency, per_instruction);
  } else if (v.threshold_no_wait > rounded) {
    v.note = fmt("threshold %.0f is above the chain latency %.2f: the stall also covers a register-file or "
                 "bypass cost the back-to-back chain hides",
                 v.threshold_no_wait, per_instruction);
  } else {
    v.note = fmt("threshold %.0f is below the chain latency %.2f: the chain pays more than the stall per step "
                 "(an issue limit or a dual-issue constraint), the result is ready earlier",
                 v.threshold_no_wait, per_instruction);
  }
  if (compiler_barrier) v.note += "; ptxas nevertheless set a write barrier on it";
  return v;
}

std::vector<int> wrong_stalls(const std::vector<StallTrial>& trials) {
  std::vector<int> out;
  for (const StallTrial& t : trials)
    if (!t.right()) out.push_back(t.stall);
  std::sort(out.begin(), out.end());
  return out;
}

int chase_steps_seen(const std::vector<std::uint32_t>& next, std::uint32_t start, std::uint32_t end, int max_steps) {
  std::uint32_t x = start;
  for (int k = 0; k <= max_steps; ++k) {
    if (x == end) return k;
    if (x >= next.size()) return -1;
    x = next[x];
  }
  return -1;
}

std::string unwaited_read(const std::vector<int>& seen, int steps) {
  if (seen.empty()) return "no lanes";
  bool all = true;
  for (int s : seen) {
    if (s < 0) return "wrong";
    all = all && s == steps;
  }
  return all ? "interlocked" : "stale";
}

RegisterBanks derive_register_banks(const std::vector<BankTrial>& trials, double factor) {
  RegisterBanks b;
  if (trials.empty()) {
    b.evidence = "no trials";
    return b;
  }
  double lo = trials.front().cycles, hi = lo;
  for (const auto& t : trials) lo = std::min(lo, t.cycles), hi = std::max(hi, t.cycles);
  auto conflicts = [&](const BankTrial& t) { return t.cycles > factor * lo; };
  int first = 0;
  for (const auto& t : trials)
    if (t.distance > 0 && conflicts(t) && (first == 0 || t.distance < first)) first = t.distance;
  b.free_cycles = lo;
  b.conflict_cycles = hi;
  if (first == 0) {
    b.evidence = fmt("no distance cost more than %.2fx the cheapest (%.2f cycles)", factor, lo);
    return b;
  }
  b.banks = first;
  b.consistent = true;
  double conflict_sum = 0;
  int n_conflict = 0;
  for (const auto& t : trials) {
    if (t.distance <= 0) continue;
    const bool expect = t.distance % first == 0;
    if (conflicts(t) != expect) b.consistent = false;
    if (conflicts(t)) conflict_sum += t.cycles, ++n_conflict;
  }
  b.conflict_cycles = n_conflict ? conflict_sum / n_conflict : hi;
  b.evidence = fmt("distance %.0f is the first to conflict: %.2f vs %.2f cycles per instruction", first,
                   b.conflict_cycles, lo);
  if (!b.consistent) b.evidence += "; but the conflicts are not exactly the multiples of it";
  return b;
}

}  // namespace gd
