// The seed items (data/coverage/seed-items.csv) a latency.alu variant measures: only where the
// seed times the same instruction as the variant's chain (a "pair" or sequence variant is not
// the seed's single instruction, so it covers nothing).
#pragma once
#include <string>
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
      {"imad64", "latency.alu.mul_lo_u64"},   {"idiv_u32", "latency.alu.div_u32"}, {"idiv_u64", "latency.alu.div_u64"},
      {"fdiv_rn", "latency.alu.div_rn_f32"},  {"fdiv_full", "latency.fastmath.div"},
  };
  std::vector<SeedCover> out;
  for (const auto& [name, item] : kItems)
    if (name == variant) out.push_back({item, "latency/cycles", {}});
  return out;
}

// compute.alu.<variant>: the seeds' throughput items (peak in warp instructions per clock per
// sub-core, the ILP knee, the warps to saturate, SM-level IPC) for the rows they time.
inline std::vector<SeedCover> throughput_covers(std::string_view variant) {
  static constexpr std::pair<std::string_view, const char*> kFamilies[] = {
      {"ffma", "ffma"}, {"iadd3", "iadd3"}, {"mufu_ex2", "sfu"}};
  std::vector<SeedCover> out;
  for (const auto& [name, family] : kFamilies)
    if (name == variant) {
      const std::string f = std::string("throughput.") + family;
      out.push_back({f + ".peak", "throughput/warp_instr_per_clk_per_smsp", {}});
      out.push_back({f + ".ilp_knee", "knee/ilp", {}});
      out.push_back({f + ".saturation_warps", "knee/warps_per_sm", {}});
      out.push_back({std::string("throughput.sm_ipc.") + family, "throughput/warp_instr_per_clk_per_sm", {}});
    }
  if (variant == "simd_vabsdiff4") out.push_back({"throughput.simd.viadd_u8x4", "throughput/warp_instr_per_clk_per_smsp", {}});
  return out;
}

// pipes.interference.<variant>: the seeds' pipe of an instruction, answered by the derived
// record's text (ncu's busiest pipes and the interference class).
inline std::vector<SeedCover> pipe_covers(std::string_view variant) {
  static constexpr std::pair<std::string_view, const char*> kItems[] = {
      {"ffma", "ffma"},         {"iadd3", "iadd3"},       {"imad", "imad"},         {"lop3", "lop3"},
      {"dp4a", "dp4a"},         {"simd_vadd2", "viadd_16x2"}, {"fmnmx", "fmnmx"},   {"dpx_vimax3", "vimnmx"},
      {"dfma", "dfma"},         {"dmnmx_seq", "dmnmx"},   {"mufu_rcp", "mufu_rcp"}, {"mufu_sin_pair", "mufu_sin"},
      {"mufu_cos_pair", "mufu_cos"}, {"mufu_ex2", "mufu_ex2"}, {"mufu_lg2_fadd", "mufu_lg2"},
      {"mma_f16_f16", "hmma"},  {"fdiv_rn", "div_rn_f32"},
  };
  std::vector<SeedCover> out;
  for (const auto& [name, item] : kItems)
    if (name == variant) out.push_back({std::string("pipes.map.") + item, "extra.pipe", {{"method", std::string("both")}}});
  return out;
}

}  // namespace gd::alu_catalog
