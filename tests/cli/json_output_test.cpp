// End to end: the --json outputs of list, info, verify and compare against the schemas they are
// documented by (schemas/*.json, docs/json-output.md). Tools read these; a field that moves or
// changes type breaks them, so it must break a test first.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "core/device.hpp"
#include "sass/disasm.hpp"
#include "support/json_schema.hpp"
#include "support/committed_suite.hpp"

namespace gd {
namespace {

using nlohmann::json;
using test_support::SchemaValidator;

SchemaValidator schema(const std::string& name) {
  return SchemaValidator::from_file(std::string(GPUDISSECT_SOURCE_DIR) + "/schemas/" + name + ".schema.json");
}

struct JsonRun {
  int status = -1;
  json doc;
  std::string text;
};

// stdout only: the notes a command prints go to stderr and are not part of the document.
JsonRun gpudissect_json(const std::string& args) {
  const auto r = sass::run_command(std::string(GPUDISSECT_BINARY) + " " + args + " 2>/dev/null");
  JsonRun out{r.status, json(), r.output};
  out.doc = json::parse(r.output, nullptr, false);
  return out;
}

std::string joined(const std::vector<std::string>& errors) {
  std::string s;
  for (const auto& e : errors) s += e + "\n";
  return s;
}

const std::string kRun = std::string(GPUDISSECT_FIXTURES) + "/runs/h200_small.json";
const std::string kMeasured = std::string(GPUDISSECT_SOURCE_DIR) + "/data/measured/nvidia-h200-2026-11-29.json";

// The validator is test code too: it must reject what the schemas forbid.
TEST(SchemaValidator, RejectsWhatASchemaForbids) {
  const SchemaValidator v(json::parse(R"({
    "type": "object", "required": ["n", "kind"], "additionalProperties": false,
    "properties": {"n": {"type": "integer", "minimum": 1}, "kind": {"type": "string", "enum": ["a", "b"]},
                   "items": {"type": "array", "items": {"$ref": "#/$defs/item"}}},
    "$defs": {"item": {"type": ["number", "null"]}}})"));
  EXPECT_TRUE(v.errors(json::parse(R"({"n": 2, "kind": "a", "items": [1.5, null]})")).empty());
  const auto e = v.errors(json::parse(R"({"n": 0, "kind": "c", "extra": 1, "items": ["x"]})"));
  const std::string all = joined(e);
  EXPECT_NE(all.find("$/n: 0 is below the minimum 1"), std::string::npos) << all;
  EXPECT_NE(all.find("$/kind: \"c\" is not one of [\"a\",\"b\"]"), std::string::npos) << all;
  EXPECT_NE(all.find("$: unexpected field 'extra'"), std::string::npos) << all;
  EXPECT_NE(all.find("$/items/0: is string, expected [\"number\",\"null\"]"), std::string::npos) << all;
  EXPECT_NE(joined(v.errors(json::parse(R"({"n": 1.5})"))).find("missing required field 'kind'"), std::string::npos);
  EXPECT_NE(joined(SchemaValidator(json::parse(R"({"oneOf": []})")).errors(json(1))).find("not supported"),
            std::string::npos);
}

TEST(ListJson, MatchesTheSchemaAndListsEveryProbe) {
  const auto r = gpudissect_json("list --json");
  ASSERT_EQ(r.status, 0) << r.text;
  EXPECT_TRUE(schema("list").errors(r.doc).empty()) << joined(schema("list").errors(r.doc));
  const auto plain = sass::run_command(std::string(GPUDISSECT_BINARY) + " list");
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

TEST(VerifyJson, MatchesTheSchemaAndItsSummary) {
  const auto r = gpudissect_json("verify --json --arch sm_90a --filter latency.alu.ffma --filter latency.alu.iadd3");
  ASSERT_TRUE(r.status == 0 || r.status == 1) << r.text;  // 1 without a disassembler: nothing verified
  EXPECT_TRUE(schema("verify").errors(r.doc).empty()) << joined(schema("verify").errors(r.doc));
  EXPECT_EQ(r.doc["archs"], json::array({"sm_90a"}));
  ASSERT_EQ(r.doc["results"].size(), 2u);
  const auto& s = r.doc["summary"];
  EXPECT_EQ(s["verified"].get<int>() + s["mismatch"].get<int>() + s["unverified"].get<int>(), 2);
  if (sass::disassembler_tools().any()) {
    EXPECT_EQ(s["verified"], 2) << r.text;
  }
}

TEST(CompareJson, MatchesTheSchemaAndCountsWhatTheMarkdownCounts) {
  const auto same = gpudissect_json("compare --json " + kRun + " " + kRun);
  ASSERT_EQ(same.status, 0) << same.text;
  EXPECT_TRUE(schema("compare").errors(same.doc).empty()) << joined(schema("compare").errors(same.doc));
  const auto& s = same.doc["summary"];
  EXPECT_EQ(s["matched"], same.doc["matched"].size());
  EXPECT_EQ(s["only_a"], 0);
  EXPECT_GT(s["not_compared"].get<int>(), 0) << "the fixture has skipped and failed records";
  for (const auto& rec : same.doc["matched"])
    for (const auto& m : rec["metrics"])
      if (!m["ratio"].is_null()) {
        EXPECT_DOUBLE_EQ(m["ratio"].get<double>(), 1.0) << rec["id"];
      }
  const auto md = sass::run_command(std::string(GPUDISSECT_BINARY) + " compare " + kRun + " " + kRun);
  EXPECT_NE(md.output.find(std::to_string(s["matched"].get<int>()) + " records matched by probe id and parameters, " +
                           std::to_string(s["metrics_compared"].get<int>()) + " metrics compared"),
            std::string::npos)
      << md.output.substr(0, 2000);
  // Two different runs: records only one side has.
  const auto cross = gpudissect_json("compare --json " + kRun + " " + kMeasured);
  ASSERT_EQ(cross.status, 0) << cross.text;
  EXPECT_TRUE(schema("compare").errors(cross.doc).empty()) << joined(schema("compare").errors(cross.doc));
  EXPECT_GT(cross.doc["only_b"].size(), 0u);
}

// `info --json` needs a GPU. Its "device" is to_json(DeviceInfo), the same object every run file
// carries, so the schema is checked here on that function and on the committed runs' devices.
TEST(InfoJson, TheDeviceObjectMatchesTheSchema) {
  const SchemaValidator info = schema("info");
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.uuid = "GPU-0123";
  d.features = {Feature::Tma, Feature::Wgmma};
  EXPECT_TRUE(info.errors_against("device", to_json(d)).empty()) << joined(info.errors_against("device", to_json(d)));
  d.nvml = DeviceInfo::Nvml{};
  d.nvml->driver_version = "580.65.06";
  EXPECT_TRUE(info.errors_against("device", to_json(d)).empty()) << joined(info.errors_against("device", to_json(d)));
  for (const std::string& path : {kRun, kMeasured}) {
    std::ifstream in(path);
    const json run = json::parse(in);
    EXPECT_TRUE(info.errors_against("device", run["device"]).empty()) << path << "\n"
                                                                        << joined(info.errors_against("device", run["device"]));
  }
  json broken = to_json(d);
  broken.erase("sm_count");
  broken["nvml"]["power_w"] = "high";
  const std::string all = joined(info.errors_against("device", broken));
  EXPECT_NE(all.find("missing required field 'sm_count'"), std::string::npos) << all;
  EXPECT_NE(all.find("$/nvml/power_w: is string"), std::string::npos) << all;
}

TEST(InfoJson, TheCommandMatchesTheSchema) {
  const auto r = gpudissect_json("info --json");
  if (r.status == 3) GTEST_SKIP() << "no usable GPU here; the device object is checked by TheDeviceObjectMatchesTheSchema";
  ASSERT_EQ(r.status, 0) << r.text;
  EXPECT_TRUE(schema("info").errors(r.doc).empty()) << joined(schema("info").errors(r.doc));
}

}  // namespace
}  // namespace gd

namespace gd {
namespace {

TEST(ValidateJson, MatchesTheSchemaAndCountsItsRows) {
  const std::string suite = test_support::kCommittedSuite;
  const auto r = gpudissect_json("validate --json " + suite);
  ASSERT_EQ(r.status, 0) << r.text.substr(0, 2000);
  EXPECT_TRUE(schema("validate").errors(r.doc).empty()) << joined(schema("validate").errors(r.doc));
  int total = 0;
  for (const auto& [k, v] : r.doc["counts"].items())
    if (k != "differs_explained_checked") total += v.get<int>();
  EXPECT_EQ(total, static_cast<int>(r.doc["rows"].size()));
}

}  // namespace
}  // namespace gd
