// End to end through the real binary's `resummarize`: the derived records that relate two
// measured points of one probe (a latency difference, Little's law, a rate ratio, a speedup)
// come out of synthetic points with the values the relation must give, and not without a partner.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "sass/disasm.hpp"
#include "support/committed_suite.hpp"
#include "support/shell.hpp"

namespace gd {
namespace {


using Metrics = std::vector<std::pair<std::string, double>>;

nlohmann::json metric(const std::string& name, double v) {
  return {{"name", name}, {"unit", ""}, {"value", v}, {"median", v}, {"min", v}, {"max", v}, {"mean", v},
          {"n", 1},       {"stddev", 0}};
}

// A measured point shaped like the suite's first record, with this id, params and metrics.
nlohmann::json point(const nlohmann::json& like, const std::string& id, nlohmann::json params, const Metrics& ms) {
  nlohmann::json r = like;
  r["id"] = id;
  r["category"] = id.substr(0, id.find('.'));
  r["params"] = std::move(params);
  r["derived"] = false;
  r["status"] = "ok";
  r["reason"] = "";
  r["extra"] = nlohmann::json::object();
  r["kernels"] = nlohmann::json::array();
  r["metrics"] = nlohmann::json::array();
  for (const auto& [name, v] : ms) r["metrics"].push_back(metric(name, v));
  return r;
}

class DerivedRelations : public ::testing::Test {
 protected:

  // Resummarizes a run of these points; returns the derived records.
  std::vector<nlohmann::json> derive(const std::vector<nlohmann::json>& points) {
    nlohmann::json doc = test_support::committed_suite();
    doc["records"] = points;
    const std::string dir = ::testing::TempDir();
    const std::string in = dir + "derived_relations_" + std::to_string(::getpid()) + ".json";
    const std::string out = dir + "derived_relations_" + std::to_string(::getpid()) + ".out.json";
    std::ofstream(in) << doc.dump();
    const auto r = run_command(std::string(GPUDISSECT_BINARY) + " resummarize " + shell_quote(in) +
                                     " --out " + shell_quote(out) + " 2>&1");
    EXPECT_EQ(r.status, 0) << r.output;
    std::ifstream got(out);
    const nlohmann::json res = nlohmann::json::parse(got);
    std::vector<nlohmann::json> derived;
    for (const auto& rec : res["records"])
      if (rec.value("derived", false)) derived.push_back(rec);
    return derived;
  }
  const nlohmann::json& like() const { return test_support::committed_suite()["records"][0]; }

};

// The metric `name` of the derived record whose params include all of `where`; NaN when none.
double value_at(const std::vector<nlohmann::json>& derived, const nlohmann::json& where, const std::string& name) {
  for (const auto& r : derived) {
    bool all = true;
    for (const auto& [k, v] : where.items()) all = all && r["params"].contains(k) && r["params"][k] == v;
    if (!all) continue;
    for (const auto& m : r["metrics"])
      if (m["name"] == name) return m["median"].get<double>();
  }
  return std::nan("");
}

TEST_F(DerivedRelations, LatencyDifferenceIsVariantMinusBase) {
  const auto d = derive({point(like(), "latency.delta.subnormal", {{"row", "ffma"}}, {{"latency/cycles", 4.0}}),
                         point(like(), "latency.delta.subnormal", {{"row", "ffma_subnormal"}}, {{"latency/cycles", 4.12}})});
  EXPECT_NEAR(value_at(d, {{"row", "difference"}}, "latency/extra_cycles"), 0.12, 1e-12);
  // Without its partner there is no difference to state.
  EXPECT_TRUE(derive({point(like(), "latency.delta.fneg_fabs", {{"row", "ffma"}}, {{"latency/cycles", 4.0}})}).empty());
}

TEST_F(DerivedRelations, PipeDepthIsLatencyTimesIssueRateAndVpipeIsComparedWithIadd3) {
  const std::string id = "compute.pipe_depth";
  const auto d = derive({
      point(like(), id, {{"row", "ffma"}, {"part", "latency"}}, {{"latency/cycles", 4.0}}),
      point(like(), id, {{"row", "ffma"}, {"part", "rate"}}, {{"throughput/warp_instr_per_clk_per_smsp", 1.0}}),
      point(like(), id, {{"row", "iadd3"}, {"part", "latency"}}, {{"latency/cycles", 4.5}}),
      point(like(), id, {{"row", "iadd3"}, {"part", "rate"}}, {{"throughput/warp_instr_per_clk_per_smsp", 0.5}}),
      point(like(), id, {{"row", "simd_vadd2"}, {"part", "rate"}}, {{"throughput/warp_instr_per_clk_per_smsp", 0.8}}),
      point(like(), id, {{"row", "mufu_ex2"}, {"part", "latency"}}, {{"latency/cycles", 17.0}}),
  });
  EXPECT_DOUBLE_EQ(value_at(d, {{"row", "ffma"}, {"part", "depth"}}, "depth/in_flight"), 4.0);
  EXPECT_DOUBLE_EQ(value_at(d, {{"row", "iadd3"}, {"part", "depth"}}, "depth/in_flight"), 2.25);
  EXPECT_NEAR(value_at(d, {{"row", "simd_vadd2"}, {"part", "vs_iadd3"}}, "ratio/percent_over_iadd3"), 60.0, 1e-9);
  // mufu_ex2 has no rate point: no depth.
  EXPECT_TRUE(std::isnan(value_at(d, {{"row", "mufu_ex2"}, {"part", "depth"}}, "depth/in_flight")));
}

TEST_F(DerivedRelations, Fp64PeakIsTheBestDfmaPointAndTheRatioOfBestRates) {
  const std::string id = "compute.peak.fp64";
  const auto at = [&](const char* op, int ilp, double rate, double tflops) {
    return point(like(), id, {{"op", op}, {"ilp", ilp}, {"warps_per_sm", 32}},
                 {{"throughput/fma_per_clk_per_sm", rate}, {"throughput/tflops", tflops}});
  };
  const auto d = derive({at("dfma", 4, 60, 31), at("dfma", 8, 64, 33.5), at("ffma", 4, 128, 67), at("ffma", 8, 120, 62)});
  EXPECT_DOUBLE_EQ(value_at(d, {{"op", "dfma"}, {"ilp", "best"}}, "throughput/tflops"), 33.5);
  EXPECT_DOUBLE_EQ(value_at(d, {{"op", "fp64_per_fp32"}}, "ratio/fp64_per_fp32"), 0.5);
}

TEST_F(DerivedRelations, SparseSpeedupForwardingAndPrefetchCost) {
  const auto d = derive({
      point(like(), "tensor.mma_sp.speedup", {{"mma", "dense"}}, {{"throughput/flop_per_clk_per_sm", 4000}}),
      point(like(), "tensor.mma_sp.speedup", {{"mma", "sparse"}}, {{"throughput/flop_per_clk_per_sm", 7840}}),
      point(like(), "tensor.mma_sync.c_to_a", {{"feed", "c"}}, {{"latency/cycles", 24}}),
      point(like(), "tensor.mma_sync.c_to_a", {{"feed", "a"}}, {{"latency/cycles", 26.5}}),
      point(like(), "tensor.mma_sync.ldmatrix_prefetch", {{"loop", "mma"}}, {{"latency/cycles", 24}}),
      point(like(), "tensor.mma_sync.ldmatrix_prefetch", {{"loop", "mma_ldmatrix"}}, {{"latency/cycles", 31}}),
  });
  EXPECT_DOUBLE_EQ(value_at(d, {{"mma", "speedup"}}, "speedup/x"), 1.96);
  EXPECT_DOUBLE_EQ(value_at(d, {{"feed", "difference"}}, "latency/extra_cycles"), 2.5);
  EXPECT_DOUBLE_EQ(value_at(d, {{"loop", "difference"}}, "latency/extra_cycles"), 7);
}

// The whole L2 from every SM's chase: the last footprint before the latency step and the first past
// it, with the item's text answer; a curve with no step says so instead of inventing a size.
TEST_F(DerivedRelations, WholeL2IsTheAllSmChaseStepAndAFlatCurveHasNone) {
  const auto chase = [&](const std::vector<std::pair<double, double>>& curve) {
    std::vector<nlohmann::json> pts;
    for (const auto& [mib, cycles] : curve)
      pts.push_back(point(like(), "memory.hierarchy.l2_all_sms", {{"bytes", std::int64_t(mib * 1048576)}},
                          {{"latency/cycles", cycles}}));
    return derive(pts);
  };
  std::vector<std::pair<double, double>> step, flat;
  for (double mib = 16; mib < 200; mib *= 1.1) {
    step.push_back({mib, mib < 48 ? 288.5 + 0.1 * std::fmod(mib, 3) : 673.8 - 0.1 * std::fmod(mib, 2)});
    flat.push_back({mib, 288.5 + 0.1 * std::fmod(mib, 3)});
  }
  const auto d = chase(step);
  const nlohmann::json whole = {{"level", "L2"}, {"quantity", "capacity"}};
  const double below = value_at(d, whole, "capacity/bytes"), above = value_at(d, whole, "capacity/upper_bytes");
  EXPECT_LT(below, 48.0 * 1048576);
  EXPECT_GT(below, 48.0 / 1.1 * 1048576);
  EXPECT_GT(above, 48.0 * 1048576);
  EXPECT_LT(above, 48.0 * 1.1 * 1048576);
  EXPECT_GT(value_at(d, whole, "capacity/confidence"), 0.99);
  std::string answer;
  for (const auto& r : d)
    if (r["params"] == whole) answer = r["extra"].value("capacity_answer", "");
  EXPECT_NE(answer.find(" MiB to "), std::string::npos) << answer;  // "4x.x MiB to 4x.x MiB (confidence .../1000)"
  EXPECT_NE(answer.find("(confidence "), std::string::npos) << answer;
  for (const auto& r : chase(flat))
    if (r["params"] == whole) {
      EXPECT_TRUE(r["metrics"].empty()) << r.dump();
      EXPECT_EQ(r["extra"].value("capacity_answer", "").rfind("undetermined", 0), 0u) << r.dump();
    }
}

}  // namespace
}  // namespace gd
