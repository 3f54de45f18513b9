// The machine model of the committed H200 run: every part present, each value the record's, the
// roofline's ceilings from the headlines, and a run without those records leaving parts empty.
#include "report/machine_model.hpp"

#include <map>

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

// Each tensor instruction and type gets one row, its best rate with the shape that won and its
// lowest latency; the committed H200 run has every wgmma type and the mma.sync rows.
TEST(MachineModel, TensorRowsAreEachTypesBestRateWithItsShape) {
  const nlohmann::json model = machine_model(test_support::committed_suite_doc());
  std::map<std::string, nlohmann::json> row;
  for (const auto& t : model["tensor"]) row[t["instruction"].get<std::string>() + " " + t["type"].get<std::string>()] = t;
  ASSERT_TRUE(row.count("wgmma bf16_f32"));
  EXPECT_EQ(row["wgmma bf16_f32"]["tera_ops_per_s"].get<double>(), headline("tensor.wgmma.bf16_f32"))
      << "the row's best is the headline's record";
  EXPECT_EQ(row["wgmma bf16_f32"]["latency_record"].get<std::string>().rfind("tensor.wgmma.latency ", 0), 0u);
  EXPECT_TRUE(row.count("mma.sync f16_f32.m16n8k16"));
  EXPECT_FALSE(row.count("mma.sp speedup")) << "the speedup analysis is no instruction";
}

// Blackwell on paper (issue 28): a synthetic sm_100a run's tcgen05.mma rows, one per type, CTA
// group and operand source (A from TMEM: ts), and their ceilings in the roofline; an sm_120a run's
// FP4/FP6 mma.sync rows and ceilings. The numbers are made up; what is tested is that they land.
Record tcgen05_point(const std::string& type, std::int64_t cta_group, std::int64_t n, const std::string& operands, double tflops) {
  Record r = test_support::record("tensor.tcgen05.mma",
                                  {{"type", type}, {"cta_group", cta_group}, {"n", n}, {"operands", operands}},
                                  {test_support::metric("latency/cycles", "cycles", 100 + double(n) / 4, 99, 101, 5),
                                   test_support::metric("throughput/flops_per_clk_per_sm", "FLOP/clk/SM", tflops * 4, tflops * 4, tflops * 4, 5),
                                   test_support::metric("throughput/tflops", "TFLOPS", tflops, tflops, tflops, 5)});
  r.sm_clock_mhz = 1800;
  return r;
}

TEST(MachineModel, ABlackwellRunsTcgen05AndFp4RowsReachTheModelAndTheRoofline) {
  RunDocument b;
  b.run_id = "synthetic-b200";
  b.device = test_support::device("NVIDIA B200", 10, 148);
  for (const auto& [type, scale] : {std::pair<const char*, double>{"f16", 1}, {"e4m3", 2}})
    for (const std::int64_t cg : {1, 2})
      for (const char* ops : {"ss", "ts"})
        for (const std::int64_t n : {128, 256})
          b.records.push_back(tcgen05_point(type, cg, n, ops, scale * (1000 + 10 * double(n) + 100 * cg + (ops[0] == 't' ? 0 : 1))));
  const nlohmann::json m = machine_model(b);
  std::map<std::string, nlohmann::json> row;
  for (const auto& t : m["tensor"])
    row[t["type"].get<std::string>() + " cta" + t["cta_group"].get<std::string>() + " " + t["operands"].get<std::string>()] = t;
  ASSERT_EQ(row.size(), 8u) << m["tensor"].dump(1);
  EXPECT_EQ(row["f16 cta2 ts"]["tera_ops_per_s"], 1000 + 2560 + 200) << "A from TMEM is its own row";
  EXPECT_EQ(row["f16 cta2 ts"]["record"], "tensor.tcgen05.mma type=f16 cta_group=2 n=256 operands=ts") << "the shape that won";
  EXPECT_EQ(row["f16 cta2 ts"]["latency_cycles"], 100 + 256 / 4) << "its own point's latency";
  EXPECT_EQ(row["e4m3 cta1 ss"]["instruction"], "tcgen05.mma");
  std::map<std::string, double> ceiling;
  for (const auto& c : m["roofline"]["compute"]) ceiling[c["name"]] = c["tera_ops_per_s"];
  EXPECT_EQ(ceiling.at("tcgen05 f16 → f32"), 1000 + 2560 + 200 + 1);
  EXPECT_EQ(ceiling.at("tcgen05 fp8 e4m3 → f32"), 2 * (1000 + 2560 + 200 + 1));

  RunDocument g;
  g.run_id = "synthetic-rtx5090";
  g.device = test_support::device("NVIDIA GeForce RTX 5090", 12, 170);
  for (const auto& [row_id, tflops] : {std::pair<const char*, double>{"f8f6f4_e2m1.m16n8k32", 1600}, {"mxf4nvf4_e2m1.m16n8k64", 3300}})
    g.records.push_back(test_support::record(std::string("tensor.mma_sync.") + row_id, {},
                                             {test_support::metric("latency/cycles", "cycles", 33, 33, 33, 5),
                                              test_support::metric("throughput/tflops", "TFLOPS", tflops, tflops, tflops, 5)}));
  const nlohmann::json gm = machine_model(g);
  ASSERT_EQ(gm["tensor"].size(), 2u);
  EXPECT_EQ(gm["tensor"][0]["type"], "f8f6f4_e2m1.m16n8k32");
  ceiling.clear();
  for (const auto& c : gm["roofline"]["compute"]) ceiling[c["name"]] = c["tera_ops_per_s"];
  EXPECT_EQ(ceiling.at("mma.sync fp4 e2m1 → f32"), 1600);
  EXPECT_EQ(ceiling.at("mma.sync nvfp4 e2m1, block-scaled → f32"), 3300);
}

TEST(MachineModel, ARunWithoutTheRecordsLeavesThePartsEmpty) {
  RunDocument b;
  b.run_id = "sm100";
  b.device = test_support::device("NVIDIA B200", 10, 148);
  const nlohmann::json m = machine_model(b);
  EXPECT_TRUE(m["instructions"].empty());
  EXPECT_TRUE(m["memory"].empty());
  EXPECT_TRUE(m["roofline"]["compute"].empty());
  EXPECT_TRUE(m["tensor"].empty());
  EXPECT_FALSE(m.contains("clock")) << "no in-kernel clock: no clock, not a guess";
  EXPECT_EQ(m["gpu"]["sm_count"], 148);
}

}  // namespace
}  // namespace gd
