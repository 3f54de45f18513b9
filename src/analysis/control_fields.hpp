// Reading a control-field patch from what the experiment recorded: which instruction bits the
// patch changed (the old and new upper 64-bit words each record names), whether the issue delay
// followed the stall count one cycle per count, and what a stall below the threshold did. The
// control-bit probes (probes/sass/*) derive their field and effect answers from these.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/fit.hpp"
#include "analysis/stall_sweep.hpp"

namespace gd {

// Bits of the upper 64-bit word that differ between each pair's old and new word (bit i of the
// result is instruction bit 64 + i).
std::uint64_t changed_upper_bits(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& old_new_hi);
// "instruction bits 105-108 (upper word [44:41]), 4 bits" for the set bits of a 128-bit
// instruction mask; several runs are joined with " and "; "" for no bit.
std::string instruction_bits_text(std::uint64_t lo, std::uint64_t hi);
// The same for a mask of the upper 64-bit word.
std::string upper_bits_text(std::uint64_t mask);
// "0x000fc80000000011" (as the probes record words) -> the number; throws std::invalid_argument.
std::uint64_t parse_word(const std::string& hex);

struct StallLinearity {
  LineFit fit;              // cycles per instruction over the stall count, right trials from the threshold up
  int first = -1, last = -1;
  bool one_to_one = false;  // slope within 5 % of one cycle per count and r2 >= 0.999, over >= 3 stalls
  std::string text;         // the answer in words ("undetermined: ..." when there is no line)
};
StallLinearity stall_linearity(const std::vector<StallTrial>& kept, int threshold, int period);

// What the trials below `threshold` did, in words: which stalls ran to completion with wrong
// lanes (a stale register read, no fault), which made the launch fail, which were still right.
// "undetermined: ..." when no stall below the threshold was tried.
std::string below_threshold_effect(const std::vector<StallTrial>& kept, int threshold, int lanes);

struct YieldTrial {
  int warps = 0;
  bool yield = false;
  double cycles_per_step = 0;  // warp 0's; <= 0 when the launch went wrong
};
// The yield field from its two patches (the upper words with the flag set and cleared) and the
// timings with it set and cleared: the bit they differ in, whether it is stored inverted, and
// the warp count where flipping it changed the time per step most (more than 5 %). The answer is
// "undetermined: ..." when the patches differ in other than one bit or no timing moved.
std::string yield_field_effect(std::uint64_t set_hi, std::uint64_t cleared_hi, const std::vector<YieldTrial>& trials);

// The reuse flag from two patches of one instruction that differ only in it (the upper words with
// the flag set and cleared) and the cycles per instruction each gave on a register-bank conflict:
// the bit, and how much the flag changed the time (a change under 5 % reads as no effect).
// "undetermined: ..." when the words differ in other than one bit or a timing is missing.
std::string reuse_field_effect(std::uint64_t on_hi, std::uint64_t off_hi, double cycles_on, double cycles_off);

// One experiment of a field patched alone: its setting in words and whether the chain stayed right.
struct FieldTrial {
  std::string setting;  // "write barrier 3", "wait on barrier 0 removed"
  bool right = false;
  std::string outcome;  // "completed", "cuda-error: ..."
};
// "<bits>: the chain stayed right with A, B; it broke with C (outcome)": the field's bits (those
// the patches changed when they changed only this field) and what its settings did. The field
// shows only when some setting kept the chain right and another broke it; otherwise
// "undetermined: ...".
std::string field_effect(std::uint64_t upper_bits, const std::vector<FieldTrial>& trials);

}  // namespace gd
