// Dependent-chain latency of the catalog of ALU, FP, SFU and conversion instructions
// (alu_catalog.cuh): the number of cycles a kernel author must hide with independent work
// between a result and its use, per instruction.
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "alu_chain.cuh"
#include "alu_seed_items.hpp"
#include "core/registry.hpp"

namespace gd {
namespace {

// Seed items whose PTX instruction ptxas always compiles to a short sequence, which the row times
// as it is: sin.approx.f32 (and sinf under --use_fast_math, which is __sinf = sin.approx.f32) is
// FMUL.RZ by 1/2pi then MUFU.SIN; cos.approx.f32 the same with MUFU.COS; min.f64 has no DMNMX
// on sm_90 and runs DSETP.MIN + FSEL + SEL + LOP3. The seeds timed the same PTX, so the chain
// answers them; the row's description names the sequence.
constexpr std::pair<std::string_view, const char*> kCompiledPairItems[] = {
    {"mufu_sin_pair", "latency.sfu.sin"},
    {"mufu_sin_pair", "latency.fastmath.sin"},
    {"mufu_cos_pair", "latency.sfu.cos"},
    {"dmnmx_seq", "latency.fp64.dmnmx"},
};

template <class Op>
ProbeSpec alu_latency_spec() {
  ProbeSpec s = alu_chain::chain_latency_spec<Op>();
  s.covers = alu_catalog::seed_covers(Op::name);
  for (const auto& [row, item] : kCompiledPairItems)
    if (row == Op::name) s.covers.push_back({item, "latency/cycles", {}});
  return s;
}

[[maybe_unused]] const bool registered = [] {
  alu_catalog::for_each_variant_of_this_slice([](auto* row) { ProbeRegistration{alu_latency_spec<std::remove_pointer_t<decltype(row)>>()}; });
  return true;
}();

}  // namespace
}  // namespace gd
