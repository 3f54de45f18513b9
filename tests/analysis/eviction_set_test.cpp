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

enum class Policy { Lru, Random };

// A set-associative cache whose set index hashes the line number (an XOR fold, as GPUs do), the
// synthetic hardware the oracle walks. Line 0 of the pool is the target.
class HashedCache {
 public:
  HashedCache(int sets, int ways, Policy policy, std::uint64_t seed = 11)
      : sets_(sets), ways_(ways), policy_(policy), rng_(seed), content_(std::size_t(sets)) {}
  int set_of(std::size_t line) const {
    std::size_t h = line ^ (line >> 5) ^ (line >> 9) ^ (line >> 13);
    return int(h % std::size_t(sets_));
  }
  void access(std::size_t line) {
    std::vector<std::size_t>& s = content_[std::size_t(set_of(line))];
    const auto at = std::find(s.begin(), s.end(), line);
    if (at != s.end()) {
      if (policy_ == Policy::Lru) {
        s.erase(at);
        s.push_back(line);
      }
      return;
    }
    if (int(s.size()) == ways_) {
      const std::size_t victim = policy_ == Policy::Random ? rng_() % s.size() : 0;
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
  Policy policy_;
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
  HashedCache cache(16, 8, Policy::Lru);
  const std::vector<std::size_t> pool = shuffled_pool(512);
  const EvictionSearch s = find_eviction_set(pool, cache.oracle(0, 2));
  ASSERT_TRUE(s.found) << s.note;
  EXPECT_EQ(s.set.size(), 8u);
  EXPECT_TRUE(s.minimal_checked);
  for (std::size_t line : s.set) EXPECT_EQ(cache.set_of(line), cache.set_of(0));
  // About w log2(pool) questions, far fewer than one per pool line.
  EXPECT_LT(s.oracle_calls, 8 * 10 + 20);
}

TEST(EvictionSet, CongruentLinesGiveTheNumberOfSets) {
  HashedCache cache(16, 8, Policy::Lru);
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
}

TEST(EvictionSet, RandomReplacementWithEnoughLapsStillFindsTheWays) {
  HashedCache cache(8, 4, Policy::Random);
  const EvictionSearch s = find_eviction_set(shuffled_pool(256), cache.oracle(0, 64));
  ASSERT_TRUE(s.found) << s.note;
  EXPECT_EQ(s.set.size(), 4u);
}

TEST(EvictionSet, FullyAssociativeCacheHasNoSmallSet) {
  HashedCache cache(1, 64, Policy::Lru);  // one set: every line conflicts with every other
  const EvictionSearch s = find_eviction_set(shuffled_pool(256), cache.oracle(0, 2), {.max_set = 16});
  EXPECT_FALSE(s.found);
  EXPECT_GE(s.first_prefix, 64u);
  EXPECT_NE(s.note.find("no eviction set of at most 16"), std::string::npos) << s.note;
  // Without the bound it finds all 64 ways.
  const EvictionSearch all = find_eviction_set(shuffled_pool(256), cache.oracle(0, 2));
  ASSERT_TRUE(all.found);
  EXPECT_EQ(all.set.size(), 64u);
}

TEST(EvictionSet, StopsWhenTheTimeBudgetRunsOut) {
  // The budget runs out once three lines are found: the search ends there, with what it has and
  // why, rather than running on to the call bound.
  HashedCache cache(16, 8, Policy::Lru);
  const EvictionOracle oracle = cache.oracle(0, 2);
  int asked = 0;
  const EvictionSearch s = find_eviction_set(shuffled_pool(512), oracle,
                                             {.out_of_time = [&] { return ++asked > 3; }});
  EXPECT_FALSE(s.found);
  EXPECT_FALSE(s.minimal_checked);
  EXPECT_NE(s.note.find("time budget ran out"), std::string::npos) << s.note;
  EXPECT_NE(s.note.find("with 3 lines found"), std::string::npos) << s.note;
  EXPECT_LT(s.oracle_calls, 8 * 10);
}

TEST(EvictionSet, APoolThatDoesNotEvictSaysSo) {
  HashedCache cache(16, 8, Policy::Lru);
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
}

}  // namespace
}  // namespace gd
