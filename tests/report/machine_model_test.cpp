// The machine model of the committed H200 run: every part present, each value the record's, the
// roofline's ceilings from the headlines, and a run without those records leaving parts empty.
#include "report/machine_model.hpp"

#include <gtest/gtest.h>

#include "report/headlines.hpp"
#include "support/committed_suite.hpp"
#include "support/sample_run.hpp"

namespace gd {
namespace {

double headline(const std::string& quantity) {
  for (const Headline& h : resolve_headlines(test_support::committed_suite_doc()))
    if (h.rule->quantity == quantity) return h.value.value;
  return NAN;
}

TEST(MachineModel, TheCommittedRunFillsEveryPart) {
  const nlohmann::json m = machine_model(test_support::committed_suite_doc());
  EXPECT_EQ(m["kind"], "gpudissect-machine-model");
  EXPECT_EQ(m["version"], kMachineModelVersion);
  EXPECT_EQ(m["gpu"]["sm_count"], 132);
  EXPECT_GE(m["instructions"].size(), 40u);
  EXPECT_NEAR(m["clock"]["in_kernel_sm_mhz"].get<double>(), 1980, 30);
  std::map<std::string, double> level;
  for (const auto& l : m["memory"]) level[l["level"]] = l["latency_cycles"];
  EXPECT_EQ(level.at("L1"), 32);
  EXPECT_GT(level.at("DRAM"), level.at("L2"));
  EXPECT_GT(m["launch"]["launch_async_us"].get<double>(), 0);
  EXPECT_EQ(m["headlines"]["dram.read_bandwidth"]["value"].get<double>(), headline("dram.read_bandwidth"));
  EXPECT_EQ(m["sync"]["cta_barrier"].size(), 6u);
  EXPECT_GT(m["sync"]["cluster_barrier"][0]["latency/cycles"].get<double>(), 0);
  bool gemm_slows = false;
  for (const auto& p : m["clock_under_load"])
    if (p["params"]["load"] == "bf16_gemm") gemm_slows = p["clock/loaded_mhz"].get<double>() < p["clock/idle_mhz"].get<double>();
  EXPECT_TRUE(gemm_slows) << "a bf16 GEMM pulls the SM clock down on the H200";
}

// A tensor rate measured at a lowered clock carries that clock and its projection to the
// application clock, labelled as such.
TEST(MachineModel, ATensorRateCarriesItsClockAndTheApplicationClocksProjection) {
  const nlohmann::json model = machine_model(test_support::committed_suite_doc());
  for (const auto& c : model["roofline"]["compute"]) {
    if (c["name"] != "wgmma bf16 → f32") continue;
    const double mhz = c["sm_clock_mhz"], rate = c["tera_ops_per_s"];
    EXPECT_LT(mhz, 1980);
    EXPECT_NEAR(c["at_application_clock"]["tera_ops_per_s"].get<double>(), rate * 1980 / mhz, 1e-6 * rate);
    EXPECT_EQ(c["at_application_clock"]["how"].get<std::string>().rfind("projected", 0), 0u);
    return;
  }
  FAIL() << "no bf16 wgmma ceiling";
}

// FP32 and every tensor type from their headlines; FP64 from DFMA per clock per SM, converted at
// its record's clock: 63.71 x 2 x 132 x ~1961 MHz = ~33 TFLOPS, half of FP32's 66.
TEST(MachineModel, TheRooflineCeilingsAreTheHeadlines) {
  const nlohmann::json r = machine_model(test_support::committed_suite_doc())["roofline"];
  std::map<std::string, double> compute, bandwidth;
  for (const auto& c : r["compute"]) compute[c["name"]] = c["tera_ops_per_s"];
  for (const auto& b : r["bandwidth"]) bandwidth[b["level"]] = b["tb_per_s"];
  EXPECT_EQ(compute.at("FP32 FMA peak"), headline("fp32.peak"));
  EXPECT_EQ(compute.at("wgmma bf16 → f32"), headline("tensor.wgmma.bf16_f32"));
  EXPECT_NEAR(compute.at("FP64 DFMA peak") / compute.at("FP32 FMA peak"), 0.5, 0.02);
  EXPECT_EQ(bandwidth.at("DRAM"), headline("dram.read_bandwidth"));
  EXPECT_EQ(bandwidth.at("L2"), headline("l2.read_bandwidth"));
  EXPECT_EQ(bandwidth.at("L1"), headline("l1.read_bandwidth"));
}

TEST(MachineModel, ARunWithoutTheRecordsLeavesThePartsEmpty) {
  RunDocument b;
  b.run_id = "sm100";
  b.device = test_support::device("NVIDIA B200", 10, 148);
  const nlohmann::json m = machine_model(b);
  EXPECT_TRUE(m["instructions"].empty());
  EXPECT_TRUE(m["memory"].empty());
  EXPECT_TRUE(m["roofline"]["compute"].empty());
  EXPECT_FALSE(m.contains("clock")) << "no in-kernel clock: no clock, not a guess";
  EXPECT_EQ(m["gpu"]["sm_count"], 148);
}

}  // namespace
}  // namespace gd
