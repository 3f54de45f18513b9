// The async-copy, multicast and DSMEM summaries over the committed H200 run (resummarize through
// the real binary): each derived record against the same quantity recomputed here from its points.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sass/disasm.hpp"
#include "support/committed_suite.hpp"
#include "support/shell.hpp"

namespace gd {
namespace {

using test_support::kCommittedSuite;


const nlohmann::json& resummarized() {
  static const nlohmann::json doc = [] {
    const std::string out = "/tmp/gpudissect-async-summaries-" + std::to_string(::getpid()) + ".json";
    const auto r = run_command(std::string(GPUDISSECT_BINARY) + " resummarize " + shell_quote(kCommittedSuite) +
                                     " --out " + shell_quote(out) + " 2>&1");
    EXPECT_EQ(r.status, 0) << r.output;
    std::ifstream in(out);
    nlohmann::json j = nlohmann::json::parse(in);
    ::unlink(out.c_str());
    return j;
  }();
  return doc;
}

double metric(const nlohmann::json& rec, const std::string& name) {
  for (const auto& m : rec["metrics"])
    if (m["name"] == name) return m["value"].get<double>();
  ADD_FAILURE() << "no metric " << name << " in " << rec["params"].dump();
  return -1;
}
bool has(const nlohmann::json& rec, const std::string& key) { return rec["params"].contains(key); }

std::vector<nlohmann::json> records(const std::string& id) {
  std::vector<nlohmann::json> v;
  for (const auto& r : resummarized()["records"])
    if (r["id"] == id && r["status"] == "ok") v.push_back(r);
  return v;
}

// Least x whose best bandwidth reaches fraction of the best over all x.
double least_reaching(const std::map<double, double>& best, double fraction) {
  double peak = 0;
  for (const auto& [x, y] : best) peak = std::max(peak, y);
  for (const auto& [x, y] : best)
    if (y >= fraction * peak) return x;
  return -1;
}

TEST(AsyncSummaries, CpAsyncCurvesOverStagesAreTheirPointsBestAndKnee) {
  int checked = 0;
  for (const std::int64_t threads : {64, 128, 256}) {
    std::map<double, double> curve;
    const nlohmann::json* derived = nullptr;
    std::vector<nlohmann::json> recs = records("async.cp_async.cg16");
    for (const auto& r : recs) {
      const auto& p = r["params"];
      if (p["source"] != "dram" || p["ctas_per_sm"] != 1 || p["threads"] != threads) continue;
      if (has(r, "curve")) {
        EXPECT_EQ(p["curve"], "over_stages");
        EXPECT_EQ(derived, nullptr) << "two derived records for one shape";
        derived = &r;
      } else {
        curve[p["stages"].get<double>()] = metric(r, "bandwidth/tbps");
      }
    }
    ASSERT_NE(derived, nullptr) << threads;
    ASSERT_GE(curve.size(), 2u);
    double peak = 0;
    for (const auto& [st, bw] : curve) peak = std::max(peak, bw);
    EXPECT_DOUBLE_EQ(metric(*derived, "bandwidth/tbps"), peak);
    EXPECT_DOUBLE_EQ(metric(*derived, "knee/stages"), least_reaching(curve, 0.95));
    ++checked;
  }
  EXPECT_EQ(checked, 3);
}

TEST(AsyncSummaries, BulkCopiesInFlightFor90PercentAreCtasTimesStages) {
  for (const std::int64_t chunk : {2048, 4096, 16384}) {
    std::map<double, double> by_ops;
    const nlohmann::json* derived = nullptr;
    std::vector<nlohmann::json> recs = records("async.bulk.load");
    for (const auto& r : recs) {
      const auto& p = r["params"];
      if (p["source"] != "dram" || !p.contains("chunk_bytes") || p["chunk_bytes"] != chunk) continue;
      if (has(r, "curve")) {
        derived = &r;
        continue;
      }
      const double ops = p["ctas_per_sm"].get<double>() * p["stages"].get<double>();
      by_ops[ops] = std::max(by_ops[ops], metric(r, "bandwidth/tbps"));
    }
    ASSERT_NE(derived, nullptr) << chunk;
    EXPECT_EQ((*derived)["params"]["curve"], "ops_for_90pct");
    EXPECT_DOUBLE_EQ(metric(*derived, "ops/for_90pct_per_sm"), least_reaching(by_ops, 0.9)) << chunk;
  }
}

TEST(AsyncSummaries, MulticastBestPerModeIsItsFastestPoint) {
  for (const char* mode : {"distinct", "same", "multicast"}) {
    double peak = 0;
    const nlohmann::json* derived = nullptr;
    std::vector<nlohmann::json> recs = records("async.tensor.multicast");
    for (const auto& r : recs) {
      if (r["params"]["mode"] != mode) continue;
      if (has(r, "curve")) derived = &r;
      else peak = std::max(peak, metric(r, "bandwidth/delivered_tbps"));
    }
    ASSERT_NE(derived, nullptr) << mode;
    EXPECT_DOUBLE_EQ(metric(*derived, "bandwidth/delivered_tbps"), peak) << mode;
  }
}

TEST(AsyncSummaries, DsmemBestPatternNamesTheFastestOpAndWidth) {
  double peak = 0;
  std::string op;
  std::int64_t width = 0;
  const nlohmann::json* derived = nullptr;
  std::vector<nlohmann::json> recs = records("topology.dsmem.bandwidth");
  for (const auto& r : recs) {
    if (r["params"]["cluster_size"] != 2) continue;
    if (has(r, "curve")) {
      derived = &r;
    } else if (const double bw = metric(r, "bandwidth/bytes_per_clk_per_sm"); bw > peak) {
      peak = bw;
      op = r["params"]["op"];
      width = r["params"]["width"];
    }
  }
  ASSERT_NE(derived, nullptr);
  const std::string text = (*derived)["extra"]["best_pattern"];
  EXPECT_EQ(text.rfind(op + ".shared::cluster", 0), 0u) << text;
  EXPECT_NE(text.find("(" + std::to_string(width) + " B per thread)"), std::string::npos) << text;
}

}  // namespace
}  // namespace gd
