// Reading the control-bit experiments (probes/sass/*): per instruction class, whether the stall
// field alone makes a dependent chain right (fixed latency) or only the scoreboard wait does,
// whether the threshold equals the measured chain latency, what a consumer that skipped its wait
// read, and the register-bank count from bank-conflict timings.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/fit.hpp"
#include "analysis/stall_sweep.hpp"

namespace gd {

struct StallClassVerdict {
  int threshold = -1;          // smallest stall right with the compiler's waits kept (-1: none)
  int threshold_no_wait = -1;  // the same with every wait of the chain removed (-1: none up to 15)
  bool fixed_latency = false;  // the stall field alone keeps the chain right: no scoreboard needed
  double chain_latency = 0;    // cycles per dependent step as compiled (chain-length slope)
  double cycles_per_stall = 0; // slope of cycles per step over the stall, from the threshold up, per instruction
  bool agrees = false;         // fixed latency and threshold == round(latency per instruction)
  std::string note;            // the verdict in words, with the reason for any disagreement
};

// `kept`: the stall swept with the compiler's waits; `no_wait`: with the chain's waits removed
// (empty when the compiler set none: then `kept` is the no-wait sweep too). `period`: SASS
// instructions per dependent step (FADD + F2I + I2F is three), so the per-instruction latency is
// chain_latency / period. `compiler_barrier`: ptxas set a write barrier on the chain.
StallClassVerdict judge_stall_class(const std::vector<StallTrial>& kept, const std::vector<StallTrial>& no_wait,
                                    bool compiler_barrier, double chain_latency, int period);

// Slope of cycles per step over the stall among right trials at or above `threshold`, divided
// by `period` (every instruction of a step carries the stall). NaN-free: slope 0 with < 2 points.
LineFit stall_cost(const std::vector<StallTrial>& trials, int threshold, int period);

// The stalls whose trial went wrong (a wrong lane or a failed launch), ascending: with the waits
// kept every stall should be right, so any listed there is the scoreboard not holding.
std::vector<int> wrong_stalls(const std::vector<StallTrial>& trials);

// Pointer chase: how many steps from `start` through `next` reach `end` (0..max_steps), or -1.
// The smallest such count, so a chase that cycles reports its first visit.
int chase_steps_seen(const std::vector<std::uint32_t>& next, std::uint32_t start, std::uint32_t end, int max_steps);

// What a consumer read when it did not wait for a variable-latency producer, from the steps a
// chain of `steps` actually took (chase_steps_seen over every lane): "interlocked" (all steps
// seen: the hardware waited anyway), "stale" (fewer steps: it read the register before the
// result landed), "wrong" (no number of steps gives the result: garbage).
std::string unwaited_read(const std::vector<int>& steps_seen_per_lane, int steps);

// One bank-conflict timing: two source registers `distance` apart, cycles per instruction.
struct BankTrial {
  int distance = 0;
  double cycles = 0;
};
struct RegisterBanks {
  int banks = 0;            // 0: not derivable
  bool consistent = false;  // every distance that is a multiple of `banks` conflicts, no other does
  double free_cycles = 0, conflict_cycles = 0;
  std::string evidence;
};
// A distance conflicts when it costs more than `factor` times the cheapest one. The bank count
// is the smallest conflicting distance > 0 (registers in a bank: index mod banks).
RegisterBanks derive_register_banks(const std::vector<BankTrial>& trials, double factor = 1.3);

}  // namespace gd
