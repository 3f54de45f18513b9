#include "analysis/sm_rate.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace gd {

std::vector<SmRate> per_sm_rates(std::span<const RegionTiming> blocks, double bytes_per_block) {
  if (!(bytes_per_block > 0)) throw std::invalid_argument("per_sm_rates: bytes_per_block must be positive");
  struct Span {
    long long first = 0, last = 0;
    int blocks = 0;
  };
  std::map<unsigned, Span> by_sm;
  for (const RegionTiming& b : blocks) {
    if (b.cycles <= 0) continue;
    auto [it, fresh] = by_sm.try_emplace(b.smid, Span{b.start_cycle, b.start_cycle + b.cycles, 0});
    Span& s = it->second;
    if (!fresh) {
      s.first = std::min(s.first, b.start_cycle);
      s.last = std::max(s.last, b.start_cycle + b.cycles);
    }
    ++s.blocks;
  }
  std::vector<SmRate> out;
  for (const auto& [sm, s] : by_sm) {
    const double cycles = double(s.last - s.first);
    if (cycles <= 0) continue;
    out.push_back({sm, s.blocks, cycles, s.blocks * bytes_per_block / cycles});
  }
  return out;
}

}  // namespace gd
