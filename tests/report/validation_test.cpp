#include "report/validation.hpp"

#include <set>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "support/sample_run.hpp"
#include "support/committed_suite.hpp"

namespace gd {
namespace {

using nlohmann::json;
using test_support::metric;
using test_support::record;

Record point(const std::string& id, Params p, const std::string& name, const std::string& unit, double v,
             double clock_mhz = 1980) {
  Record r = record(id, std::move(p), {metric(name, unit, v, v, v, 9)});
  r.sm_clock_mhz = clock_mhz;
  return r;
}

// An H200 run with the records the published fixtures below point at.
RunDocument h200() {
  RunDocument doc = test_support::sample_run();
  doc.device["sm_count"] = 132;
  doc.device["l2_bytes"] = 62914560;
  doc.records = {
      point("memory.latency.chase", {{"level", std::string("L1")}, {"variant", std::string("ca")}}, "latency/cycles",
            "cycles", 32),
      point("compute.peak.fp32", {{"ilp", std::int64_t(4)}}, "throughput/tflops", "TFLOPS", 66.18),
      point("memory.bandwidth.dram_shape",
            {{"op", std::string("read")}, {"launch", std::string("oneshot")}, {"width", std::int64_t(16)}},
            "bandwidth/tbps", "TB/s", 4.596, 1963),
      point("memory.bandwidth.dram_shape",
            {{"op", std::string("read")}, {"launch", std::string("oneshot")}, {"width", std::int64_t(8)},
             {"per_thread", std::int64_t(1)}},
            "bandwidth/tbps", "TB/s", 2.817, 1900),
  };
  return doc;
}

// A published figure: `ref` is its extra.reference (source, chip, kind, compare, ours, explanation).
Record published(const std::string& id, double v, const std::string& unit, json ref) {
  Record r = record(id, {{"source", std::string("fixture")}}, {metric("value", unit, v, v, v, 1, 0)},
                    SassStatus::NotApplicable);
  if (!ref.contains("source_key")) ref["source_key"] = "fixture";
  if (!ref.contains("kind")) ref["kind"] = "latency";
  r.extra["reference"] = std::move(ref);
  return r;
}

RunDocument dataset(std::vector<Record> records) {
  RunDocument d;
  d.options = {{"reference", {{"title", "fixture"}, {"arch", "sm_90"}}}};
  d.device = {{"name", "NVIDIA H100 (published)"}, {"cc_major", 9}, {"cc_minor", 0}, {"sm_count", 132}};
  d.records = std::move(records);
  return d;
}

const json kL1 = {{"headline", "l1.latency"}};
const json kDramRead = {{"headline", "dram.read_bandwidth"}};

ValidationReport validate(const RunDocument& run, const RunDocument& ref) {
  return validate_run(run, {&ref}, {"fixture.json"});
}

const ValidationRow& only(const ValidationReport& r) {
  EXPECT_EQ(r.rows.size(), 1u);
  return r.rows.at(0);
}

ValidationRow one(json ref, double v, const std::string& unit = "cycles", const std::string& id = "l1.latency") {
  const RunDocument run = h200();
  const RunDocument pub = dataset({published(id, v, unit, std::move(ref))});
  return only(validate(run, pub));
}

TEST(ValidationUnits, ConvertsBetweenPublishedAndRunUnits) {
  EXPECT_NEAR(*convert_value(3494.6126, "GiB/s", "TB/s", 0), 3.75229, 1e-4);
  EXPECT_NEAR(*convert_value(6952.6, "GB/s", "TB/s", 0), 6.9526, 1e-9);
  EXPECT_DOUBLE_EQ(*convert_value(52428800, "bytes", "MB", 0), 50);
  EXPECT_DOUBLE_EQ(*convert_value(228, "KiB", "bytes", 0), 233472);
  EXPECT_DOUBLE_EQ(*convert_value(132, "SMs", "count", 0), 132) << "counts are one dimension";
  EXPECT_NEAR(*convert_value(20, "ns", "cycles", 1980), 39.6, 1e-9) << "ns to cycles at the stated clock";
  EXPECT_NEAR(*convert_value(39.6, "cycles", "ns", 1980), 20, 1e-9);
  EXPECT_NEAR(*convert_value(2.732, "us", "cycles", 1830), 5000, 0.5);
  EXPECT_FALSE(convert_value(4, "cycles", "ns", 0)) << "no clock, no conversion";
  EXPECT_FALSE(convert_value(4, "cycles", "TB/s", 1980));
  EXPECT_FALSE(convert_value(4, "furlongs", "bytes", 0));
}

TEST(ValidationUnits, PerChipRatesPerSmPerClock) {
  // The whitepaper's dense BF16 peak at its 1.83 GHz tensor clock: 4096 FLOP per cycle per SM.
  const auto bf16 = per_sm_per_clock(989.4, "TFLOPS", 132, 1830);
  ASSERT_TRUE(bf16);
  EXPECT_NEAR(bf16->value, 4096, 0.5);
  EXPECT_EQ(bf16->unit, "op/clk/SM");
  EXPECT_NEAR(per_sm_per_clock(1978.9, "TOPS", 132, 1830)->value, 8192, 1) << "TOPS count operations like TFLOPS";
  // gpu-benches' H100 PCIe L1 figure: 114 SMs at 1755 MHz, about 126 bytes per cycle per SM.
  const auto l1 = per_sm_per_clock(25.2427, "TB/s", 114, 1755);
  ASSERT_TRUE(l1);
  EXPECT_NEAR(l1->value, 126.17, 0.01);
  EXPECT_EQ(l1->unit, "B/clk/SM");
  EXPECT_NEAR(per_sm_per_clock(4528.92, "GiB/s", 132, 1980)->value, 18.606, 0.001);
  EXPECT_FALSE(per_sm_per_clock(67, "TFLOPS", 132, 0)) << "no clock stated";
  EXPECT_FALSE(per_sm_per_clock(67, "TFLOPS", 0, 1980));
  EXPECT_FALSE(per_sm_per_clock(32, "cycles", 132, 1980)) << "not a per-chip rate";
}

TEST(ValidationUnits, ToleranceByKind) {
  EXPECT_EQ(validation_tolerance_percent("latency"), 5);
  EXPECT_EQ(validation_tolerance_percent("bandwidth"), 5);
  EXPECT_EQ(validation_tolerance_percent("rate_per_clock"), 3);
  EXPECT_EQ(validation_tolerance_percent("size"), 1);
  EXPECT_EQ(validation_tolerance_percent("count"), 0.5);
  EXPECT_EQ(validation_tolerance_percent("time"), 10);
  EXPECT_EQ(validation_tolerance_percent("something else"), 5);
}

TEST(Validation, ALatencyJustInsideItsToleranceAgreesAndJustOutsideDisagrees) {
  // Ours is 32 cycles: 32 / 30.49 = 1.0495, 32 / 30.46 = 1.0506.
  EXPECT_EQ(one({{"ours", kL1}}, 30.49).verdict, Verdict::Agrees);
  const ValidationRow out = one({{"ours", kL1}}, 30.46);
  EXPECT_EQ(out.verdict, Verdict::Disagrees) << "no explanation: a difference beyond 5 % is a disagreement";
  EXPECT_NEAR(out.ratio, 1.0506, 1e-4);
  EXPECT_EQ(one({{"ours", kL1}, {"tolerance_percent", 10}}, 30.46).verdict, Verdict::Agrees)
      << "a record may state its own tolerance";
  // The same 1.04 is a disagreement for a per-clock rate (3 %) and an agreement for a latency.
  EXPECT_EQ(one({{"ours", kL1}, {"kind", "rate_per_clock"}}, 32 / 1.04).verdict, Verdict::Disagrees);
  EXPECT_EQ(one({{"ours", kL1}, {"kind", "latency"}}, 32 / 1.04).verdict, Verdict::Agrees);
}

TEST(Validation, PublishedNanosecondsAreComparedAtTheClocks) {
  // 32 cycles at our 1980 MHz are 16.16 ns.
  const ValidationRow r = one({{"ours", kL1}, {"clock_mhz", 1755}}, 16.2, "ns");
  EXPECT_EQ(r.verdict, Verdict::Agrees);
  EXPECT_EQ(r.unit, "ns");
  EXPECT_NEAR(r.ours, 16.1616, 1e-3);
}

TEST(Validation, PerChipRatesAreComparedPerSmPerClock) {
  // An H100 PCIe FP32 peak (114 SMs at 1755 MHz, 51.2 TFLOPS) is 256 FLOP/clk/SM, as our 66.18
  // TFLOPS on 132 SMs at 1980 MHz (253.2): per chip the two differ by 29 %.
  const json ref = {{"ours", {{"headline", "fp32.peak"}}}, {"kind", "rate_per_clock"}, {"compare", "per_sm_per_clock"},
                    {"clock_mhz", 1755}, {"sm_count", 114}};
  const ValidationRow r = one(ref, 51.21, "TFLOPS", "fp32.peak");
  EXPECT_EQ(r.verdict, Verdict::Agrees);
  EXPECT_EQ(r.unit, "op/clk/SM");
  EXPECT_NEAR(r.published, 255.97, 0.05);
  EXPECT_NEAR(r.ours, 253.24, 0.05);
  json as_is = ref;
  as_is["compare"] = "as_is";
  EXPECT_EQ(one(as_is, 51.21, "TFLOPS", "fp32.peak").verdict, Verdict::Disagrees) << "per chip they differ";
  json no_clock = ref;
  no_clock.erase("clock_mhz");
  const ValidationRow nc = one(no_clock, 51.21, "TFLOPS", "fp32.peak");
  EXPECT_EQ(nc.verdict, Verdict::NotComparable);
  EXPECT_NE(nc.note.find("clock"), std::string::npos) << nc.note;
}

TEST(Validation, AnExplanationsRatioBandIsChecked) {
  // Ours / published = 32 / 28 = 1.143.
  const json inside = {{"ours", kL1}, {"explanation", {{"kind", "clock"}, {"text", "t"}, {"expected_ratio", {1.1, 1.2}}}}};
  const ValidationRow r = one(inside, 28);
  EXPECT_EQ(r.verdict, Verdict::DiffersExplained);
  EXPECT_TRUE(r.checked);
  EXPECT_EQ(r.explanation_kind, "clock");
  const json short_of = {{"ours", kL1}, {"explanation", {{"kind", "clock"}, {"text", "t"}, {"expected_ratio", {1.0, 1.05}}}}};
  const ValidationRow s = one(short_of, 28);
  EXPECT_EQ(s.verdict, Verdict::Disagrees) << "an explanation that does not account for the ratio is no explanation";
  EXPECT_NE(s.note.find("does not account"), std::string::npos) << s.note;
  // The band is widened by the tolerance: 1.143 lies within 1.1 x 1.05.
  EXPECT_EQ(one({{"ours", kL1}, {"explanation", {{"kind", "chip"}, {"text", "t"}, {"expected_ratio", {1.1, 1.1}}}}}, 28).verdict,
            Verdict::DiffersExplained);
}

TEST(Validation, AnExplanationsSecondMeasurementIsChecked) {
  // gpu-stream's read on H200: 2.756 TB/s published, our headline 4.596, our kernel of the same
  // shape 2.817 (2 % off): the method explains it.
  const json alt = {{"record", "memory.bandwidth.dram_shape"},
                    {"params", {{"op", "read"}, {"width", 8}, {"per_thread", 1}}},
                    {"metric", "bandwidth/tbps"}};
  const json ref = {{"ours", kDramRead}, {"kind", "bandwidth"},
                    {"explanation", {{"kind", "method"}, {"text", "one 8-byte load per thread"}, {"ours_alt", alt}}}};
  const ValidationRow r = one(ref, 2.756, "TB/s", "dram.read_bandwidth");
  EXPECT_EQ(r.verdict, Verdict::DiffersExplained);
  EXPECT_TRUE(r.checked);
  EXPECT_TRUE(r.has_alt);
  EXPECT_NEAR(r.alt, 2.817, 1e-9);
  EXPECT_NEAR(r.ratio, 4.596 / 2.756, 1e-9) << "the ratio shown is our headline's";
  // The same shape is far from a 2.0 TB/s figure: the explanation falls short.
  EXPECT_EQ(one(ref, 2.0, "TB/s", "dram.read_bandwidth").verdict, Verdict::Disagrees);
  // A second measurement the run lacks cannot check anything: unchecked, said so.
  json missing = ref;
  missing["explanation"]["ours_alt"]["params"]["width"] = 4;
  const ValidationRow m = one(missing, 2.756, "TB/s", "dram.read_bandwidth");
  EXPECT_EQ(m.verdict, Verdict::DiffersExplained);
  EXPECT_FALSE(m.checked);
  EXPECT_NE(m.note.find("unchecked"), std::string::npos) << m.note;
}

TEST(Validation, AReasonWithNothingToCheckItIsUnchecked) {
  const ValidationRow r = one({{"ours", kL1}, {"explanation", {{"kind", "definition"}, {"text", "a simulator parameter"}}}}, 34 * 1.2);
  EXPECT_EQ(r.verdict, Verdict::DiffersExplained);
  EXPECT_FALSE(r.checked);
}

TEST(Validation, NotMeasuredAndNotComparable) {
  const ValidationRow gap = one({{"ours", {{"record", "memory.texture.latency"}, {"metric", "latency/cycles"}}}}, 42);
  EXPECT_EQ(gap.verdict, Verdict::NotMeasured);
  EXPECT_NE(gap.note.find("memory.texture.latency"), std::string::npos) << gap.note;
  EXPECT_EQ(one({{"ours", {{"headline", "no.such.quantity"}}}}, 1).verdict, Verdict::NotMeasured);
  EXPECT_EQ(one({{"ours", kL1}}, 3.35, "TB/s").verdict, Verdict::NotComparable) << "cycles against TB/s";
}

TEST(Validation, DevicePropertiesAndFactors) {
  // H100's 50 MiB L2 against the H200's 60 MiB: the chip explains 1.2x.
  const json l2 = {{"ours", {{"device", "l2_bytes"}, {"unit", "bytes"}}}, {"kind", "size"},
                   {"explanation", {{"kind", "chip"}, {"text", "60 MiB"}, {"expected_ratio", {1.2, 1.2}}}}};
  const ValidationRow r = one(l2, 50, "MB", "memory.l2.capacity");
  EXPECT_EQ(r.verdict, Verdict::DiffersExplained);
  EXPECT_TRUE(r.checked);
  EXPECT_NE(r.ours_label.find("device"), std::string::npos);
  const json fma = {{"ours", {{"record", "compute.peak.fp32"}, {"metric", "throughput/tflops"}, {"factor", 0.5}}},
                    {"kind", "rate"}};
  EXPECT_NEAR(one(fma, 33.09, "TFLOPS", "fp32.fma").ours, 33.09, 1e-9) << "a factor scales our value";
}

TEST(Validation, DisagreementsComeFirstInRowsAndMarkdown) {
  const RunDocument run = h200();
  const RunDocument pub = dataset({published("l1.latency", 32, "cycles", {{"ours", kL1}}),
                                   published("l1.latency", 20, "cycles", {{"ours", kL1}, {"source_key", "odd|key"}}),
                                   published("memory.texture.latency", 42, "cycles",
                                             {{"ours", {{"record", "memory.texture.latency"}, {"metric", "latency/cycles"}}}})});
  const ValidationReport rep = validate(run, pub);
  ASSERT_EQ(rep.rows.size(), 3u);
  EXPECT_EQ(rep.rows[0].verdict, Verdict::Disagrees);
  EXPECT_EQ(rep.rows[1].verdict, Verdict::Agrees);
  EXPECT_EQ(rep.rows[2].verdict, Verdict::NotMeasured);
  const std::string md = validation_markdown(rep);
  EXPECT_LT(md.find("## disagrees (1)"), md.find("## agrees (1)"));
  EXPECT_NE(md.find("1 of 2 compared quantities agree or differ for a stated reason"), std::string::npos) << md;
  EXPECT_NE(md.find("odd\\|key"), std::string::npos) << "published text is escaped for the table";
  const json j = validation_json(rep);
  EXPECT_EQ(j["counts"]["disagrees"], 1);
  EXPECT_EQ(j["counts"]["not_measured"], 1);
  EXPECT_EQ(j["rows"][0]["verdict"], "disagrees");
  EXPECT_TRUE(j["rows"][2]["ratio"].is_null());
}

TEST(Validation, RefusesARunThatIsAReferenceAndAReferenceThatIsNot) {
  const RunDocument run = h200();
  const RunDocument pub = dataset({published("l1.latency", 32, "cycles", {{"ours", kL1}})});
  EXPECT_THROW(validate_run(pub, {&pub}, {"a"}), UserError);
  EXPECT_THROW(validate_run(run, {&run}, {"b"}), UserError);
}

// The committed dataset: enough figures from enough sources, each with what a reader needs, and on
// the committed H200 run every one of them put in common units.
TEST(Validation, TheCommittedHopperDatasetAgainstTheCommittedH200Run) {
  const std::string root = GPUDISSECT_SOURCE_DIR;
  const RunDocument pub = read_run_file(root + "/data/reference/sm_90-published-hopper.json");
  const RunDocument run = read_run_file(test_support::kCommittedSuite);
  std::set<std::string> sources;
  for (const Record& r : pub.records) {
    const json& ref = r.extra.at("reference");
    sources.insert(ref.at("source_key").get<std::string>());
    for (const char* key : {"source", "where", "section", "chip", "method", "as_written", "kind", "compare", "ours"})
      EXPECT_TRUE(ref.contains(key)) << r.id << " lacks " << key;
    if (ref.value("compare", "") == "per_sm_per_clock") {
      EXPECT_TRUE(ref.contains("clock_mhz") && ref.contains("sm_count")) << r.id;
    }
  }
  EXPECT_GE(pub.records.size(), 60u);
  EXPECT_GE(sources.size(), 5u);
  const ValidationReport rep = validate(run, pub);
  EXPECT_EQ(rep.count(Verdict::NotComparable), 0) << validation_markdown(rep);
  for (const ValidationRow& r : rep.rows) {
    if (r.verdict == Verdict::NotMeasured) {
      EXPECT_NE(r.note.find("no ok record"), std::string::npos) << r.id << ": " << r.note << " (a selector typo?)";
    }
    if (r.id == "tensor.wgmma.bf16_f32") {
      EXPECT_EQ(r.verdict, Verdict::Agrees) << r.source_key;
    }
  }
}

}  // namespace
}  // namespace gd
