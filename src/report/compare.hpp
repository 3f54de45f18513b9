// Two runs side by side (two GPUs, two builds, two days): records matched by probe id and
// parameters, metrics by name, each with its B/A ratio; what only one run has is listed.
#pragma once
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "core/run_file.hpp"

namespace gd {

struct RunToRunTable;

struct CompareOptions {
  // A metric moved when |B/A - 1| exceeds this and the shift of the medians is significant (below).
  double threshold = 0.04;
  // How far each metric moves between repeat runs of one card (report/run_to_run.hpp, `compare
  // --noise`): added to each metric's own noise; null: the runs' samples alone.
  const RunToRunTable* run_to_run = nullptr;
  std::string run_to_run_file;  // where it was read, for the reader of the summary
  bool run_to_run_found = false;  // found beside the binary rather than given with --noise
};

// Below this two-sided p-value a shift of the medians is not the runs' sampling noise.
inline constexpr double kCompareAlpha = 1e-3;

// How one metric moved from A to B. The noise is that of the two estimates, not of their samples'
// extremes: each median's relative standard error, 0.9291 IQR / sqrt(n) / |median| (1.2533 sd /
// sqrt(n) with the IQR's estimate of sd, IQR / 1.349; from sd itself where a run kept no
// quartiles), combined as the standard error of ln(B/A): it gives B/A's interval. A move is called
// when |B/A - 1| exceeds the threshold and a test rejects "no shift" at p < kCompareAlpha: where
// both sides kept a sketch of at least kMinRankTestSamples samples, the Mann-Whitney U test (analysis/rank_test.hpp),
// which sees a shift of the whole distribution; else ln(B/A) against the noise (two-sided, normal
// approximation). A side with one sample (or no spread) gives no test, and then the threshold
// alone decides. The half-range of the samples, used before,
// grew with the sample count: a point measured 2048 times had a half-range of 173 % of its median
// and hid a 1.5x move. Whether a move is better or worse follows the metric's family: latency/* is
// better lower, bandwidth/* and throughput/* better higher; any other move is only "changed".
struct Change {
  // Contended: it moved, but either side was measured while another process used the GPU
  // (flagged `contended`, core/tenancy.hpp): shown, never counted as a regression or improvement.
  enum class Kind { Same, Regression, Improvement, Changed, Contended };
  Kind kind = Kind::Same;
  double ratio = 1;  // B / A
  double noise = 0;  // standard error of ln(B/A); 0 when a side has no spread to go by
  // The run-to-run part of the noise (CompareOptions::run_to_run's sigma for this probe and metric),
  // 0 when no table was given or it has no such group.
  double run_to_run = 0;
  // The test that gave p_value: none (the threshold alone decided), the rank test of the two
  // sketches, the medians' shift against the noise, or that shift against the noise with the
  // run-to-run spread added (a drift between runs moves the whole distribution, which the rank test
  // of one pair of runs would call).
  enum class Test { None, Rank, Median, RunToRun };
  Test test = Test::None;
  double p_value = std::numeric_limits<double>::quiet_NaN();  // NaN when no test could be made
  // The rank test's effect size, P(a B sample > an A sample): 0.5 no shift, 0 or 1 no overlap.
  double superiority = std::numeric_limits<double>::quiet_NaN();
  // B/A's 95 % interval, ratio * exp(-+1.96 noise).
  double low() const { return ratio * std::exp(-1.96 * noise); }
  double high() const { return ratio * std::exp(1.96 * noise); }
};
// The rank test needs this many samples a side to reach p < kCompareAlpha at all: with 7 against
// 7, even two samples sets that do not overlap give p = 0.0017 (normal approximation; 6e-4 exact),
// 8 against 8 gives 8e-4. With fewer, the medians' test decides (a 5 % shift of metrics measured 3
// to 7 times was otherwise never found).
inline constexpr std::size_t kMinRankTestSamples = 8;
bool rank_test_has_power(const Summary& a, const Summary& b);
// A median's relative standard error (above); 0 for a single value or no spread.
double relative_standard_error(const Metric& m);
std::string to_string(Change::Kind k);
std::string to_string(Change::Test t);
// B/A, or nullopt when it cannot be formed (A zero or unknown); units must agree.
std::optional<double> ratio_of(const Metric& a, const Metric& b);
// nullopt when no ratio can be formed (units differ, A zero or unknown). `run_to_run`: the sigma of
// ln(B/A) between repeat runs of one card for this metric, 0 when not known.
std::optional<Change> assess(const std::string& metric, const Metric& a, const Metric& b, const CompareOptions& opts,
                             double run_to_run = 0);
// assess() for a metric of two matched records (nullopt when a side lacks it): a move where either
// record is flagged `contended` is Kind::Contended.
std::optional<Change> assess(const std::string& metric, const Record& a, const Record& b, const CompareOptions& opts);

// Every metric both runs have on records matched by probe id and params (both measured, status ok),
// in A's order: what compare compares.
void for_each_compared_metric(const RunDocument& a, const RunDocument& b,
                              const std::function<void(const Record&, const Metric&, const Record&, const Metric&)>& f);

struct ChangeCounts {
  int regressions = 0, improvements = 0, changed = 0;
  int contended = 0;  // moves not counted: a side was measured beside another process
};
ChangeCounts count_changes(const RunDocument& a, const RunDocument& b, const CompareOptions& opts);

// Markdown. A ratio is blank when a side lacks the metric and "n/a" when it cannot be formed
// (A is zero or unknown, or the units differ); a metric that moved beyond the noise is marked.
std::string compare_runs(const RunDocument& a, const RunDocument& b, const CompareOptions& opts = {});
// The same comparison as data (`compare --json`, docs/json-output.md): the runs, the matched
// records with each metric's A and B values and B/A ratio (null where the Markdown says n/a or
// leaves it blank), what was matched but not compared, what only one run has, and the counts.
nlohmann::json compare_runs_json(const RunDocument& a, const RunDocument& b, const CompareOptions& opts = {});

}  // namespace gd
