#include "report/headlines.hpp"

#include <set>

#include <gtest/gtest.h>

#include "core/clock_check.hpp"
#include "report/probe_json.hpp"
#include "report/item_values.hpp"
#include "report/markdown.hpp"
#include "support/sample_run.hpp"

namespace gd {
namespace {

using test_support::metric;
using test_support::record;

Record tbps(const std::string& id, Params p, double v) {
  return record(id, std::move(p), {metric("bandwidth/tbps", "TB/s", v, v * 0.99, v * 1.01, 9)});
}

// The 2026-11-30f dataset's picture: the persistent grid-stride probe comes first in the run, a one-shot
// grid of another probe wrote faster, and a TMA bulk load read faster than both.
RunDocument dram_run() {
  RunDocument doc = test_support::sample_run();
  doc.records.clear();
  const Params best = {{"op", std::string("write")}, {"warps_per_sm", std::string("best")}};
  doc.records.push_back(tbps("memory.bandwidth.dram", {{"op", std::string("read")}, {"warps_per_sm", std::int64_t(32)}}, 4.597));
  doc.records.push_back(tbps("memory.bandwidth.dram", {{"op", std::string("write")}, {"warps_per_sm", std::int64_t(8)}}, 4.47));
  Record derived = tbps("memory.bandwidth.dram", best, 4.47);
  derived.derived = true;
  doc.records.push_back(derived);
  doc.records.push_back(tbps("memory.bandwidth.dram_shape",
                             {{"op", std::string("write")}, {"launch", std::string("oneshot")}, {"width", std::int64_t(16)}}, 4.688));
  doc.records.push_back(tbps("memory.bandwidth.dram_shape",
                             {{"op", std::string("read")}, {"launch", std::string("oneshot")}, {"width", std::int64_t(16)}}, 4.55));
  doc.records.push_back(tbps("async.bulk.load", {{"source", std::string("dram")}, {"stages", std::int64_t(4)}}, 4.68));
  doc.records.push_back(tbps("async.bulk.load", {{"source", std::string("l2")}, {"stages", std::int64_t(4)}}, 11.8));
  doc.records.push_back(tbps("memory.bandwidth.copy_engine", {{"op", std::string("memcpy_d2d")}}, 4.267));
  doc.records.push_back(tbps("memory.bandwidth.dram_shape",
                             {{"op", std::string("copy")}, {"launch", std::string("oneshot")}, {"width", std::int64_t(16)}}, 4.28));
  return doc;
}

const HeadlineRule& rule(const std::string& quantity) {
  for (const HeadlineRule& r : headline_rules())
    if (r.quantity == quantity) return r;
  throw std::runtime_error("no headline rule " + quantity);
}

TEST(Headlines, ASecondProbeThatBeatsTheFirstIsTheHeadline) {
  const RunDocument doc = dram_run();
  const auto write = resolve_headline(doc, rule("dram.write_bandwidth"));
  ASSERT_TRUE(write);
  EXPECT_EQ(write->value.record->id, "memory.bandwidth.dram_shape");
  EXPECT_DOUBLE_EQ(write->value.value, 4.688);
  EXPECT_EQ(write->candidates, 3) << "the persistent point, its derived best and the one-shot point";
  EXPECT_NE(headline_source_label(*write).find("launch=oneshot"), std::string::npos) << "named with the shape that won";

  const auto read = resolve_headline(doc, rule("dram.read_bandwidth"));
  ASSERT_TRUE(read);
  EXPECT_EQ(read->value.record->id, "async.bulk.load") << "a TMA bulk load from DRAM is a DRAM read";
  EXPECT_DOUBLE_EQ(read->value.value, 4.68) << "the L2 source is not a DRAM read";
  // An im2col load's filter taps re-read pixels from L2: its delivered bytes are no DRAM read.
  RunDocument with_im2col = doc;
  with_im2col.records.push_back(tbps("async.tensor.im2col", {{"source", std::string("dram")}, {"stages", std::int64_t(4)}}, 4.70));
  EXPECT_DOUBLE_EQ(resolve_headline(with_im2col, rule("dram.read_bandwidth"))->value.value, 4.68);

  const auto copy = resolve_headline(doc, rule("dram.copy_bandwidth"));
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->value.record->id, "memory.bandwidth.dram_shape");
  EXPECT_EQ(resolve_headline(doc, rule("l2.read_bandwidth"))->value.value, 11.8);
}

// A faster number measured beside another process is not the card's: a record measured alone
// wins; the contended one is the headline only where nothing else competes, and says so.
TEST(Headlines, ARecordMeasuredAloneBeatsAContendedOne) {
  RunDocument doc = dram_run();
  add_flag(doc.records[3], kContendedFlag);  // the one-shot write at 4.688 TB/s
  const auto write = resolve_headline(doc, rule("dram.write_bandwidth"));
  ASSERT_TRUE(write);
  EXPECT_DOUBLE_EQ(write->value.value, 4.47);
  EXPECT_EQ(write->value.record->id, "memory.bandwidth.dram");
  for (Record& r : doc.records) add_flag(r, kContendedFlag);
  const auto only = resolve_headline(doc, rule("dram.write_bandwidth"));
  ASSERT_TRUE(only);
  EXPECT_DOUBLE_EQ(only->value.value, 4.688);
  EXPECT_NE(std::find(only->verdicts.begin(), only->verdicts.end(), "contended"), only->verdicts.end());
}

TEST(Headlines, APointWinsATieWithItsDerivedBestAndNamesItsShape) {
  RunDocument doc;
  Record point = tbps("memory.bandwidth.dram", {{"op", std::string("triad")}, {"warps_per_sm", std::int64_t(32)}}, 4.2);
  Record best = tbps("memory.bandwidth.dram", {{"op", std::string("triad")}, {"warps_per_sm", std::string("best")}}, 4.2);
  best.derived = true;
  doc.records = {best, point};
  const auto h = resolve_headline(doc, rule("dram.triad_bandwidth"));
  ASSERT_TRUE(h);
  EXPECT_FALSE(h->value.record->derived);
  EXPECT_EQ(h->shape, "op=triad warps_per_sm=32");
}

TEST(Headlines, ADesignatedQuantityIsItsRecordNotTheLowest) {
  RunDocument doc;
  const auto lat = [](const std::string& level, const std::string& variant, double v) {
    return record("memory.latency.chase", {{"level", level}, {"variant", variant}},
                  {metric("latency/cycles", "cycles", v, v, v, 5)});
  };
  doc.records = {lat("L2", "ca", 200), lat("L2", "cg", 279), lat("DRAM", "cg", 684)};
  const auto h = resolve_headline(doc, rule("l2.near_latency"));
  ASSERT_TRUE(h);
  EXPECT_EQ(h->value.value, 279) << "the cg chase defines L2 latency; a lower ca record does not replace it";
}

TEST(Headlines, VerdictsTravelWithTheHeadline) {
  RunDocument doc = dram_run();
  for (Record& r : doc.records)
    if (r.id == "memory.bandwidth.dram_shape") {
      r.sass = {SassStatus::Unverified, "not checked"};
      r.convergence.converged = false;
      r.sm_clock_mhz = 1612;
      check_clock(r, 1980);
    }
  const auto h = resolve_headline(doc, rule("dram.write_bandwidth"));
  ASSERT_TRUE(h);
  const std::vector<std::string> want = {"sass unverified", "not converged", kClockBelowApplicationFlag};
  EXPECT_EQ(h->verdicts, want);
  const std::string md = headlines_markdown({*h});
  EXPECT_NE(md.find("clock_below_application"), std::string::npos) << md;
  EXPECT_NE(md.find("best of 3"), std::string::npos) << md;
  const auto j = headlines_json({*h});
  EXPECT_EQ(j[0]["record"], "memory.bandwidth.dram_shape");
  EXPECT_EQ(j[0]["verdicts"].size(), 3u);
}

// wgmma ran at 1612 MHz by its own clock on an H200 whose application clock is 1980 MHz: 99.98 % per
// clock is 81.4 % of the rate the datasheet's clock would give. Both shares, one clock source each.
TEST(Headlines, PercentOfPeakIsGivenPerClockAndAtTheApplicationClock) {
  RunDocument doc;
  doc.gpu_state = {{"before", {{"settings", {{"application_sm_clock_mhz", 1980}}}}}};
  Record w = record("tensor.wgmma.throughput", {{"op", std::string("f16_f32")}, {"n", std::int64_t(256)}},
                    {metric("throughput/tflops", "TFLOPS", 871.5, 870, 872, 9),
                     metric("throughput/peak_tflops_at_clock", "TFLOPS", 871.7, 871.7, 871.7, 1)});
  w.sm_clock_mhz = 1612.2;
  doc.records = {w};
  const auto h = resolve_headline(doc, rule("tensor.wgmma.f16_f32"));
  ASSERT_TRUE(h);
  EXPECT_NEAR(h->percent_of_peak_at_clock, 99.98, 0.01);
  EXPECT_NEAR(h->percent_of_peak_at_application, 99.98 * 1612.2 / 1980, 0.01);
  EXPECT_EQ(h->application_mhz, 1980);
  const std::string md = headlines_markdown({*h});
  EXPECT_NE(md.find("99.98 % / 81.4 % @ 1980"), std::string::npos) << md;
  const auto dram = resolve_headline(dram_run(), rule("dram.read_bandwidth"));
  ASSERT_TRUE(dram);
  EXPECT_TRUE(std::isnan(dram->percent_of_peak_at_clock)) << "no per-clock peak stated: no share invented";
}

// A GEMM record holds two figures at two clocks (gemm_measure.hpp): each headline's share uses its
// own figure's peak and the clock right after its calls, never the other figure's or NVML's, and
// says it is a lower bound (the library's kernels ran at that clock or below).
TEST(Headlines, AGemmFiguresShareOfPeakUsesThatFiguresClock) {
  RunDocument doc;
  doc.gpu_state = {{"before", {{"settings", {{"application_sm_clock_mhz", 1980}}}}}};
  const Params p = {{"type", std::string("bf16")}, {"shape", std::string("sq8192")}, {"library", std::string("cublaslt")}};
  Record g = record("gemm.ceiling.cublas", p,
                    {metric("throughput/first_calls_tflops", "TFLOPS", 800, 800, 800, 9),
                     metric("clock/first_calls_after_sm_mhz", "MHz", 1800, 1800, 1800, 9),
                     metric("throughput/first_calls_peak_tflops_at_clock", "TFLOPS", 973.1, 973.1, 973.1, 1),
                     metric("throughput/steady_tflops", "TFLOPS", 680, 680, 680, 60),
                     metric("clock/steady_after_sm_mhz", "MHz", 1500, 1500, 1500, 60),
                     metric("throughput/steady_peak_tflops_at_clock", "TFLOPS", 810.9, 810.9, 810.9, 1)});
  g.sm_clock_mhz = 1800;
  doc.records = {g};
  const auto first = resolve_headline(doc, rule("gemm.bf16"));
  ASSERT_TRUE(first);
  EXPECT_NEAR(first->percent_of_peak_at_clock, 100 * 800 / 973.1, 1e-9);
  EXPECT_NEAR(first->percent_of_peak_at_application, 100 * 800 / (973.1 * 1980 / 1800), 1e-9);
  EXPECT_EQ(first->clock_mhz, 1800);
  const auto steady = resolve_headline(doc, rule("gemm.bf16.steady"));
  ASSERT_TRUE(steady);
  EXPECT_NEAR(steady->percent_of_peak_at_clock, 100 * 680 / 810.9, 1e-9);
  EXPECT_NEAR(steady->percent_of_peak_at_application, 100 * 680 / (810.9 * 1980 / 1500), 1e-9);
  EXPECT_EQ(steady->clock_mhz, 1500);
  EXPECT_TRUE(steady->shares_are_lower_bounds) << "the clock right after a library's calls bounds theirs from above";
  const std::string md = headlines_markdown({*steady});
  EXPECT_NE(md.find("≤1500 (after)"), std::string::npos) << md;
  EXPECT_NE(md.find("≥83.86 %"), std::string::npos) << md;
  // Without its figure's peak a GEMM headline states no share: none borrowed from the other figure.
  doc.records[0].metrics.erase(doc.records[0].metrics.begin() + 5);
  EXPECT_TRUE(std::isnan(resolve_headline(doc, rule("gemm.bf16.steady"))->percent_of_peak_at_clock));
}

TEST(Headlines, AnEmptyOrUnrelatedRunHasNoHeadline) {
  RunDocument doc;
  EXPECT_TRUE(resolve_headlines(doc).empty());
  doc.records.push_back(tbps("memory.bandwidth.dram", {{"op", std::string("write")}}, 4.4));
  doc.records.back().status = Status::Failed;
  EXPECT_FALSE(resolve_headline(doc, rule("dram.write_bandwidth"))) << "a failed record is no headline";
}

TEST(Headlines, RulesAreWellFormed) {
  ASSERT_FALSE(headline_rules().empty());
  std::set<std::string> seen;
  for (const HeadlineRule& r : headline_rules()) {
    EXPECT_TRUE(seen.insert(r.quantity).second) << "duplicate quantity " << r.quantity;
    EXPECT_FALSE(r.sources.empty()) << r.quantity;
    EXPECT_FALSE(r.unit.empty()) << r.quantity;
  }
}

// Coverage, the guide and the report read a quantity's item through the headline, not the first
// probe that declares it (issue 25: the DRAM figure came from the persistent-grid probe alone).
TEST(Headlines, ItemValuesAndTheReportUseTheHeadline) {
  const RunDocument doc = dram_run();
  const auto items = item_values(doc, registered_probes());
  ASSERT_TRUE(items.count("memory.dram.bandwidth"));
  EXPECT_EQ(items.at("memory.dram.bandwidth").record->id, "async.bulk.load");
  EXPECT_DOUBLE_EQ(items.at("memory.dram.bandwidth").value, 4.68);
  const std::string md = markdown_report(doc);
  const auto glance = md.find("## The chip at a glance");
  ASSERT_NE(glance, std::string::npos);
  EXPECT_LT(glance, md.find("## Summary")) << "the report opens with the headlines";
  EXPECT_LT(md.find("## memory"), md.find("## Device")) << "run metadata at the end";
  EXPECT_LT(md.find("## memory"), md.find("## async")) << "categories in the studies' order";
}

}  // namespace
}  // namespace gd

namespace gd {
namespace {

Record pipe_row(const std::string& row, const std::string& top, std::vector<std::string> busiest,
                std::vector<std::string> tied = {}) {
  Record r = test_support::record("pipes.interference." + row, {{"method", std::string("both")}}, {});
  r.derived = true;
  r.extra["pipe_by_interference"] = top;
  if (!busiest.empty()) r.extra["pipe_by_ncu"] = {{"busiest", busiest}};
  else r.extra["pipe_by_ncu"] = "ncu counters absent";
  if (!tied.empty()) r.extra["pipe_by_interference_tied"] = tied;
  return r;
}

// Issue 25 §5: an FP64 row that interference calls "tensor" is a miss (the shared FP64/tensor pipe
// decides nothing alone), ties are their own column, undetermined rows stay in the denominator.
TEST(PipeAgreement, StrictWithTiesApartAndUndeterminedCounted) {
  RunDocument doc;
  doc.records = {pipe_row("lop3", "INT", {"alu"}),
                 pipe_row("dadd", "tensor", {"fp64", "shared"}),
                 pipe_row("dfma", "FP64", {"fp64", "shared"}),
                 pipe_row("mma_f16_f16", "tensor", {"shared"}),
                 pipe_row("imad", "FP32", {"fmaheavy"}),
                 pipe_row("ffma", "FMAheavy", {"fma", "fmaheavy", "fmalite"}, {"FMAheavy", "FP32"}),
                 pipe_row("ex2", "undetermined", {"xu"}),
                 pipe_row("shfl", "LSU", {})};
  const PipeAgreement a = pipe_agreement(doc);
  EXPECT_EQ(a.rows, 8);
  EXPECT_EQ(a.strict, 4) << "lop3, dfma, mma (shared alone), imad";
  EXPECT_EQ(a.through_tie, 1) << "ffma: FP32 was tied with FMAheavy";
  EXPECT_EQ(a.undetermined, 2);
  ASSERT_EQ(a.misses.size(), 1u);
  EXPECT_NE(a.misses[0].find("dadd: interference tensor, ncu fp64+shared"), std::string::npos) << a.misses[0];
  EXPECT_NE(markdown_report(doc).find("strictly on **4 of 8** rows"), std::string::npos);
}

}  // namespace
}  // namespace gd
