#include "analysis/control_fields.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "analysis/control_study.hpp"

namespace gd {

namespace {

std::string list_text(const std::vector<int>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

std::uint64_t changed_upper_bits(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& old_new_hi) {
  std::uint64_t m = 0;
  for (const auto& [a, b] : old_new_hi) m |= a ^ b;
  return m;
}

std::string instruction_bits_text(std::uint64_t lo, std::uint64_t hi) {
  const auto bit = [&](int i) { return ((i < 64 ? lo >> i : hi >> (i - 64)) & 1) != 0; };
  std::string out;
  int total = 0;
  for (int i = 0; i < 128;) {
    if (!bit(i)) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 128 && bit(j)) ++j;
    const int last = j - 1;
    char buf[112];
    const char* word = i >= 64 ? "upper" : "lower";
    const int off = i >= 64 ? 64 : 0;
    if (i < 64 && last >= 64)
      std::snprintf(buf, sizeof buf, "instruction bits %d-%d (across both 64-bit words)", i, last);
    else if (i == last)
      std::snprintf(buf, sizeof buf, "instruction bit %d (%s word [%d])", i, word, i - off);
    else
      std::snprintf(buf, sizeof buf, "instruction bits %d-%d (%s word [%d:%d])", i, last, word, last - off, i - off);
    out += (out.empty() ? "" : " and ") + std::string(buf);
    total += j - i;
    i = j;
  }
  if (out.empty()) return out;
  return out + ", " + std::to_string(total) + (total == 1 ? " bit" : " bits");
}

std::string upper_bits_text(std::uint64_t mask) { return instruction_bits_text(0, mask); }

std::uint64_t parse_word(const std::string& hex) {
  std::size_t used = 0;
  const std::uint64_t v = std::stoull(hex, &used, 16);
  if (used != hex.size()) throw std::invalid_argument("not a hexadecimal word: " + hex);
  return v;
}

StallLinearity stall_linearity(const std::vector<StallTrial>& kept, int threshold, int period) {
  StallLinearity s;
  for (const auto& t : kept)
    if (threshold >= 0 && t.stall >= threshold && t.right()) {
      s.first = s.first < 0 ? t.stall : std::min(s.first, t.stall);
      s.last = std::max(s.last, t.stall);
    }
  s.fit = stall_cost(kept, threshold, period);
  if (s.fit.n < 3) {
    s.text = "undetermined: fewer than three right stalls from the threshold up to fit";
    return s;
  }
  s.one_to_one = std::abs(s.fit.slope - 1.0) <= 0.05 && s.fit.r2 >= 0.999;
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s: %.3f cycles per stall count over stalls %d-%d (r2 %.5f, %zu stalls)",
                s.one_to_one ? "1:1 linear" : "not 1:1", s.fit.slope, s.first, s.last, s.fit.r2, s.fit.n);
  s.text = buf;
  return s;
}

std::string below_threshold_effect(const std::vector<StallTrial>& kept, int threshold, int lanes) {
  std::vector<int> wrong, failed, right;
  int most_wrong = 0;
  for (const auto& t : kept) {
    if (threshold < 0 || t.stall >= threshold) continue;
    if (!t.completed) failed.push_back(t.stall);
    else if (t.wrong_lanes > 0) wrong.push_back(t.stall), most_wrong = std::max(most_wrong, t.wrong_lanes);
    else right.push_back(t.stall);
  }
  std::sort(wrong.begin(), wrong.end());
  std::sort(failed.begin(), failed.end());
  std::sort(right.begin(), right.end());
  if (wrong.empty() && failed.empty() && right.empty())
    return "undetermined: no stall between 1 and the threshold was tried";
  std::string s;
  if (!wrong.empty())
    s = "silent corruption: stall " + list_text(wrong) + " (below the threshold " + std::to_string(threshold) +
        ") ran to completion with wrong results in up to " + std::to_string(most_wrong) + " of " +
        std::to_string(lanes) + " lanes (a stale register read, no fault)";
  if (!failed.empty()) s += (s.empty() ? "" : "; ") + std::string("stall ") + list_text(failed) + " made the launch fail";
  if (!right.empty()) s += (s.empty() ? "" : "; ") + std::string("stall ") + list_text(right) + " was still right";
  if (wrong.empty() && failed.empty()) s = "interlocked: " + s;
  return s;
}

std::string yield_field_effect(std::uint64_t set_hi, std::uint64_t cleared_hi, const std::vector<YieldTrial>& trials) {
  const std::uint64_t mask = set_hi ^ cleared_hi;
  const std::string bits = upper_bits_text(mask);
  if (mask == 0 || (mask & (mask - 1)) != 0)
    return "undetermined: the set and cleared patches differ in " + (bits.empty() ? std::string("no bit") : bits);
  int best_warps = 0;
  double best_set = 0, best_cleared = 0, best_change = 0;
  for (const auto& s : trials) {
    if (!s.yield || s.cycles_per_step <= 0) continue;
    for (const auto& c : trials) {
      if (c.yield || c.warps != s.warps || c.cycles_per_step <= 0) continue;
      const double change = std::abs(s.cycles_per_step - c.cycles_per_step) / std::min(s.cycles_per_step, c.cycles_per_step);
      if (change > best_change) best_change = change, best_warps = s.warps, best_set = s.cycles_per_step, best_cleared = c.cycles_per_step;
    }
  }
  const bool inverted = (set_hi & mask) == 0;
  const std::string field = bits + (inverted ? ", stored inverted (0 = yield)" : " (1 = yield)");
  if (best_change <= 0.05) return "undetermined: flipping " + field + " moved no timing by more than 5 %";
  char buf[200];
  std::snprintf(buf, sizeof buf, ": flipping it changed warp 0's time per step at %d warps from %.2f (cleared) to %.2f (set) cycles",
                best_warps, best_cleared, best_set);
  return field + buf;
}

std::string reuse_field_effect(std::uint64_t on_hi, std::uint64_t off_hi, double cycles_on, double cycles_off) {
  const std::uint64_t mask = on_hi ^ off_hi;
  const std::string bits = upper_bits_text(mask);
  if (mask == 0 || (mask & (mask - 1)) != 0)
    return "undetermined: the reuse-on and reuse-off patches differ in " + (bits.empty() ? std::string("no bit") : bits);
  if (!(cycles_on > 0) || !(cycles_off > 0)) return "undetermined: no timing with the flag both set and cleared";
  char buf[200];
  const double saving = 1.0 - cycles_on / cycles_off;
  if (std::abs(saving) <= 0.05)
    std::snprintf(buf, sizeof buf, ": no effect, %.2f cycles per instruction with it set, %.2f cleared", cycles_on, cycles_off);
  else
    std::snprintf(buf, sizeof buf, ": setting it changed a three-source bank conflict from %.2f to %.2f cycles per instruction (%.0f %% %s)",
                  cycles_off, cycles_on, std::abs(saving) * 100, saving > 0 ? "faster" : "slower");
  return bits + (on_hi & mask ? " (1 = reuse)" : " (0 = reuse)") + buf;
}

std::string field_effect(std::uint64_t upper_bits, const std::vector<FieldTrial>& trials) {
  const std::string bits = upper_bits_text(upper_bits);
  std::string right, broke, how;
  for (const auto& t : trials) {
    std::string& list = t.right ? right : broke;
    list += (list.empty() ? "" : ", ") + t.setting;
    if (!t.right && how.empty()) how = t.outcome;
  }
  if (bits.empty()) return "undetermined: no patch changed this field alone";
  if (right.empty() || broke.empty())
    return "undetermined: " + bits + " patched, but no setting " + (right.empty() ? "kept the chain right" : "broke it");
  return bits + " changed by the patches: the chain stayed right with " + right + "; it broke with " + broke + " (" +
         how + ")";
}

}  // namespace gd
