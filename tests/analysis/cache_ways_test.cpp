#include "analysis/cache_ways.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

enum class Policy { Lru, Fifo, Random };

// One cache set of `ways` lines under a replacement policy: the synthetic hardware.
class Set {
 public:
  Set(int ways, Policy p, std::uint64_t seed = 7) : ways_(ways), policy_(p), state_(seed) {}
  bool access(int line) {  // true: a hit
    const auto at = std::find(lines_.begin(), lines_.end(), line);
    if (at != lines_.end()) {
      if (policy_ == Policy::Lru) {  // most recent last
        lines_.erase(at);
        lines_.push_back(line);
      }
      return true;
    }
    if (int(lines_.size()) == ways_) {
      const std::size_t victim = policy_ == Policy::Random ? next() % lines_.size() : 0;  // LRU and FIFO: the front
      lines_.erase(lines_.begin() + std::ptrdiff_t(victim));
    }
    lines_.push_back(line);
    return false;
  }

 private:
  std::uint64_t next() { return state_ = state_ * 6364136223846793005ull + 1442695040888963407ull, state_ >> 33; }
  int ways_;
  Policy policy_;
  std::uint64_t state_;
  std::vector<int> lines_;
};

// The conflict sweep as a probe would time it: walks of 1..max_lines lines, latency per access
// 30 on a hit and 200 on a miss, after one warm-up pass.
std::vector<ConflictPoint> sweep(int ways, Policy p, int max_lines) {
  std::vector<ConflictPoint> out;
  for (int n = 1; n <= max_lines; ++n) {
    Set set(ways, p);
    for (int i = 0; i < n; ++i) set.access(i);
    int misses = 0;
    const int accesses = 64 * n;
    for (int i = 0; i < accesses; ++i) misses += !set.access(i % n);
    out.push_back({double(n), 30 + 170.0 * misses / accesses});
  }
  return out;
}

// The re-reference experiment: fill, touch line 0, bring in a new line, is line 0 still there?
int rereference_kept(int ways, Policy p, int trials) {
  int kept = 0;
  for (int t = 0; t < trials; ++t) {
    Set set(ways, p, 100 + std::uint64_t(t));
    for (int i = 0; i < ways; ++i) set.access(i);
    set.access(0);
    set.access(ways);
    kept += set.access(0);
  }
  return kept;
}

TEST(CacheWays, LruThrashesOneLinePastItsWays) {
  const Ways w = infer_ways(sweep(4, Policy::Lru, 12));
  ASSERT_TRUE(w.found) << w.note;
  EXPECT_EQ(w.ways, 4);
  EXPECT_EQ(w.policy, "lru-like");
  EXPECT_DOUBLE_EQ(w.miss_share_next, 1.0);
  EXPECT_GE(w.confidence, 0.99);
}

TEST(CacheWays, FifoLooksLikeLruToACyclicWalk) {
  const Ways w = infer_ways(sweep(8, Policy::Fifo, 20));
  ASSERT_TRUE(w.found) << w.note;
  EXPECT_EQ(w.ways, 8);
  EXPECT_EQ(w.policy, "lru-like");
}

TEST(CacheWays, RandomReplacementKeepsHitsPastItsWays) {
  const Ways w = infer_ways(sweep(8, Policy::Random, 24));
  ASSERT_TRUE(w.found) << w.note;
  EXPECT_EQ(w.ways, 8);
  EXPECT_EQ(w.policy, "not-lru");
  EXPECT_LT(w.miss_share_next, 0.9);
}

TEST(CacheWays, NoConflictInTheSweepIsNotFound) {
  const Ways w = infer_ways(sweep(16, Policy::Lru, 12));  // every walk fits
  EXPECT_FALSE(w.found);
  EXPECT_NE(w.note.find("no step"), std::string::npos) << w.note;
}

TEST(CacheWays, AMissingNextWalkLeavesThePolicyUnjudged) {
  std::vector<ConflictPoint> pts;
  for (const auto& p : sweep(4, Policy::Lru, 12))
    if (p.lines != 5) pts.push_back(p);
  const Ways w = infer_ways(pts);
  ASSERT_TRUE(w.found);
  EXPECT_EQ(w.ways, 4);
  EXPECT_FALSE(w.next_measured);
  EXPECT_EQ(w.policy, "");
}

TEST(CacheWays, RereferenceTellsLruFromFifoAndRandom) {
  const Rereference lru = infer_rereference(rereference_kept(4, Policy::Lru, 40), 40);
  EXPECT_EQ(lru.policy, "lru");
  EXPECT_GE(lru.confidence, 0.99);
  const Rereference fifo = infer_rereference(rereference_kept(4, Policy::Fifo, 40), 40);
  EXPECT_EQ(fifo.policy, "fifo");
  EXPECT_GE(fifo.confidence, 0.99);
  const Rereference rnd = infer_rereference(rereference_kept(4, Policy::Random, 40), 40);
  EXPECT_EQ(rnd.policy, "neither") << rnd.kept << " of 40 kept";
}

TEST(CacheWays, AFewTrialsGiveALowConfidence) {
  const Rereference r = infer_rereference(3, 3);
  EXPECT_EQ(r.policy, "lru");
  EXPECT_LT(r.confidence, 0.9);  // three heads in a row happen one time in eight
}

TEST(CacheWays, BadCountsAreRefused) {
  EXPECT_THROW(infer_rereference(5, 4), std::invalid_argument);
  EXPECT_THROW(infer_rereference(0, 0), std::invalid_argument);
  EXPECT_THROW(infer_rereference(-1, 4), std::invalid_argument);
}

}  // namespace
}  // namespace gd

namespace gd {
namespace {

// A set-associative cache of `sets` sets of `ways` 64-byte lines, modulo-indexed: walks at
// distance d put n lines into sets (k * d / 64) mod sets.
DistanceWays walk_at(double distance, int sets, int ways) {
  const int sets_used = std::max(1, int(sets * 64 / distance));
  std::vector<ConflictPoint> pts;
  for (int n = 1; n <= 40; ++n) pts.push_back({double(n), n <= ways * sets_used ? 35.0 : 105.0});
  return {distance, infer_ways(pts)};
}

TEST(SetGeometry, PlateauOfWaysGivesTheSetStride) {
  std::vector<DistanceWays> sweeps;
  for (double d : {64, 128, 256, 512, 1024}) sweeps.push_back(walk_at(d, 8, 4));
  const SetGeometry g = infer_set_geometry(sweeps);
  ASSERT_TRUE(g.found) << g.note;
  EXPECT_EQ(g.ways, 4);
  EXPECT_EQ(g.set_stride, 512);
  ASSERT_NE(g.at, nullptr);
  EXPECT_EQ(g.at->ways, 4);
}

TEST(SetGeometry, PlateauOfOneDistanceIsOnlyABound) {
  std::vector<DistanceWays> sweeps;
  for (double d : {64, 128, 256, 512}) sweeps.push_back(walk_at(d, 8, 4));
  const SetGeometry g = infer_set_geometry(sweeps);
  EXPECT_FALSE(g.found);
  EXPECT_NE(g.note.find("upper bound"), std::string::npos);
}

TEST(SetGeometry, NoConflictAtTheLargestDistanceIsNotFound) {
  std::vector<ConflictPoint> flat;
  for (int n = 1; n <= 40; ++n) flat.push_back({double(n), 41.0});
  const std::vector<DistanceWays> sweeps = {{2048, infer_ways(flat)}, {4096, infer_ways(flat)}};
  EXPECT_FALSE(infer_set_geometry(sweeps).found);
  const std::vector<DistanceWays> unsorted = {{4096, infer_ways(flat)}, {2048, infer_ways(flat)}};
  EXPECT_THROW(infer_set_geometry(unsorted), std::invalid_argument);
}

// Laps of n agents where agents in the same group hit (40 cycles) and others miss (280).
std::vector<double> laps_for(const std::vector<int>& group_of) {
  const std::size_t n = group_of.size();
  std::vector<double> cycles(n * n, 0.0);
  for (std::size_t w = 0; w < n; ++w)
    for (std::size_t t = 0; t < n; ++t) cycles[w * n + t] = group_of[w] == group_of[t] ? 40.0 : 280.0;
  return cycles;
}

TEST(CacheSharing, OneCacheWhenEveryAgentFindsTheOthersLines) {
  const CacheSharing s = sharing_groups(4, laps_for({0, 0, 0, 0}), 40, 280);
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.groups[0], (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(s.asymmetric, 0);
}

TEST(CacheSharing, PairsOfSubPartitionsMakeTwoCaches) {
  const CacheSharing s = sharing_groups(4, laps_for({0, 1, 0, 1}), 40, 280);
  ASSERT_EQ(s.groups.size(), 2u);
  EXPECT_EQ(s.groups[0], (std::vector<int>{0, 2}));
  EXPECT_EQ(s.groups[1], (std::vector<int>{1, 3}));
  // No sharing at all: one cache per agent.
  EXPECT_EQ(sharing_groups(4, laps_for({0, 1, 2, 3}), 40, 280).groups.size(), 4u);
}

TEST(CacheSharing, AOneWayFindIsCountedAndStillJoins) {
  std::vector<double> cycles = laps_for({0, 1});
  cycles[0 * 2 + 1] = 45;  // agent 1 found agent 0's lines, not the reverse
  const CacheSharing s = sharing_groups(2, cycles, 40, 280);
  EXPECT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.asymmetric, 1);
  EXPECT_NE(s.note.find("one way only"), std::string::npos);
}

TEST(CacheSharing, RejectsBadInput) {
  EXPECT_THROW(sharing_groups(1, std::vector<double>{0}, 40, 280), std::invalid_argument);
  EXPECT_THROW(sharing_groups(2, std::vector<double>{0, 40, 40}, 40, 280), std::invalid_argument);
  EXPECT_THROW(sharing_groups(2, laps_for({0, 0}), 280, 40), std::invalid_argument);
}

}  // namespace
}  // namespace gd


// The constant L1.5 sweep walks a footprint as several 64 KiB banks at once.
namespace gd {
namespace {

TEST(SplitOverTables, AsFewTablesAsHoldItWithLinesInWholeGroups) {
  // 64 KiB at 64 B: one table of 1024 lines; one group more needs a second table.
  EXPECT_EQ(split_over_tables(64 << 10, 64, 4, 64 << 10, 8), std::vector<int>{1024});
  EXPECT_EQ(split_over_tables((64 << 10) + 256, 64, 4, 64 << 10, 8), (std::vector<int>{516, 512}));
  // 200 KiB at 512 B = 400 lines, 100 groups over 4 tables (64 KiB holds 128 lines).
  EXPECT_EQ(split_over_tables(200 << 10, 512, 4, 64 << 10, 8), (std::vector<int>{100, 100, 100, 100}));
  // 102 groups over 4 tables: the first two carry one group more.
  EXPECT_EQ(split_over_tables(204 << 10, 512, 4, 64 << 10, 8), (std::vector<int>{104, 104, 100, 100}));
  // Eight full tables, the most allowed.
  EXPECT_EQ(split_over_tables(512 << 10, 256, 4, 64 << 10, 8), std::vector<int>(8, 256));
}

TEST(SplitOverTables, StridesThatDoNotDivideATableRoundDownToWholeGroups) {
  // 768 B: a 64 KiB table holds 21 groups of 4 lines (84 lines); 100 KiB is 133 lines, 33 groups.
  EXPECT_EQ(split_over_tables(100 << 10, 768, 4, 64 << 10, 8), (std::vector<int>{68, 64}));
  // 480 KiB at 768 B: 640 lines over 8 tables of at most 84.
  EXPECT_EQ(split_over_tables(480 << 10, 768, 4, 64 << 10, 8), std::vector<int>(8, 80));
}

TEST(SplitOverTables, WhatCannotBeSplitIsAnError) {
  EXPECT_THROW(split_over_tables((512 << 10) + 2048, 512, 4, 64 << 10, 8), std::invalid_argument);  // nine tables
  EXPECT_THROW(split_over_tables(512 << 10, 768, 4, 64 << 10, 8), std::invalid_argument);  // 680 lines: nine of 84
  EXPECT_THROW(split_over_tables(1000, 512, 4, 64 << 10, 8), std::invalid_argument);  // not one group
  EXPECT_THROW(split_over_tables(0, 64, 4, 64 << 10, 8), std::invalid_argument);
  EXPECT_THROW(split_over_tables(4096, 0, 4, 64 << 10, 8), std::invalid_argument);
  EXPECT_THROW(split_over_tables(1 << 20, 64, 4, 128, 8), std::invalid_argument);  // a table holds no group
}

}  // namespace
}  // namespace gd
