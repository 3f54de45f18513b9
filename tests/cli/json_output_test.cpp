// End to end: what the --json outputs of list, verify, compare and validate say, beside their
// Markdown and plain forms. Their schemas (schemas/*.json, docs/json-output.md) are checked with the
// jsonschema package in python/tests/test_schemas.py, with the run file's own schema.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/device.hpp"
#include "sass/disasm.hpp"
#include "support/committed_suite.hpp"
#include "support/shell.hpp"

namespace gd {
namespace {

using test_support::kSmallRun;
using test_support::kPairRun;

using nlohmann::json;

struct JsonRun {
  int status = -1;
  json doc;
  std::string text;
};

// stdout only: the notes a command prints go to stderr and are not part of the document.
JsonRun gpudissect_json(const std::string& args) {
  const auto r = run_command(std::string(GPUDISSECT_BINARY) + " " + args + " 2>/dev/null");
  JsonRun out{r.status, json(), r.output};
  out.doc = json::parse(r.output, nullptr, false);
  return out;
}



TEST(ListJson, ListsEveryProbe) {
  const auto r = gpudissect_json("list --json");
  ASSERT_EQ(r.status, 0) << r.text;
  const auto plain = run_command(std::string(GPUDISSECT_BINARY) + " list");
  std::size_t lines = 0;
  for (char c : plain.output) lines += c == '\n';
  ASSERT_EQ(r.doc["probes"].size(), lines);
  const json* ffma = nullptr;
  for (const auto& p : r.doc["probes"])
    if (p["id"] == "latency.alu.ffma") ffma = &p;
  ASSERT_NE(ffma, nullptr);
  EXPECT_EQ((*ffma)["category"], "latency");
  EXPECT_EQ((*ffma)["sass"][0]["require"][0]["opcode"], "FFMA");
  EXPECT_EQ(gpudissect_json("list --json --filter memory.latency.chase").doc["probes"].size(), 1u);
}

// The quick run's subsets as declared: the rows that stand for their family run, the rest say why not.
TEST(ListJson, NamesWhatAQuickRunLeavesOut) {
  const auto r = gpudissect_json("list --json --filter pipes.interference --filter sass.patch.stall --filter isa.tables");
  ASSERT_EQ(r.status, 0) << r.text;
  std::vector<std::string> kept;
  std::size_t left_out = 0;
  for (const auto& p : r.doc["probes"]) {
    if (p["quick_leaves_out"].is_null()) {
      kept.push_back(p["id"].get<std::string>());
      continue;
    }
    ++left_out;
    EXPECT_FALSE(p["quick_leaves_out"].get<std::string>().empty());
  }
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(kept, (std::vector<std::string>{
                      "pipes.interference.cvt_f64_f32_f64", "pipes.interference.dfma", "pipes.interference.dmma",
                      "pipes.interference.ffma", "pipes.interference.imad", "pipes.interference.imma",
                      "pipes.interference.ldg", "pipes.interference.lop3", "pipes.interference.mma_f16_f16",
                      "pipes.interference.mufu_ex2", "pipes.interference.shfl_idx", "pipes.interference.sreg_smid_s2ur",
                      "sass.patch.stall.ffma", "sass.patch.stall.lds", "sass.patch.stall.mufu_rcp"}));
  EXPECT_EQ(left_out, 80u);  // 70 interference rows, 9 stall rows, isa.tables
}

TEST(VerifyJson, ItsSummaryCountsItsResults) {
  const auto r = gpudissect_json("verify --json --arch sm_90a --filter latency.alu.ffma --filter latency.alu.iadd3");
  ASSERT_TRUE(r.status == 0 || r.status == 1) << r.text;  // 1 without a disassembler: nothing verified
  EXPECT_EQ(r.doc["archs"], json::array({"sm_90a"}));
  ASSERT_EQ(r.doc["results"].size(), 2u);
  const auto& s = r.doc["summary"];
  EXPECT_EQ(s["verified"].get<int>() + s["mismatch"].get<int>() + s["unverified"].get<int>(), 2);
  if (sass::disassembler_tools().any()) {
    EXPECT_EQ(s["verified"], 2) << r.text;
  }
}

TEST(CompareJson, CountsWhatTheMarkdownCounts) {
  const auto same = gpudissect_json("compare --json " + kSmallRun + " " + kSmallRun);
  ASSERT_EQ(same.status, 0) << same.text;
  const auto& s = same.doc["summary"];
  EXPECT_EQ(s["matched"], same.doc["matched"].size());
  EXPECT_EQ(s["only_a"], 0);
  EXPECT_GT(s["not_compared"].get<int>(), 0) << "the fixture has skipped and failed records";
  for (const auto& rec : same.doc["matched"])
    for (const auto& m : rec["metrics"])
      if (!m["ratio"].is_null()) {
        EXPECT_DOUBLE_EQ(m["ratio"].get<double>(), 1.0) << rec["id"];
      }
  const auto md = run_command(std::string(GPUDISSECT_BINARY) + " compare " + kSmallRun + " " + kSmallRun);
  EXPECT_NE(md.output.find(std::to_string(s["matched"].get<int>()) + " records matched by probe id and parameters, " +
                           std::to_string(s["metrics_compared"].get<int>()) + " metrics compared"),
            std::string::npos)
      << md.output.substr(0, 2000);
  // Two different runs: records only one side has.
  const auto cross = gpudissect_json("compare --json " + kSmallRun + " " + kPairRun);
  ASSERT_EQ(cross.status, 0) << cross.text;
  EXPECT_GT(cross.doc["only_b"].size(), 0u);
}

}  // namespace
}  // namespace gd

namespace gd {
namespace {

TEST(ValidateJson, CountsItsRows) {
  const std::string suite = test_support::kCommittedSuite;
  const auto r = gpudissect_json("validate --json " + suite);
  ASSERT_EQ(r.status, 0) << r.text.substr(0, 2000);
  int total = 0;
  for (const auto& [k, v] : r.doc["counts"].items())
    if (k != "differs_explained_checked") total += v.get<int>();
  EXPECT_EQ(total, static_cast<int>(r.doc["rows"].size()));
}

}  // namespace
}  // namespace gd
