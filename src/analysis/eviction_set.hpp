// A cache's ways when its set index is hashed, so that no fixed distance between addresses puts
// them in one set (the L1 data cache of Volta and later): search a pool of lines for a minimal
// eviction set of one target line (the fewest lines whose walk evicts it), as the cache-attack
// literature does (Vila, Köpf and Morales, "Theory and Practice of Finding Eviction Sets", S&P
// 2019). The search only asks an oracle "does walking these lines evict the target?", so the same
// code runs against the GPU and against a simulated cache in the tests.
//
// The search grows the set one essential line at a time: the smallest prefix of the remaining
// candidates that, with the lines found so far, evicts the target ends in a line the set needs
// (binary search over the prefix length, monotone because more lines evict no less). With w ways
// it takes about w log2(pool) oracle calls. A minimal set of w lines means w ways; the pool's
// lines that conflict with the target then give the number of sets (pool / congruent lines).
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
  std::size_t first_prefix = 0;     // the smallest evicting prefix of the shuffled pool (lines)
  bool minimal_checked = false;     // every line was dropped once and the rest no longer evicted
  int dispensable = 0;              // lines whose removal still evicted in that check
  int oracle_calls = 0;
  std::string note;
};

struct EvictionSearchLimits {
  std::size_t max_set = 0;  // give up once the set would exceed this many lines (0: the pool)
  int max_calls = 20000;
  // Asked before each new line is searched for: true ends the search with what it has (a probe's
  // time budget; the calls a question takes vary with the oracle's cost, so calls alone do not
  // bound the time).
  std::function<bool()> out_of_time;
};

// pool: candidate lines in a random order (never the target). Throws std::invalid_argument when
// the pool is empty or holds duplicates.
EvictionSearch find_eviction_set(std::span<const std::size_t> pool, const EvictionOracle& evicts,
                                 const EvictionSearchLimits& limits = {});

struct Congruence {
  std::vector<std::size_t> congruent;  // candidates that took the dropped line's place
  std::size_t tested = 0;
  double sets = 0;                     // tested / (congruent + 1): the pool's lines per set, inverted
};

// Which candidates map to the target's set: the set minus its first line no longer evicts, and a
// candidate that restores the eviction shares the set. `set` is a minimal eviction set; the
// candidates must not contain its lines.
Congruence classify_congruent(std::span<const std::size_t> set, std::span<const std::size_t> candidates,
                              const EvictionOracle& evicts);

}  // namespace gd
