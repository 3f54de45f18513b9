#include "analysis/eviction_set.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

enum class Replacement { Lru, Random };

// A set-associative cache whose set index hashes the line number (an XOR fold, as GPUs do), the
// synthetic hardware the oracle walks. Line 0 of the pool is the target.
class HashedCache {
 public:
  HashedCache(int sets, int ways, Replacement policy, std::uint64_t seed = 11)
      : sets_(sets), ways_(ways), policy_(policy), rng_(seed), content_(std::size_t(sets)) {}
  int set_of(std::size_t line) const {
    std::size_t h = line ^ (line >> 5) ^ (line >> 9) ^ (line >> 13);
    return int(h % std::size_t(sets_));
  }
  void access(std::size_t line) {
    std::vector<std::size_t>& s = content_[std::size_t(set_of(line))];
    const auto at = std::find(s.begin(), s.end(), line);
    if (at != s.end()) {
      if (policy_ == Replacement::Lru) {
        s.erase(at);
        s.push_back(line);
      }
      return;
    }
    if (int(s.size()) == ways_) {
      const std::size_t victim = policy_ == Replacement::Random ? rng_() % s.size() : 0;
      s.erase(s.begin() + std::ptrdiff_t(victim));
    }
    s.push_back(line);
  }
  bool holds(std::size_t line) const {
    const std::vector<std::size_t>& s = content_[std::size_t(set_of(line))];
    return std::find(s.begin(), s.end(), line) != s.end();
  }
  void clear() {
    for (auto& s : content_) s.clear();
  }
  // The experiment the GPU runs: the target, `laps` laps of the lines, then is the target there?
  EvictionOracle oracle(std::size_t target, int laps, int* calls = nullptr) {
    return [this, target, laps, calls](std::span<const std::size_t> lines) {
      if (calls) ++*calls;
      clear();
      access(target);
      for (int l = 0; l < laps; ++l)
        for (std::size_t x : lines) access(x);
      return !holds(target);
    };
  }

 private:
  int sets_, ways_;
  Replacement policy_;
  std::mt19937_64 rng_;
  std::vector<std::vector<std::size_t>> content_;
};

std::vector<std::size_t> shuffled_pool(std::size_t lines, std::uint64_t seed = 3) {
  std::vector<std::size_t> pool(lines - 1);
  std::iota(pool.begin(), pool.end(), std::size_t(1));  // line 0 is the target
  std::shuffle(pool.begin(), pool.end(), std::mt19937_64(seed));
  return pool;
}

TEST(EvictionSet, FindsTheWaysOfAHashedLruCache) {
  HashedCache cache(16, 8, Replacement::Lru);
  const std::vector<std::size_t> pool = shuffled_pool(512);
  const EvictionSearch s = find_eviction_set(pool, cache.oracle(0, 2));
  ASSERT_TRUE(s.found) << s.note;
  EXPECT_EQ(s.set.size(), 8u);
  EXPECT_TRUE(s.minimal_checked);
  for (std::size_t line : s.set) EXPECT_EQ(cache.set_of(line), cache.set_of(0));
  // Far fewer questions than pool lines: each round of the elimination drops a share of the set.
  EXPECT_LT(s.oracle_calls, 100);
  EXPECT_LT(s.start_lines, 256u);  // the quarters cut before the elimination
}

TEST(EvictionSet, CongruentLinesGiveTheNumberOfSets) {
  HashedCache cache(16, 8, Replacement::Lru);
  const std::vector<std::size_t> pool = shuffled_pool(2048);
  const EvictionSearch s = find_eviction_set(pool, cache.oracle(0, 2));
  ASSERT_TRUE(s.found);
  std::vector<std::size_t> candidates;
  for (std::size_t line : pool)
    if (std::find(s.set.begin(), s.set.end(), line) == s.set.end()) candidates.push_back(line);
  const Congruence c = classify_congruent(s.set, candidates, cache.oracle(0, 2));
  EXPECT_EQ(c.tested, candidates.size());
  for (std::size_t line : c.congruent) EXPECT_EQ(cache.set_of(line), cache.set_of(0));
  std::size_t truth = 0;
  for (std::size_t line : candidates) truth += cache.set_of(line) == cache.set_of(0);
  EXPECT_EQ(c.congruent.size(), truth);
  EXPECT_NEAR(c.sets, 16.0, 3.0);
  // Out of time after 100 candidates: those 100 are classified, the rest are not.
  int asked = 0;
  const Congruence part = classify_congruent(s.set, candidates, cache.oracle(0, 2), [&] { return ++asked > 100; });
  EXPECT_EQ(part.tested, 100u);
  for (std::size_t line : part.congruent)
    EXPECT_LT(std::find(candidates.begin(), candidates.end(), line) - candidates.begin(), 100);
}

// The search over a pool of `pool` lines finds a minimal set of exactly the cache's ways.
void expect_finds_the_ways(HashedCache cache, std::size_t ways, std::size_t pool, int laps) {
  const EvictionSearch s = find_eviction_set(shuffled_pool(pool), cache.oracle(0, laps));
  ASSERT_TRUE(s.found) << s.note;
  EXPECT_EQ(s.set.size(), ways);
}

TEST(EvictionSet, RandomReplacementWithEnoughLapsStillFindsTheWays) {
  expect_finds_the_ways(HashedCache(8, 4, Replacement::Random), 4, 256, 64);
}

TEST(EvictionSet, FullyAssociativeCacheHasNoSmallSet) {
  HashedCache cache(1, 64, Replacement::Lru);  // one set: every line conflicts with every other
  const EvictionSearch s = find_eviction_set(shuffled_pool(256), cache.oracle(0, 2), {.max_set = 16});
  EXPECT_FALSE(s.found);
  EXPECT_GE(s.start_lines, 64u);
  EXPECT_NE(s.note.find("no eviction set of at most 16 lines: the minimal set found holds 64"), std::string::npos) << s.note;
  // Without the bound it finds all 64 ways.
  const EvictionSearch all = find_eviction_set(shuffled_pool(256), cache.oracle(0, 2));
  ASSERT_TRUE(all.found);
  EXPECT_EQ(all.set.size(), 64u);
}

TEST(EvictionSet, StopsWhenTheTimeBudgetRunsOut) {
  // The budget runs out after the first pass: the search ends there, with what it has and why,
  // rather than running on to the call bound.
  HashedCache cache(16, 8, Replacement::Lru);
  const EvictionOracle oracle = cache.oracle(0, 2);
  int asked = 0;
  const EvictionSearch s = find_eviction_set(shuffled_pool(512), oracle,
                                             {.out_of_time = [&] { return ++asked > 1; }});
  EXPECT_FALSE(s.found);
  EXPECT_FALSE(s.minimal_checked);
  EXPECT_NE(s.note.find("time budget ran out"), std::string::npos) << s.note;
  EXPECT_NE(s.note.find(" lines left of " + std::to_string(s.start_lines)), std::string::npos) << s.note;
  EXPECT_EQ(asked, 2);
  EXPECT_LT(s.oracle_calls, 40);
}

TEST(EvictionSet, ManyWaysDoubleTheGroups) {
  // 40 ways and 24 groups: once the set is down to about 40 lines no group of 24 can go, and the
  // elimination must split finer rather than stop with a set of 40-odd lines.
  expect_finds_the_ways(HashedCache(4, 40, Replacement::Lru), 40, 1024, 2);
}

TEST(EvictionSet, AWrongAnswerAlongTheWayIsNotAMinimalSet) {
  // One false "still evicts" early in the elimination drops lines the set needs; every answer
  // after it is "no", so the single-line pass and the minimality check find nothing to drop. The
  // set left does not evict, and the search must say so rather than call it minimal.
  HashedCache cache(16, 8, Replacement::Lru);
  const EvictionOracle truth = cache.oracle(0, 2);
  int calls = 0;
  bool lied = false;
  const EvictionOracle lying = [&](std::span<const std::size_t> lines) {
    const bool t = truth(lines);
    if (++calls < 12 || t || lied) return t;
    return lied = true;
  };
  const EvictionSearch s = find_eviction_set(shuffled_pool(512), lying);
  EXPECT_FALSE(s.found);
  EXPECT_FALSE(s.minimal_checked);
  EXPECT_NE(s.note.find("no longer evict"), std::string::npos) << s.note;
}

TEST(EvictionSet, AMajorityOfWalksOutvotesAnOccasionalWrongWalk) {
  // Each walk's answer is wrong one time in ten (a slow launch): one walk per question misleads the
  // elimination, five per question find the target's 8 ways.
  HashedCache cache(16, 8, Replacement::Lru);
  const EvictionOracle truth = cache.oracle(0, 2);
  std::mt19937_64 rng(5);
  int walks = 0;
  const EvictionOracle noisy = [&](std::span<const std::size_t> lines) {
    ++walks;
    return truth(lines) != (rng() % 10 == 0);
  };
  const EvictionSearch single = find_eviction_set(shuffled_pool(512), noisy);
  EXPECT_FALSE(single.found && single.set.size() == 8) << single.note;
  walks = 0;
  const EvictionSearch s = find_eviction_set(shuffled_pool(512), majority_oracle(5, noisy));
  ASSERT_TRUE(s.found) << s.note;
  EXPECT_EQ(s.set.size(), 8u);
  for (std::size_t line : s.set) EXPECT_EQ(cache.set_of(line), cache.set_of(0));
  // It stops once three walks agree: fewer than five walks a question on average.
  EXPECT_LT(walks, 5 * s.oracle_calls);
  EXPECT_GE(walks, 3 * s.oracle_calls);
}

TEST(EvictionSet, APoolThatDoesNotEvictSaysSo) {
  HashedCache cache(16, 8, Replacement::Lru);
  const EvictionSearch s = find_eviction_set(shuffled_pool(64), cache.oracle(0, 2));  // ~4 lines per set
  EXPECT_FALSE(s.found);
  EXPECT_TRUE(s.set.empty());
  EXPECT_NE(s.note.find("does not evict"), std::string::npos);
}

TEST(EvictionSet, ADriftingOracleIsCaughtByTheMinimalityCheck) {
  // Six lines evict while the set is searched; by the time its minimality is checked (the last six
  // calls) five do: a measurement that drifted. The set is then not minimal, and the check says so.
  const std::vector<std::size_t> pool = shuffled_pool(128);
  const EvictionSearch steady = find_eviction_set(pool, [](std::span<const std::size_t> lines) { return lines.size() >= 6; });
  ASSERT_TRUE(steady.found);
  ASSERT_EQ(steady.set.size(), 6u);
  const int search_calls = steady.oracle_calls - 6;
  int calls = 0;
  const EvictionOracle drifting = [&](std::span<const std::size_t> lines) {
    return lines.size() >= (++calls > search_calls ? 5u : 6u);
  };
  const EvictionSearch s = find_eviction_set(pool, drifting);
  EXPECT_FALSE(s.found);
  EXPECT_TRUE(s.minimal_checked);
  EXPECT_EQ(s.dispensable, 6);
  EXPECT_NE(s.note.find("noisy"), std::string::npos);
}

TEST(EvictionSet, RejectsBadPools) {
  const EvictionOracle never = [](std::span<const std::size_t>) { return false; };
  EXPECT_THROW(find_eviction_set({}, never), std::invalid_argument);
  const std::vector<std::size_t> twice = {1, 2, 2};
  EXPECT_THROW(find_eviction_set(twice, never), std::invalid_argument);
  const std::vector<std::size_t> set = {1, 2}, cand = {2};
  EXPECT_THROW(classify_congruent(set, cand, never), std::invalid_argument);
  EXPECT_THROW(classify_congruent({}, cand, never), std::invalid_argument);
  EXPECT_THROW(find_eviction_set(cand, never, {.groups = 1}), std::invalid_argument);
  EXPECT_THROW(majority_oracle(4, never), std::invalid_argument);
  EXPECT_THROW(majority_oracle(0, never), std::invalid_argument);
}

}  // namespace
}  // namespace gd
