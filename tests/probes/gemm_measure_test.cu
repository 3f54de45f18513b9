// The GEMM ceilings' timing protocol (system/gemm_measure.hpp): the numbers scripts/gemm_torch.py
// must share (tests/fixtures/gemm_protocol.json, which its pytest reads too), the steady chunks
// and windows for slow calls, and the figures' metric names.
#include "system/gemm_measure.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>
#include "core/json.hpp"

namespace gd::gemm {
namespace {

TEST(GemmProtocol, TheProbeAndThePyTorchScriptShareOneProtocol) {
  std::ifstream in(std::string(GPUDISSECT_FIXTURES) + "/gemm_protocol.json");
  const nlohmann::json p = nlohmann::json::parse(in)["protocol"];
  EXPECT_EQ(kProtocol.warmup_calls, p["warmup_calls"].get<int>());
  EXPECT_EQ(kProtocol.timed_calls, p["timed_calls"].get<int>());
  EXPECT_DOUBLE_EQ(kProtocol.rest_s, p["rest_s"].get<double>());
  EXPECT_EQ(kProtocol.min_groups, p["min_groups"].get<int>());
  EXPECT_EQ(kProtocol.max_groups, p["max_groups"].get<int>());
  EXPECT_DOUBLE_EQ(kProtocol.settle.min_load_s, p["settle"]["min_load_s"].get<double>());
  EXPECT_DOUBLE_EQ(kProtocol.settle.window_s, p["settle"]["window_s"].get<double>());
  EXPECT_DOUBLE_EQ(kProtocol.settle.tolerance, p["settle"]["tolerance"].get<double>());
  EXPECT_EQ(kProtocol.settle.min_chunks, p["settle"]["min_chunks"].get<int>());
  EXPECT_DOUBLE_EQ(kProtocol.max_load_s, p["max_load_s"].get<double>());
  EXPECT_DOUBLE_EQ(kProtocol.chunk_s, p["chunk_s"].get<double>());
  EXPECT_DOUBLE_EQ(kProtocol.steady_s, p["steady_s"].get<double>());
}

// A chunk is about 20 ms of calls; a call longer than that is a chunk of its own, and the
// settle windows widen to hold min_chunks of them.
TEST(GemmProtocol, SlowCallsGetOneCallChunksAndWiderWindows) {
  EXPECT_EQ(chunk_calls(1.4e-3), 14);  // bf16 8192^3 on an H200
  EXPECT_EQ(chunk_calls(43e-6), 465);  // the skinny m128 shape
  EXPECT_EQ(chunk_calls(0.15), 1);     // fp64 16384^3
  EXPECT_THROW(chunk_calls(0), std::invalid_argument);
  EXPECT_DOUBLE_EQ(settle_rule_for(1.4e-3).window_s, kProtocol.settle.window_s);
  EXPECT_DOUBLE_EQ(settle_rule_for(0.15).window_s, 0.15 * kProtocol.settle.min_chunks);
  EXPECT_DOUBLE_EQ(settle_rule_for(0.15).min_load_s, kProtocol.settle.min_load_s);
}

// The figures' names, for readers that select them (covers, views, README); the misleading
// burst name and the unqualified rate are gone.
TEST(GemmProtocol, EachFigureNamesItsRatePowerAndClock) {
  const std::vector<MetricSpec> m = measure_gemm_metrics();
  const auto has = [&](const std::string& name) {
    return std::any_of(m.begin(), m.end(), [&](const MetricSpec& s) { return s.name == name; });
  };
  for (const char* fig : {"first_calls", "steady"}) {
    const std::string f = fig;
    EXPECT_TRUE(has("throughput/" + f + "_tflops")) << f;
    EXPECT_TRUE(has("throughput/" + f + "_tops")) << f;
    EXPECT_TRUE(has("power/" + f + "_w")) << f;
    EXPECT_TRUE(has("clock/" + f + "_nvml_sm_mhz")) << f;
  }
  EXPECT_TRUE(has("efficiency/steady_tflops_per_w"));
  EXPECT_TRUE(has("load/settle_ms"));
  for (const char* gone : {"throughput/burst_tflops", "throughput/tflops", "power/w", "clock/nvml_sm_mhz"})
    EXPECT_FALSE(has(gone)) << gone;
}

}  // namespace
}  // namespace gd::gemm
