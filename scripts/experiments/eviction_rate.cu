// Experiment (not part of the suite; issue 34): does a fixed set of lines evict a target line from
// the L1 every time, or only sometimes? `memory.hierarchy.l1_eviction_set` found no repeatable
// minimal eviction set: a set that evicted the target stopped evicting it a few walks later. A
// set-associative L1 with LRU, FIFO or any other deterministic replacement, starting each launch
// from an invalidated cache, gives the same answer to the same walk every time; a replacement with
// randomness (or state that survives the launch) does not. So: for set sizes k around the capacity
// (about 1,856 lines of 128 B), draw random k-line sets of a 4,096-line pool, walk each set, with
// the target entering after the first lap, `laps` times (the same order every repeat), and time
// the target; repeat every set `reps` times. Per set the eviction rate is 0 or 1 under a
// deterministic policy; rates in between are chance.
// One thread, the largest L1 carveout; every load is in its line's first 32-byte sector (the L1
// fetches sectors), as in the suite's probe.
// Usage: eviction_rate [sets per k, default 24] [repeats per set, default 10] [laps, default 2 and 6]
//        eviction_rate search [target line, default 0]: a minimal set and the target's congruent lines
// Build: nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o eviction_rate eviction_rate.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common.cuh"  // CK

constexpr int kPoolLines = 4096, kLineWords = 32, kTimed = 8;

__device__ __forceinline__ unsigned next(const unsigned* buf, unsigned i) {
  unsigned v;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(buf + i));
  return v;
}

// Follows the chain `warm` steps untimed, then times kTimed steps: the target's word 7, whose
// chain entry points to itself, so the first timed load is the target's and the rest hit.
__global__ void trial(const unsigned* buf, unsigned start, int warm, long long* cyc, unsigned* sink) {
  unsigned i = start;
  for (int s = 0; s < warm; ++s) i = next(buf, i);
  const long long t0 = clock64();
#pragma unroll
  for (int s = 0; s < kTimed; ++s) i = next(buf, i);
  cyc[0] = clock64() - t0;
  sink[0] = i;
}

struct Gpu {
  unsigned* buf;
  long long* cyc;
  unsigned* sink;
  std::vector<unsigned> chain = std::vector<unsigned>(std::size_t(kPoolLines) * kLineWords, 0);
};

// Cycles of the kTimed steps after: a lap of `set` (word 1), the target (word 0), laps 2..laps of
// `set` (word k), then the target's word 7.
long long run(Gpu& g, int target, const std::vector<int>& set, int laps) {
  std::vector<unsigned> order;
  for (int l : set) order.push_back(unsigned(l * kLineWords + 1));
  order.push_back(unsigned(target * kLineWords));
  for (int k = 2; k <= laps; ++k)
    for (int l : set) order.push_back(unsigned(l * kLineWords + k));
  order.push_back(unsigned(target * kLineWords + 7));
  std::fill(g.chain.begin(), g.chain.end(), 0u);
  for (std::size_t i = 0; i + 1 < order.size(); ++i) g.chain[order[i]] = order[i + 1];
  g.chain[order.back()] = order.back();
  CK(cudaMemcpy(g.buf, g.chain.data(), g.chain.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  trial<<<1, 1>>>(g.buf, order.front(), int(order.size()) - 1, g.cyc, g.sink);
  CK(cudaGetLastError());
  long long c = 0;
  CK(cudaMemcpy(&c, g.cyc, sizeof c, cudaMemcpyDeviceToHost));
  return c;
}

long long median_of(std::vector<long long> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// Majority of `reps` trials: does walking `set` evict the target?
bool evicts(Gpu& g, int target, const std::vector<int>& set, long long cut, int reps = 5, int laps = 6) {
  int n = 0;
  for (int r = 0; r < reps; ++r) n += run(g, target, set, laps) > cut;
  return 2 * n > reps;
}

// `search` mode: a minimal eviction set by group elimination (Vila, Koepf and Morales) on the
// majority oracle, then which pool lines are congruent with the target (swapped for the set's
// first line, they restore the eviction): the ways and, from the congruent share, the sets.
int search(Gpu& g, int target, std::mt19937_64& rng) {
  std::vector<int> others;
  for (int l = 0; l < kPoolLines; ++l)
    if (l != target) others.push_back(l);
  std::vector<long long> h, m;
  for (int r = 0; r < 7; ++r) h.push_back(run(g, target, {}, 1));
  for (int r = 0; r < 5; ++r) m.push_back(run(g, target, others, 2));
  const long long cut = (median_of(h) + median_of(m)) / 2;
  printf("search, target %d: hit %lld, miss %lld, cut %lld\n", target, median_of(h), median_of(m), cut);
  std::vector<int> set;
  for (int tries = 0; tries < 50 && set.empty(); ++tries) {
    std::shuffle(others.begin(), others.end(), rng);
    std::vector<int> cand(others.begin(), others.begin() + 2304);
    if (evicts(g, target, cand, cut, 7) && evicts(g, target, cand, cut, 7)) set = cand;
  }
  if (set.empty()) return printf("  no evicting set of 2304 lines in 50 draws\n"), 1;
  // Group elimination: drop any of 24 groups whose removal keeps the eviction, until no group can go.
  int calls = 0;
  while (set.size() > 24) {
    const std::size_t groups = 24, n = set.size();
    bool dropped = false;
    for (std::size_t gi = 0; gi < groups && !dropped; ++gi) {
      const std::size_t a = gi * n / groups, b = (gi + 1) * n / groups;
      std::vector<int> rest(set.begin(), set.begin() + a);
      rest.insert(rest.end(), set.begin() + b, set.end());
      ++calls;
      if (evicts(g, target, rest, cut)) set = rest, dropped = true;
    }
    if (!dropped) break;
  }
  printf("  group elimination: %zu lines after %d calls\n", set.size(), calls);
  for (std::size_t i = 0; i < set.size();) {
    std::vector<int> rest = set;
    rest.erase(rest.begin() + std::ptrdiff_t(i));
    if (evicts(g, target, rest, cut, 7)) set = rest;
    else ++i;
  }
  printf("  minimal set: %zu lines:", set.size());
  for (int l : set) printf(" %d", l);
  printf("\n  eviction rate of the set, and of it without each line (of 20):");
  const auto rate = [&](const std::vector<int>& s) {
    int n = 0;
    for (int r = 0; r < 20; ++r) n += run(g, target, s, 6) > cut;
    return n;
  };
  printf(" whole %d;", rate(set));
  for (std::size_t i = 0; i < set.size(); ++i) {
    std::vector<int> rest = set;
    rest.erase(rest.begin() + std::ptrdiff_t(i));
    printf(" %d", rate(rest));
  }
  printf("\n");
  // Congruence: the set minus its first line, plus one candidate.
  std::vector<int> base(set.begin() + 1, set.end());
  base.push_back(0);
  int congruent = 0, tested = 0;
  std::vector<int> found;
  for (int c : others) {
    if (std::find(set.begin(), set.end(), c) != set.end()) continue;
    base.back() = c;
    ++tested;
    if (evicts(g, target, base, cut, 3)) ++congruent, found.push_back(c);
  }
  printf("  congruent: %d of %d other pool lines (with the set's %zu: %.1f sets if the pool spreads evenly)\n", congruent,
         tested, set.size(), double(tested + set.size()) / double(congruent + set.size()));
  printf("  congruent lines' addresses xor the target's (bytes, hex):");
  for (int c : found) printf(" %x", unsigned((c ^ target) * 128));
  printf("\n");
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "search") {
    Gpu g;
    CK(cudaMalloc(&g.buf, g.chain.size() * sizeof(unsigned)));
    CK(cudaMalloc(&g.cyc, sizeof(long long)));
    CK(cudaMalloc(&g.sink, sizeof(unsigned)));
    CK(cudaFuncSetAttribute(trial, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
    std::mt19937_64 rng(0x5e7);
    std::vector<int> all;
    for (int l = 1; l < kPoolLines; ++l) all.push_back(l);
    for (int r = 0; r < 2000; ++r) run(g, 0, all, 2);
    return search(g, argc > 2 ? atoi(argv[2]) : 0, rng);
  }
  const int sets = argc > 1 ? atoi(argv[1]) : 24, reps = argc > 2 ? atoi(argv[2]) : 10;
  Gpu g;
  CK(cudaMalloc(&g.buf, g.chain.size() * sizeof(unsigned)));
  CK(cudaMalloc(&g.cyc, sizeof(long long)));
  CK(cudaMalloc(&g.sink, sizeof(unsigned)));
  CK(cudaFuncSetAttribute(trial, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  const std::vector<int> lap_counts = argc > 3 ? std::vector<int>{atoi(argv[3])} : std::vector<int>{2, 6};
  std::mt19937_64 rng(0xe71c);
  {
    // Three seconds of walks first: an idle GPU's SM clock ramps up under the first launches, and
    // a miss costs fewer SM cycles at a low clock, which would blur the calibration.
    std::vector<int> all;
    for (int l = 1; l < kPoolLines; ++l) all.push_back(l);
    for (int r = 0; r < 2000; ++r) run(g, 0, all, 2);
  }
  for (int target : {2730, 0}) {
    std::vector<int> others;
    for (int l = 0; l < kPoolLines; ++l)
      if (l != target) others.push_back(l);
    std::vector<long long> h, m;
    for (int r = 0; r < 7; ++r) h.push_back(run(g, target, {}, 1));
    for (int r = 0; r < 5; ++r) m.push_back(run(g, target, others, 2));
    const long long hit = median_of(h), miss = median_of(m), cut = (hit + miss) / 2;
    printf("target %d: %d timed loads, hit %lld cycles, after two laps of the pool %lld (cut %lld)\n", target, kTimed,
           hit, miss, cut);
    if (miss < hit + 60) {
      printf("  no contrast: skipped\n");
      continue;
    }
    for (int laps : lap_counts) {
      printf("  laps %d\n  %6s %5s %10s %10s %12s %9s\n", laps, "k", "sets", "never", "always", "in between", "mean rate");
      for (int k : {768, 1024, 1280, 1536, 1664, 1792, 1856, 1920, 2048, 2304, 2560, 3072}) {
        int never = 0, always = 0, between = 0;
        double sum = 0;
        std::vector<int> rates;
        for (int s = 0; s < sets; ++s) {
          std::shuffle(others.begin(), others.end(), rng);
          const std::vector<int> set(others.begin(), others.begin() + k);
          int evicted = 0;
          for (int r = 0; r < reps; ++r) evicted += run(g, target, set, laps) > cut;
          never += evicted == 0;
          always += evicted == reps;
          between += evicted > 0 && evicted < reps;
          sum += double(evicted) / reps;
          rates.push_back(evicted);
        }
        printf("  %6d %5d %10d %10d %12d %9.3f   per set (of %d):", k, sets, never, always, between, sum / sets, reps);
        for (int e : rates) printf(" %d", e);
        printf("\n");
      }
    }
  }
  return 0;
}
