// A cache's ways when its set index is hashed, so that no fixed distance between addresses puts
// them in one set (the L1 data cache of Volta and later): search a pool of lines for a minimal
// eviction set of one target line (the fewest lines whose walk evicts it), as the cache-attack
// literature does (Vila, Köpf and Morales, "Theory and Practice of Finding Eviction Sets", S&P
// 2019). The search only asks an oracle "does walking these lines evict the target?", so the same
// code runs against the GPU and against a simulated cache in the tests.
//
// The search is group elimination (their section on group testing): from an evicting start (the
// pool, cut by quarters while what is left still evicts), split the set into g groups and drop a
// group whose removal keeps the eviction, until none can go; then drop single lines the same way.
// With w ways any w + 1 groups hold one the set can lose, so g (default 24) doubles when no group
// goes and the set is still large. Each question removes a share of the set rather than bisecting
// for one line, so an oracle that errs now and then costs a few calls, not the whole search: on
// the H200 the one-line-at-a-time bisection gave up where group elimination found a 9-line set in
// 579 calls (scripts/experiments/NOTES.md). A minimal set of w lines means w ways under LRU or
// FIFO; the pool's lines that conflict with the target then give the number of sets.
#pragma once
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace gd {

// Whether walking `lines` (pool indices, in this order, several laps) evicts the target.
using EvictionOracle = std::function<bool(std::span<const std::size_t> lines)>;

struct EvictionSearch {
  bool found = false;               // a minimal eviction set smaller than the bound was found
  std::vector<std::size_t> set;     // pool indices of that set (its size is the ways)
  std::size_t start_lines = 0;      // the evicting prefix of the pool the elimination started from
  bool minimal_checked = false;     // every line was dropped once and the rest no longer evicted
  int dispensable = 0;              // lines whose removal still evicted in that check
  int oracle_calls = 0;
  std::string note;
};

struct EvictionSearchLimits {
  std::size_t max_set = 0;  // a minimal set larger than this is no answer (0: the pool)
  int max_calls = 20000;
  std::size_t groups = 24;  // groups of the elimination's first rounds (doubled when none can go)
  // Asked before each round of the elimination: true ends the search with what it has (a probe's
  // time budget; the calls a question takes vary with the oracle's cost, so calls alone do not
  // bound the time).
  std::function<bool()> out_of_time;
};

// pool: candidate lines in a random order (never the target). Throws std::invalid_argument when
// the pool is empty or holds duplicates, or groups is below 2.
EvictionSearch find_eviction_set(std::span<const std::size_t> pool, const EvictionOracle& evicts,
                                 const EvictionSearchLimits& limits = {});

// The majority answer of up to `walks` (odd) walks, stopping once one answer has the majority: an
// oracle whose single walk is sometimes wrong (a slow launch read as a miss). Throws
// std::invalid_argument for an even or non-positive count.
EvictionOracle majority_oracle(int walks, EvictionOracle walk);

struct Congruence {
  std::vector<std::size_t> congruent;  // candidates that took the dropped line's place
  std::size_t tested = 0;
  double sets = 0;                     // lines considered / lines in the target's set: the sets, if the lines spread evenly
};

// Which candidates map to the target's set: the set minus its first line no longer evicts, and a
// candidate that restores the eviction shares the set. `set` is a minimal eviction set; the
// candidates must not contain its lines. out_of_time, asked before each candidate, ends the
// classification early (`tested` says how far it got).
Congruence classify_congruent(std::span<const std::size_t> set, std::span<const std::size_t> candidates,
                              const EvictionOracle& evicts, const std::function<bool()>& out_of_time = {});

}  // namespace gd
