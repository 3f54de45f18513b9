#include "analysis/eviction_set.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace gd {
namespace {

// The set without lines [from, to).
std::vector<std::size_t> without(const std::vector<std::size_t>& set, std::size_t from, std::size_t to) {
  std::vector<std::size_t> rest(set.begin(), set.begin() + std::ptrdiff_t(from));
  rest.insert(rest.end(), set.begin() + std::ptrdiff_t(to), set.end());
  return rest;
}

// Asks the oracle, counting the calls and watching the limits; `stop` holds why it ended early.
class Asker {
 public:
  Asker(const EvictionOracle& evicts, const EvictionSearchLimits& limits, EvictionSearch& s)
      : evicts_(evicts), limits_(limits), s_(s) {}
  bool operator()(const std::vector<std::size_t>& lines) {
    ++s_.oracle_calls;
    return evicts_(lines);
  }
  // Before a round: false (with the reason in the search's note) once a limit is reached.
  bool may_go_on(std::size_t lines_left) {
    std::string why;
    if (s_.oracle_calls >= limits_.max_calls) why = "gave up after " + std::to_string(s_.oracle_calls) + " oracle calls";
    else if (limits_.out_of_time && limits_.out_of_time())
      why = "the time budget ran out after " + std::to_string(s_.oracle_calls) + " oracle calls";
    if (why.empty()) return true;
    s_.note = why + " with " + std::to_string(lines_left) + " lines left of " + std::to_string(s_.start_lines);
    return false;
  }

 private:
  const EvictionOracle& evicts_;
  const EvictionSearchLimits& limits_;
  EvictionSearch& s_;
};

}  // namespace

EvictionSearch find_eviction_set(std::span<const std::size_t> pool, const EvictionOracle& evicts,
                                 const EvictionSearchLimits& limits) {
  if (pool.empty()) throw std::invalid_argument("the eviction-set search needs a non-empty pool");
  if (std::set<std::size_t>(pool.begin(), pool.end()).size() != pool.size())
    throw std::invalid_argument("the eviction-set pool holds a line twice");
  if (limits.groups < 2) throw std::invalid_argument("group elimination needs at least 2 groups");
  const std::size_t max_set = limits.max_set ? limits.max_set : pool.size();
  EvictionSearch s;
  Asker ask(evicts, limits, s);
  std::vector<std::size_t> set(pool.begin(), pool.end());
  if (!ask(set)) {
    s.note = "the whole pool of " + std::to_string(pool.size()) + " lines does not evict the target: it needs a larger pool";
    return s;
  }
  // The start: the pool's first three quarters, and so on, while they still evict (a call each
  // where the elimination would spend several on the same lines).
  for (std::size_t part = set.size() * 3 / 4; part > limits.groups && ask({set.begin(), set.begin() + std::ptrdiff_t(part)});
       part = set.size() * 3 / 4)
    set.resize(part);
  s.start_lines = set.size();
  // Group elimination: a pass drops, one after another, every group whose removal keeps the
  // eviction (groups are cut from the set the pass began with, last first so that what is left
  // of the earlier ones keeps its place).
  for (std::size_t groups = limits.groups; set.size() > groups;) {
    if (!ask.may_go_on(set.size())) return s;
    const std::size_t n = set.size();
    for (std::size_t g = groups; g-- > 0;) {
      std::vector<std::size_t> rest = without(set, g * n / groups, (g + 1) * n / groups);
      if (ask(rest)) set = std::move(rest);
    }
    if (set.size() == n) groups *= 2;  // more ways than groups: smaller groups
  }
  // Single lines, the same way.
  if (!ask.may_go_on(set.size())) return s;
  for (std::size_t i = 0; i < set.size();) {
    std::vector<std::size_t> rest = without(set, i, i + 1);
    if (ask(rest)) set = std::move(rest);
    else ++i;
  }
  // A wrong "still evicts" drops a line the set needs, and every answer after it is "no": the set
  // left must itself still evict before its minimality means anything.
  if (!ask(set)) {
    s.note = "the " + std::to_string(set.size()) + " lines left no longer evict the target: an answer along the way was wrong (the oracle is noisy)";
    return s;
  }
  // Minimal: asked again, without any one of its lines the set no longer evicts.
  s.minimal_checked = true;
  for (std::size_t i = 0; i < set.size(); ++i)
    if (ask(without(set, i, i + 1))) ++s.dispensable;
  s.set = set;
  const std::string lines = std::to_string(set.size());
  if (s.dispensable > 0) {
    s.note = std::to_string(s.dispensable) + " of the " + lines +
             " lines found could be dropped and the rest still evicted: the oracle is noisy";
  } else if (set.size() > max_set) {
    s.note = "no eviction set of at most " + std::to_string(max_set) + " lines: the minimal set found holds " + lines;
  } else {
    s.found = true;
    s.note = lines + " lines evict the target and no " + std::to_string(set.size() - 1) + " of them do (" +
             std::to_string(s.oracle_calls) + " oracle calls from " + std::to_string(s.start_lines) + " lines)";
  }
  return s;
}

EvictionOracle majority_oracle(int walks, EvictionOracle walk) {
  if (walks < 1 || walks % 2 == 0) throw std::invalid_argument("a majority oracle needs an odd number of walks");
  return [walks, walk = std::move(walk)](std::span<const std::size_t> lines) {
    int yes = 0, no = 0;
    while (2 * yes <= walks && 2 * no <= walks) (walk(lines) ? yes : no) += 1;
    return 2 * yes > walks;
  };
}

Congruence classify_congruent(std::span<const std::size_t> set, std::span<const std::size_t> candidates,
                              const EvictionOracle& evicts, const std::function<bool()>& out_of_time) {
  if (set.empty()) throw std::invalid_argument("classifying congruent lines needs an eviction set");
  Congruence c;
  std::vector<std::size_t> lines(set.begin() + 1, set.end());
  lines.push_back(0);
  for (std::size_t cand : candidates)
    if (std::find(set.begin(), set.end(), cand) != set.end())
      throw std::invalid_argument("a candidate is a line of the eviction set");
  for (std::size_t cand : candidates) {
    if (out_of_time && out_of_time()) break;
    lines.back() = cand;
    ++c.tested;
    if (evicts(lines)) c.congruent.push_back(cand);
  }
  // The target's set holds the target, the set and the congruent lines, out of the target, the
  // set and the candidates tested.
  const double in_set = double(c.congruent.size() + set.size() + 1);
  c.sets = double(c.tested + set.size() + 1) / in_set;
  return c;
}

}  // namespace gd
