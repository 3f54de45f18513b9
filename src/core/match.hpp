// Id matching for filters, and "did you mean" suggestions for ids that match nothing.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace gd {

// Shell-style glob: '*' any run (dots included), '?' one character, everything else literal.
bool glob_match(std::string_view pattern, std::string_view text);
std::size_t edit_distance(std::string_view a, std::string_view b);
// Up to `limit` candidates closest to `query` (edit distance, then shared prefix), best first.
std::vector<std::string> closest(const std::string& query, const std::vector<std::string>& candidates,
                                 std::size_t limit = 3);

}  // namespace gd
