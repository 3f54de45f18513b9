// The seed items (data/coverage/seed-items.csv) a latency.alu variant measures: only where the
// seed times the same instruction as the variant's chain (a "pair" or sequence variant is not
// the seed's single instruction, so it covers nothing).
#pragma once
#include <string_view>
#include <utility>
#include <vector>

#include "core/probe.hpp"

namespace gd::alu_catalog {

inline std::vector<SeedCover> seed_covers(std::string_view variant) {
  static constexpr std::pair<std::string_view, const char*> kItems[] = {
      {"iadd3", "latency.alu.iadd3"},         {"imad", "latency.alu.imad"},     {"lop3", "latency.alu.lop3"},
      {"imad_hi", "latency.alu.imad_hi"},     {"popc", "latency.alu.popc"},     {"dp4a", "latency.alu.dp4a"},
      {"iadd64_native", "latency.alu.iadd_64"}, {"ffma", "latency.alu.ffma"},   {"fmnmx", "latency.alu.fmnmx"},
      {"simd_vadd2", "latency.simd.viadd_16x2"}, {"dfma", "latency.fp64.dfma"}, {"mufu_rcp", "latency.sfu.rcp"},
  };
  std::vector<SeedCover> out;
  for (const auto& [name, item] : kItems)
    if (name == variant) out.push_back({item, "latency/cycles", {}});
  return out;
}

}  // namespace gd::alu_catalog
