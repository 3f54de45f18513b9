// compare's statistics, calibrated on committed runs: it must stay quiet between two runs of one
// card and still find a small move in a quiet metric and a large move in a noisy one.
#include <gtest/gtest.h>

#include <string>

#include "core/run_file.hpp"
#include "report/compare.hpp"
#include "support/committed_suite.hpp"

namespace gd {
namespace {

const std::string kMeasured = std::string(GPUDISSECT_SOURCE_DIR) + "/data/measured/";

// (max - min) / 2 / |median|: how far a metric's own samples spread.
double half_range(const Metric& m) { return m.stats.n < 2 ? 0 : (m.stats.max - m.stats.min) / 2 / std::fabs(m.value()); }

// Every metric both runs have for a record both measured, as (A's, B's).
template <class F>
void each_pair(const RunDocument& a, RunDocument& b, F f) {
  for (const Record& ra : a.records) {
    if (ra.status != Status::Ok) continue;
    for (Record& rb : b.records) {
      if (rb.status != Status::Ok || rb.id != ra.id || rb.derived != ra.derived || to_string(rb.params) != to_string(ra.params))
        continue;
      for (const Metric& ma : ra.metrics)
        for (Metric& mb : rb.metrics)
          if (mb.name == ma.name) f(ra, ma, rb, mb);
    }
  }
}

// The repeat run of 2026-11-29: the same card, the same code, minutes apart.
TEST(CompareCalibration, TwoRunsOfOneCardRaiseUnderOnePercentFalseAlarms) {
  const RunDocument a = read_run_file(kMeasured + "nvidia-h200-2026-11-29.json");
  const RunDocument b = read_run_file(kMeasured + "nvidia-h200-2026-11-29-repeat.json");
  ASSERT_EQ(a.device["uuid"], b.device["uuid"]);
  const ChangeCounts c = count_changes(a, b, {});
  const int compared = compare_runs_json(a, b)["summary"]["metrics_compared"].get<int>();
  ASSERT_GT(compared, 400);
  EXPECT_LT(c.regressions + c.improvements + c.changed, 0.01 * compared)
      << c.regressions << " regressions, " << c.improvements << " improvements, " << c.changed << " changed of " << compared;
}

// A 5 % shift planted in every metric whose own half-range is under 1 %.
TEST(CompareCalibration, AFivePercentShiftInAQuietMetricIsFound) {
  const RunDocument a = read_run_file(kMeasured + "nvidia-h200-2026-11-29.json");
  RunDocument b = read_run_file(kMeasured + "nvidia-h200-2026-11-29-repeat.json");
  int planted = 0, found = 0;
  each_pair(a, b, [&](const Record&, const Metric& ma, const Record&, Metric& mb) {
    if (mb.stats.n < 2 || mb.value() == 0 || half_range(mb) >= 0.01) return;
    Metric shifted = mb;
    for (double* v : {&shifted.stats.median, &shifted.stats.min, &shifted.stats.max, &shifted.stats.mean, &shifted.stats.stddev})
      *v *= 1.05;
    const auto change = assess(ma.name, ma, shifted, {});
    if (!change) return;
    ++planted;
    found += change->kind != Change::Kind::Same;
  });
  ASSERT_GT(planted, 300);
  EXPECT_GE(found, 0.95 * planted) << found << " of " << planted;
}

// The case that showed the old rule blind: fa3, causal, seq 4096, 2048 samples spread over more
// than half the median either way. Multiplying the median by 1.5 was "0 changes" over 8861 metrics.
TEST(CompareCalibration, AOneAndAHalfFoldMoveOfAWidelySpreadPointIsFound) {
  const RunDocument a = run_from_json(test_support::committed_suite(), test_support::kCommittedSuite);
  RunDocument b = a;
  Metric* moved = nullptr;
  for (Record& r : b.records)
    if (r.id == "attention.breakdown" && !r.derived && to_string(r.params) == "causal=1 head_dim=64 schedule=fa3 seq=4096 variant=full")
      for (Metric& m : r.metrics)
        if (m.name == "cycles/per_kv_tile") moved = &m;
  ASSERT_TRUE(moved);
  const double half_range_a = half_range(*moved);
  moved->stats.median *= 1.5;
  // The old rule's noise, the two half-ranges added, covers the 50 % move: it called nothing.
  ASSERT_GT(half_range_a + half_range(*moved), 0.5) << "the point is still as widely spread";
  const ChangeCounts c = count_changes(a, b, {});
  EXPECT_EQ(c.regressions + c.improvements + c.changed, 1);
  const nlohmann::json j = compare_runs_json(a, b);
  bool seen = false;
  for (const auto& rec : j["matched"])
    for (const auto& m : rec["metrics"])
      if (m["change"] == "changed") {
        seen = true;
        EXPECT_EQ(rec["id"], "attention.breakdown");
        EXPECT_LT(m["p_value"].get<double>(), kCompareAlpha);
        EXPECT_LT(m["interval"][0].get<double>(), 1.5);
        EXPECT_GT(m["interval"][1].get<double>(), 1.5);
      }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace gd
