#include "core/match.hpp"

#include <algorithm>
#include <numeric>

namespace gd {

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative matcher with single backtrack point: linear for the patterns ids use.
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::vector<std::string> closest(const std::string& query, const std::vector<std::string>& candidates,
                                 std::size_t limit) {
  // Glob characters say nothing about closeness; compare the literal part.
  std::string literal;
  for (char c : query)
    if (c != '*' && c != '?') literal += c;
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& c : candidates) {
    // A query that is a fragment of an id ("chase") should find it despite the length gap.
    const bool contains = !literal.empty() && c.find(literal) != std::string::npos;
    scored.emplace_back(contains ? 0 : edit_distance(literal, c), c);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < limit; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace gd
