#include "core/record.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "support/sample_run.hpp"

namespace gd {
namespace {

using nlohmann::json;
using test_support::kNaN;

// The message a reader sees must say exactly where the problem is.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<no exception>";
}

TEST(StatusStrings, RoundTripEveryValue) {
  for (Status s : {Status::Ok, Status::Skipped, Status::Failed}) EXPECT_EQ(status_from_string(to_string(s)), s);
  for (SassStatus s : {SassStatus::Verified, SassStatus::Mismatch, SassStatus::Unverified, SassStatus::NotApplicable})
    EXPECT_EQ(sass_status_from_string(to_string(s)), s);
  for (ClockSource c : {ClockSource::None, ClockSource::InKernel, ClockSource::FromPoints})
    EXPECT_EQ(clock_source_from_string(to_string(c)), c);
  EXPECT_EQ(to_string(SassStatus::NotApplicable), "not_applicable");
  EXPECT_THROW(clock_source_from_string("after_point"), std::invalid_argument);
  EXPECT_EQ(to_string(Status::Skipped), "skipped");
  EXPECT_EQ(to_string(SassStatus::Mismatch), "mismatch");
}

TEST(StatusStrings, UnknownNamesTheValue) {
  EXPECT_EQ(error_of([] { status_from_string("done"); }), "unknown status 'done' (expected ok, skipped or failed)");
  EXPECT_NE(error_of([] { sass_status_from_string("Verified"); }).find("'Verified'"), std::string::npos);
}

TEST(RecordMetric, FindsByNameOrNull) {
  Record r = test_support::record("x.y.z", {}, {test_support::metric("a/b", "ns", 1, 1, 1, 1),
                                                test_support::metric("c/d", "cycles", 2, 2, 2, 1)});
  ASSERT_NE(r.metric("c/d"), nullptr);
  EXPECT_EQ(r.metric("c/d")->value(), 2);
  EXPECT_EQ(r.metric("missing"), nullptr);
}

TEST(MetricJson, HasAllFieldsAndValueIsMedian) {
  const json j = to_json(test_support::metric("latency/cycles", "cycles", 4.5, 4, 6, 20, 0.25));
  EXPECT_EQ(j["name"], "latency/cycles");
  EXPECT_EQ(j["unit"], "cycles");
  EXPECT_EQ(j["value"], 4.5);
  EXPECT_EQ(j["median"], 4.5);
  EXPECT_EQ(j["min"], 4.0);
  EXPECT_EQ(j["max"], 6.0);
  EXPECT_EQ(j["mean"], 5.0);
  EXPECT_EQ(j["stddev"], 0.25);
  EXPECT_TRUE(j["n"].is_number_integer());
  EXPECT_EQ(j["n"], 20);
}

TEST(MetricJson, NaNIsNullAndReadsBackAsNaN) {
  Metric m = test_support::metric("x", "ns", 1, 1, 1, 1, kNaN);
  m.stats.mean = kNaN;
  const json j = to_json(m);
  EXPECT_TRUE(j["stddev"].is_null());
  EXPECT_TRUE(j["mean"].is_null());
  // Through text too: a file never holds a NaN token.
  const Metric back = metric_from_json(json::parse(j.dump()));
  EXPECT_TRUE(std::isnan(back.stats.stddev));
  EXPECT_TRUE(std::isnan(back.stats.mean));
  EXPECT_EQ(back.stats.median, 1);
  EXPECT_EQ(back.stats.n, 1u);
}

TEST(MetricJson, EmptySummaryRoundTrips) {
  const Metric m{"nothing", "ns", Summary{}};
  const Metric back = metric_from_json(to_json(m));
  EXPECT_TRUE(std::isnan(back.value()));
  EXPECT_EQ(back.stats.n, 0u);
}

// The quartiles and sketch compare's rank test reads survive a run file; a single value has
// neither (its spread is nothing to describe), and a damaged sketch is refused by name.
TEST(MetricJson, QuartilesAndSketchRoundTrip) {
  std::vector<double> samples;
  for (int i = 0; i < 100; ++i) samples.push_back(1000 + i);
  const Metric m{"bandwidth/tbps", "TB/s", summarize(samples)};
  const json j = to_json(m);
  ASSERT_TRUE(j.contains("sketch"));
  EXPECT_EQ(j["sketch"].size(), kSketchPoints);
  const Metric back = metric_from_json(j);
  EXPECT_EQ(back.stats.sketch, m.stats.sketch);
  EXPECT_DOUBLE_EQ(back.stats.q1, 1024.75);
  EXPECT_DOUBLE_EQ(back.stats.q3, 1074.25);
  const json one = to_json(Metric{"x", "ns", single_value(3)});
  EXPECT_FALSE(one.contains("sketch"));
  EXPECT_FALSE(one.contains("q1"));

  json bad = j;
  bad["sketch"].erase(0);
  EXPECT_EQ(error_of([&] { metric_from_json(bad); }),
            "metric 'bandwidth/tbps': field 'sketch' holds 31 points for 100 samples (expected 32)");
  bad = j;
  std::swap(bad["sketch"][0], bad["sketch"][5]);
  EXPECT_EQ(error_of([&] { metric_from_json(bad); }), "metric 'bandwidth/tbps': field 'sketch' is not sorted");
  bad = j;
  bad["sketch"][3] = "x";
  EXPECT_EQ(error_of([&] { metric_from_json(bad); }), "metric 'bandwidth/tbps': field 'sketch' holds a string, not a number");
}

TEST(MetricJson, TypeErrorsNameMetricAndField) {
  json j = to_json(test_support::metric("latency/cycles", "cycles", 4, 4, 4, 3));
  j["n"] = 2.5;
  EXPECT_EQ(error_of([&] { metric_from_json(j); }),
            "metric 'latency/cycles': field 'n' must be an integer, not number");
  j["n"] = -1;
  EXPECT_EQ(error_of([&] { metric_from_json(j); }), "metric 'latency/cycles': field 'n' must not be negative");
  j["n"] = 3;
  j["median"] = "4";
  EXPECT_EQ(error_of([&] { metric_from_json(j); }),
            "metric 'latency/cycles': field 'median' must be a number or null, not string");
  j.erase("median");
  EXPECT_EQ(error_of([&] { metric_from_json(j); }), "metric 'latency/cycles': missing field 'median'");
  j.erase("name");
  EXPECT_EQ(error_of([&] { metric_from_json(j); }), "metric: missing field 'name'");
  EXPECT_EQ(error_of([] { metric_from_json(json::array()); }), "metric must be an object, not array");
}

TEST(RecordJson, RoundTripKeepsEveryField) {
  Record r = test_support::record("memory.bandwidth.dram", {{"op", std::string("triad")}, {"warps", std::int64_t{8}}},
                                  {test_support::metric("bandwidth/tbps", "TB/s", 4.512, 4.5, 4.52, 15),
                                   test_support::metric("bandwidth/percent", "%", 91.7, 91, 92, 15, kNaN)},
                                  SassStatus::Mismatch);
  r.derived = true;
  r.reason = "not really";
  r.sm_clock_mhz = 1755.5;
  r.sm_clock_source = ClockSource::FromPoints;
  r.sm_clock_detail = "median of 3";
  r.kernels = {"_Z4copyPv", "_Z4fillPv"};
  r.convergence = {true, false, "time cap", 4, 2};
  r.nvml_sm_clock_mhz = 1755;
  r.elapsed_s = 1.25;
  r.extra = {{"fit", {{"r2", 0.999}}}, {"bytes", 17179869184LL}};
  const json j = to_json(r);
  EXPECT_EQ(j["convergence"]["stop_reason"], "time cap");
  EXPECT_EQ(j["sm_clock_source"], "from_points");
  const Record back = record_from_json(json::parse(j.dump()));
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.id, "memory.bandwidth.dram");
  EXPECT_EQ(back.category, "memory");
  EXPECT_EQ(to_string(back.params), "op=triad warps=8");
  EXPECT_EQ(back.sass.status, SassStatus::Mismatch);
  EXPECT_EQ(back.sass.detail, r.sass.detail);
  EXPECT_TRUE(back.derived);
  EXPECT_EQ(back.reason, "not really");
  EXPECT_EQ(back.sm_clock_mhz, 1755.5);
  EXPECT_EQ(back.sm_clock_source, ClockSource::FromPoints);
  EXPECT_EQ(back.sm_clock_detail, "median of 3");
  EXPECT_EQ(back.kernels, r.kernels);
  EXPECT_TRUE(back.convergence.recorded);
  EXPECT_FALSE(back.convergence.converged);
  EXPECT_EQ(back.convergence.n, 4u);
  EXPECT_EQ(back.convergence.measurements, 2);
  EXPECT_EQ(back.elapsed_s, 1.25);
  EXPECT_EQ(back.extra["bytes"], 17179869184LL);
  ASSERT_EQ(back.metrics.size(), 2u);
  EXPECT_EQ(back.metrics[0].value(), 4.512);
  EXPECT_TRUE(std::isnan(back.metrics[1].stats.stddev));
}

TEST(RecordJson, MinimalRecordTakesDefaults) {
  const Record r = record_from_json({{"id", "a.b"}, {"category", "a"}, {"status", "skipped"}, {"metrics", json::array()}});
  EXPECT_EQ(r.status, Status::Skipped);
  EXPECT_TRUE(r.params.empty());
  EXPECT_EQ(r.sass.status, SassStatus::Unverified);
  EXPECT_FALSE(r.derived);
  EXPECT_EQ(r.sm_clock_mhz, 0);
  EXPECT_EQ(r.sm_clock_source, ClockSource::None) << "a version-1 record does not say: unknown, not in-kernel";
  EXPECT_FALSE(r.convergence.recorded);
  EXPECT_TRUE(r.kernels.empty());
  EXPECT_TRUE(r.extra.is_object());
}

TEST(Combine, WorstSassStatusWins) {
  const SassCheck v{SassStatus::Verified, "a"}, u{SassStatus::Unverified, "b"}, m{SassStatus::Mismatch, "c"},
      na{SassStatus::NotApplicable, "d"};
  EXPECT_EQ(combine(std::vector<SassCheck>{v, m, u}).status, SassStatus::Mismatch);
  EXPECT_EQ(combine(std::vector<SassCheck>{v, u}).status, SassStatus::Unverified);
  EXPECT_EQ(combine(std::vector<SassCheck>{na, na}).status, SassStatus::NotApplicable);
  EXPECT_EQ(combine(std::vector<SassCheck>{}).status, SassStatus::Unverified) << "derived from nothing";
  EXPECT_EQ(combine(std::vector<SassCheck>{m}).detail, "c");
}

// A derived value over a library's points (cuBLAS: no kernel of ours, not_applicable) and checked
// points may come from the library: it is not verified (issue 25: combine() ranked it verified).
TEST(Combine, LibraryOnlyAndVerifiedPointsAreNotVerified) {
  const SassCheck v{SassStatus::Verified, "a"}, na{SassStatus::NotApplicable, "no SM kernel runs by design"},
      m{SassStatus::Mismatch, "c"};
  const SassCheck mixed = combine(std::vector<SassCheck>{na, v, v});
  EXPECT_EQ(mixed.status, SassStatus::Unverified);
  EXPECT_NE(mixed.detail.find("1 of 3 points ran no kernel of ours"), std::string::npos) << mixed.detail;
  EXPECT_EQ(combine(std::vector<SassCheck>{v, na}).status, SassStatus::Unverified) << "order does not matter";
  EXPECT_EQ(combine(std::vector<SassCheck>{na, m}).status, SassStatus::Mismatch) << "a mismatch still wins";
  EXPECT_EQ(combine(std::vector<SassCheck>{v, v}).status, SassStatus::Verified);
}

TEST(Combine, ConvergenceHoldsOnlyIfEveryPartConverged) {
  const Convergence ok{true, true, "converged", 9, 1}, capped{true, false, "sample cap", 15, 1}, none{};
  const Convergence c = combine(std::vector<Convergence>{ok, capped, none});
  EXPECT_TRUE(c.recorded);
  EXPECT_FALSE(c.converged);
  EXPECT_EQ(c.stop_reason, "sample cap");
  EXPECT_EQ(c.n, 9u);
  EXPECT_EQ(c.measurements, 2);
  EXPECT_FALSE(combine(std::vector<Convergence>{none}).recorded);
}

TEST(RecordJson, ErrorsSayWhichField) {
  json j = to_json(test_support::sample_run().records[0]);
  json bad = j;
  bad.erase("id");
  EXPECT_EQ(error_of([&] { record_from_json(bad); }), "missing field 'id'");
  bad = j;
  bad["status"] = "done";
  EXPECT_EQ(error_of([&] { record_from_json(bad); }),
            "field 'status': unknown status 'done' (expected ok, skipped or failed)");
  bad = j;
  bad["metrics"] = json::object();
  EXPECT_EQ(error_of([&] { record_from_json(bad); }), "field 'metrics' must be an array, not object");
  bad = j;
  bad["params"] = {{"chain", true}};
  EXPECT_EQ(error_of([&] { record_from_json(bad); }), "field 'params': param chain must be a number or a string");
  bad = j;
  bad["sass"] = {{"status", "perhaps"}};
  EXPECT_NE(error_of([&] { record_from_json(bad); }).find("field 'sass': unknown SASS status 'perhaps'"), std::string::npos);
  bad = j;
  bad["derived"] = "yes";
  EXPECT_EQ(error_of([&] { record_from_json(bad); }), "field 'derived' must be true or false, not string");
  bad = j;
  bad["extra"] = json::array();
  EXPECT_EQ(error_of([&] { record_from_json(bad); }), "field 'extra' must be an object, not array");
  bad = j;
  bad["metrics"][0]["n"] = "20";
  EXPECT_EQ(error_of([&] { record_from_json(bad); }), "metric 'time/cycles': field 'n' must be an integer, not string");
}

}  // namespace
}  // namespace gd
