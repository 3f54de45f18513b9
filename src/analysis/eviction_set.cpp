#include "analysis/eviction_set.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace gd {
namespace {

// The found lines followed by the first `count` candidates: one oracle question.
std::vector<std::size_t> with_prefix(const std::vector<std::size_t>& found, std::span<const std::size_t> rest,
                                     std::size_t count) {
  std::vector<std::size_t> lines = found;
  lines.insert(lines.end(), rest.begin(), rest.begin() + std::ptrdiff_t(count));
  return lines;
}

}  // namespace

EvictionSearch find_eviction_set(std::span<const std::size_t> pool, const EvictionOracle& evicts,
                                 const EvictionSearchLimits& limits) {
  if (pool.empty()) throw std::invalid_argument("the eviction-set search needs a non-empty pool");
  if (std::set<std::size_t>(pool.begin(), pool.end()).size() != pool.size())
    throw std::invalid_argument("the eviction-set pool holds a line twice");
  const std::size_t max_set = limits.max_set ? limits.max_set : pool.size();
  EvictionSearch s;
  const auto ask = [&](const std::vector<std::size_t>& lines) {
    ++s.oracle_calls;
    return evicts(lines);
  };
  std::vector<std::size_t> found;
  std::vector<std::size_t> rest(pool.begin(), pool.end());
  if (!ask(rest)) {
    s.note = "the whole pool of " + std::to_string(pool.size()) + " lines does not evict the target: it needs a larger pool";
    return s;
  }
  while (true) {
    if (!found.empty() && ask(found)) break;
    if (s.oracle_calls >= limits.max_calls) {
      s.note = "gave up after " + std::to_string(s.oracle_calls) + " oracle calls with " + std::to_string(found.size()) + " lines found";
      return s;
    }
    if (limits.out_of_time && limits.out_of_time()) {
      s.note = "the time budget ran out after " + std::to_string(s.oracle_calls) + " oracle calls with " +
               std::to_string(found.size()) + " lines found";
      return s;
    }
    // The smallest count of candidates that, with the lines found, evicts: lo does not, hi does.
    std::size_t lo = 0, hi = rest.size();
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      (ask(with_prefix(found, rest, mid)) ? hi : lo) = mid;
    }
    if (s.first_prefix == 0) s.first_prefix = found.size() + hi;
    if (hi == rest.size() && !ask(with_prefix(found, rest, hi))) {
      s.note = "the eviction went away while the set was searched (" + std::to_string(found.size()) +
               " lines found): the oracle is not repeatable";
      return s;
    }
    found.push_back(rest[hi - 1]);  // the line that tipped the walk into evicting
    rest.resize(hi - 1);            // the set's other lines lie before it
    if (found.size() > max_set) {
      s.note = "no eviction set of at most " + std::to_string(max_set) + " lines: the smallest evicting prefix held " +
               std::to_string(s.first_prefix) + " lines";
      return s;
    }
  }
  // Minimal: without any one of its lines the set no longer evicts.
  s.minimal_checked = true;
  for (std::size_t i = 0; i < found.size(); ++i) {
    std::vector<std::size_t> without = found;
    without.erase(without.begin() + std::ptrdiff_t(i));
    if (ask(without)) ++s.dispensable;
  }
  s.set = found;
  s.found = s.dispensable == 0;
  s.note = s.found ? std::to_string(found.size()) + " lines evict the target and no " + std::to_string(found.size() - 1) +
                         " of them do: " + std::to_string(found.size()) + " ways"
                   : std::to_string(s.dispensable) + " of the " + std::to_string(found.size()) +
                         " lines found could be dropped and the rest still evicted: the oracle is noisy";
  return s;
}

Congruence classify_congruent(std::span<const std::size_t> set, std::span<const std::size_t> candidates,
                              const EvictionOracle& evicts) {
  if (set.empty()) throw std::invalid_argument("classifying congruent lines needs an eviction set");
  Congruence c;
  std::vector<std::size_t> lines(set.begin() + 1, set.end());
  lines.push_back(0);
  for (std::size_t cand : candidates) {
    if (std::find(set.begin(), set.end(), cand) != set.end())
      throw std::invalid_argument("a candidate is a line of the eviction set");
    lines.back() = cand;
    ++c.tested;
    if (evicts(lines)) c.congruent.push_back(cand);
  }
  c.sets = c.congruent.empty() ? 0 : double(c.tested) / double(c.congruent.size());
  return c;
}

}  // namespace gd
