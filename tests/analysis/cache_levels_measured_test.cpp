// cache_levels on a real sweep: the H200 run committed under data/measured. Pins that the
// analysis names the levels a reader of that data would (and keeps doing so as it evolves).
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/cache_levels.hpp"

namespace gd {
namespace {

const char* kRun = GPUDISSECT_SOURCE_DIR "/data/measured/nvidia-h200-2026-11-29.json";

std::vector<ChasePoint> chase_points(const nlohmann::json& run, const std::string& variant) {
  std::vector<ChasePoint> pts;
  for (const auto& r : run["records"]) {
    if (r["id"] != "memory.latency.chase" || r["derived"] || r["status"] != "ok") continue;
    if (r["params"]["variant"] != variant) continue;
    double cycles = 0;
    for (const auto& m : r["metrics"])
      if (m["name"] == "latency/cycles") cycles = m["value"];
    pts.push_back({r["params"]["bytes"].get<double>(), cycles, r["extra"]["l2_state"] == "scrubbed"});
  }
  return pts;
}

class MeasuredH200 : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(kRun);
    ASSERT_TRUE(in) << "missing " << kRun;
    run_ = nlohmann::json::parse(in);
    l2_ = run_["device"]["l2_bytes"].get<double>();
  }
  const CacheLevel* find(const std::vector<CacheLevel>& levels, const std::string& name) {
    for (const auto& l : levels)
      if (l.name == name) return &l;
    return nullptr;
  }
  nlohmann::json run_;
  double l2_ = 0;
};

TEST_F(MeasuredH200, CachedChaseHasL1L2FarBlendAndDram) {
  const auto levels = cache_levels(chase_points(run_, "ca"), true, l2_);
  std::string names;
  for (const auto& l : levels) names += l.name + " ";
  ASSERT_EQ(levels.size(), 4u) << names;
  const CacheLevel* l1 = find(levels, "L1");
  const CacheLevel* l2 = find(levels, "L2");
  const CacheLevel* far = find(levels, "L2.far_blend");
  const CacheLevel* dram = find(levels, "DRAM");
  ASSERT_TRUE(l1 && l2 && far && dram) << names;
  EXPECT_LT(l1->cycles, 60);
  EXPECT_LT(l1->last_bytes, 256 * 1024);        // the L1 share of the 256 KiB SRAM
  EXPECT_GT(l2->cycles, 3 * l1->cycles);
  EXPECT_LT(l2->last_bytes, l2_ / 1.5);         // near-partition hits end well before L2 is full
  EXPECT_GT(far->cycles, 1.2 * l2->cycles);
  EXPECT_GT(far->cycles_at_last_bytes, far->cycles);  // a climb: its last point is its worst
  EXPECT_LE(far->last_bytes, l2_);
  EXPECT_GT(dram->cycles, 1.5 * far->cycles_at_last_bytes);
  // DRAM begins where the warm curve leaves L2 (64 MiB in this run), not where the probe began
  // scrubbing L2 (128 MiB, past twice the L2 size), which is recorded on its own.
  EXPECT_EQ(dram->first_bytes, far->next_bytes);
  EXPECT_GT(dram->first_bytes, l2_);
  EXPECT_LT(dram->first_bytes, 1.2 * l2_);
  EXPECT_GT(dram->l2_scrubbed_from_bytes, 2 * l2_);
}

TEST_F(MeasuredH200, BypassingChaseStartsInL2AndAgreesWithTheCachedOne) {
  const auto cg = cache_levels(chase_points(run_, "cg"), false, l2_);
  const auto ca = cache_levels(chase_points(run_, "ca"), true, l2_);
  ASSERT_FALSE(cg.empty());
  EXPECT_EQ(cg.front().name, "L2");
  EXPECT_EQ(cg.front().first_bytes, 4096);
  const CacheLevel* l2_ca = find(ca, "L2");
  ASSERT_NE(l2_ca, nullptr);
  EXPECT_NEAR(cg.front().cycles, l2_ca->cycles, 0.05 * l2_ca->cycles);
}

}  // namespace
}  // namespace gd
