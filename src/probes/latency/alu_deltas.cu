// What a variant of an instruction adds to its latency (subnormal operands, a negate-and-abs
// source modifier) as the difference of two chains timed in one probe, and the I2IP pack
// conversion's and expf's chains: whether a kernel author pays for denormals or for folded -|x|.
#include <algorithm>
#include <string>
#include <vector>

#include "alu_chain.cuh"
#include "alu_extra_rows.cuh"
#include "analysis/rate_relations.hpp"
#include "core/registry.hpp"

namespace gd {
namespace probe_alu_deltas {

using alu_extra_rows::CvtPackI2ip;
using alu_extra_rows::FfmaNegAbs;

// latency.delta.<name>: the base row's and the variant's chains as two points (row = base or
// variant), and a derived {row: difference} record, variant minus base, naming both.
template <class Base, class Variant>
void run_delta(ProbeContext& ctx) {
  const std::string row = ctx.str_param("row");
  if (row == Base::name) alu_chain::run_alu_latency<Base>(ctx);
  else if (row == Variant::name) alu_chain::run_alu_latency<Variant>(ctx);
  else throw Error("row must be " + std::string(Base::name) + " or " + Variant::name + "; got " + row);
}

template <class Base, class Variant>
void summarize_delta(SummaryContext& sc) {
  derive_difference(sc, "row", Base::name, Variant::name, "latency/cycles", "latency/extra_cycles");
}

template <class Base, class Variant>
ProbeSpec delta_spec(const char* name, const char* item) {
  ProbeSpec s;
  s.id = std::string("latency.delta.") + name;
  s.description = std::string("extra latency of ") + Variant::description + " over " + Base::description +
                  " (difference of two chain slopes, one warp)";
  s.needs.min_cc = std::max(Base::min_cc, Variant::min_cc);
  s.axes = {Axis::list("row", std::vector<std::string>{Base::name, Variant::name})};
  s.sass = alu_chain::chain_latency_sass<Base>();
  for (SassExpectation& e : alu_chain::chain_latency_sass<Variant>()) s.sass.push_back(std::move(e));
  s.metrics = chain_latency_metrics("cycles from a result to its dependent use");
  s.metrics.push_back({"latency/extra_cycles", "cycles", "the variant's chain latency minus the base row's"});
  s.views = {bars_view("latency/cycles")};
  s.covers = {{item, "latency/extra_cycles", {{"row", std::string("difference")}}}};
  s.run = run_delta<Base, Variant>;
  s.summarize = summarize_delta<Base, Variant>;
  s.time_cap_s = 6;
  s.quick_time_cap_s = 2;
  return s;
}

[[maybe_unused]] const bool registered = [] {
  ProbeRegistration{delta_spec<alu_catalog::Ffma, alu_catalog::FfmaSubnormal>("subnormal", "latency.alu.subnormal_penalty")};
  ProbeRegistration{delta_spec<alu_catalog::Ffma, FfmaNegAbs>("fneg_fabs", "latency.alu.fneg_fabs")};
  // The e4m3 pack's chain needs a LOP3 (zero-extension) per step: its latency is the difference.
  ProbeRegistration{delta_spec<alu_catalog::Lop3, alu_extra_rows::Fp8E4m3Pack>("fp8_e4m3_pack", "latency.cvt.fp8_e4m3_pack")};
  ProbeSpec pack = alu_chain::chain_latency_spec<CvtPackI2ip>();
  pack.covers = {{"latency.cvt.pack_i2ip", "latency/cycles", {}}};
  ProbeRegistration{std::move(pack)};
  ProbeSpec unpack = alu_chain::chain_latency_spec<alu_extra_rows::Fp8E4m3Unpack>();
  unpack.covers = {{"latency.cvt.fp8_e4m3_unpack", "latency/cycles", {}}};
  ProbeRegistration{std::move(unpack)};
  // The softmax's expf: what it compiles to (its checked SASS) and its chain latency.
  ProbeSpec expf = alu_chain::chain_latency_spec<alu_extra_rows::Expf>();
  expf.covers = {{"isa.lowering.expf", "sass", {}}};
  ProbeRegistration{std::move(expf)};
  return true;
}();

}  // namespace probe_alu_deltas
}  // namespace gd
