// `resummarize` over damaged run files (issue 36 item 3): a measured point without its probe's
// axes or without metrics is a clear usage error (exit 2, naming the record), and points that lack
// only the metric an analysis reads are passed over, never dereferenced (these inputs crashed
// seven analyses with SIGSEGV).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include <unistd.h>

#include "sass/disasm.hpp"
#include "support/committed_suite.hpp"
#include "support/shell.hpp"

namespace gd {
namespace {


class ResummarizeMalformed : public ::testing::Test {
 protected:
  // The suite's measured points of `probe`, each passed through `damage(index, record)`.
  template <class F>
  CommandResult resummarize(const std::string& probe, F damage) {
    nlohmann::json doc = test_support::committed_suite();
    nlohmann::json kept = nlohmann::json::array();
    int i = 0;
    for (auto r : test_support::committed_suite()["records"])
      if (r["id"] == probe && !r.value("derived", false)) {
        damage(i++, r);
        kept.push_back(r);
      }
    doc["records"] = kept;
    const std::string in = ::testing::TempDir() + "malformed_" + std::to_string(::getpid()) + ".json";
    const std::string out = in + ".out.json";
    std::ofstream(in) << doc.dump();
    return run_command(std::string(GPUDISSECT_BINARY) + " resummarize " + shell_quote(in) + " --out " +
                             shell_quote(out) + " 2>&1");
  }
};

void drop_metric(nlohmann::json& r, const std::string& name) {
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& m : r["metrics"])
    if (m["name"] != name) kept.push_back(m);
  r["metrics"] = kept;
}

TEST_F(ResummarizeMalformed, APointWithoutItsAxisIsAUsageErrorNamingIt) {
  for (const std::string probe : {"memory.latency.tlb", "memory.bandwidth.l2_sweep", "pipes.sched.warp_binding"}) {
    const auto r = resummarize(probe, [](int, nlohmann::json& rec) { rec["params"] = nlohmann::json::object(); });
    EXPECT_EQ(r.status, 2) << probe << ": " << r.output;
    EXPECT_NE(r.output.find("has no param"), std::string::npos) << r.output;
  }
}

TEST_F(ResummarizeMalformed, AnAxisOfTheWrongTypeIsAUsageError) {
  const auto r = resummarize("memory.latency.chase", [](int, nlohmann::json& rec) { rec["params"]["bytes"] = "4K"; });
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("wrong type"), std::string::npos) << r.output;
}

TEST_F(ResummarizeMalformed, APointWithoutMetricsIsAUsageError) {
  for (const std::string probe : {"memory.latency.chase", "memory.bandwidth.dram", "async.tensor.multicast"}) {
    const auto r = resummarize(probe, [](int, nlohmann::json& rec) { rec["metrics"] = nlohmann::json::array(); });
    EXPECT_EQ(r.status, 2) << probe << ": " << r.output;
    EXPECT_NE(r.output.find("without metrics"), std::string::npos) << r.output;
  }
}

// Every other point lacks the metric the analysis reads: the analysis runs on the rest (each of
// these crashed with SIGSEGV before).
TEST_F(ResummarizeMalformed, PointsLackingTheReadMetricArePassedOver) {
  const std::pair<const char*, const char*> cases[] = {
      {"memory.latency.chase", "latency/cycles"},          {"memory.bandwidth.dram", "bandwidth/tbps"},
      {"memory.bandwidth.rw_mix", "bandwidth/tbps"},       {"memory.bandwidth.dram_shape", "bandwidth/tbps"},
      {"memory.bandwidth.l2_sweep", "bandwidth/tbps"},     {"async.tensor.multicast", "bandwidth/delivered_tbps"},
      {"pipes.sched.ffma_chain_warps", "throughput/per_clk_per_sm"}, {"async.latency.copy", "latency/ns"},
      {"tensor.wgmma.inflight", "throughput/flops_per_clk_per_sm"}};  // found by resummarize_fuzz
  for (const auto& [probe, metric] : cases) {
    const auto r = resummarize(probe, [metric = std::string(metric)](int i, nlohmann::json& rec) {
      if (i % 2 == 0) drop_metric(rec, metric);
    });
    EXPECT_EQ(r.status, 0) << probe << " without " << metric << " on half its points: " << r.output;
  }
}

// The co-issue matrix copied its point's extra keys with a const operator[], undefined for a key the
// point lacks (resummarize_fuzz read out of bounds there).
TEST_F(ResummarizeMalformed, ACoissuePointWithoutItsExtraKeysIsPassedOver) {
  const auto r = resummarize("pipes.coissue.matrix", [](int, nlohmann::json& rec) { rec["extra"] = nlohmann::json::object(); });
  EXPECT_EQ(r.status, 0) << r.output;
}

}  // namespace
}  // namespace gd
