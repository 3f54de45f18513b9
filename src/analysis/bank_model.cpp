#include "analysis/bank_model.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace gd {

int bank_wavefronts(std::span<const unsigned> offsets, int width) {
  if (width != 4 && width != 8 && width != 16) throw std::invalid_argument("bank_wavefronts: width must be 4, 8 or 16");
  std::set<unsigned> words[32];
  for (unsigned off : offsets) {
    if (off % unsigned(width) != 0) throw std::invalid_argument("bank_wavefronts: offset not aligned to the width");
    for (unsigned w = off / 4; w < (off + unsigned(width)) / 4; ++w) words[w % 32].insert(w);
  }
  std::size_t most = 0;
  for (const auto& b : words) most = std::max(most, b.size());
  return int(most);
}

}  // namespace gd
