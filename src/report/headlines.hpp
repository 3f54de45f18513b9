// The headline of each quantity a reader takes away from a run (DRAM read bandwidth, L1 latency,
// FP32 peak, wgmma f16 rate ...): one table says which records measure the quantity and how the
// headline is chosen among them, and every view (the report's chip-at-a-glance table, coverage,
// the guide, the cross-generation table, `gpudissect headlines`) reads it through resolve_headlines.
// A headline names the record and the kernel shape that won, the clock that record ran at, and
// the verdicts a reader must see beside the number (SASS not verified, not converged, throttled,
// clock below the application clock).
#pragma once
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

#include "core/record.hpp"
#include "core/run_file.hpp"
#include "report/item_values.hpp"

namespace gd {

// Records of a probe (a glob over ids: "async.cp_async.*") whose params include every one of
// `where`, read at `metric`.
struct HeadlineSource {
  std::string probe;
  std::string metric;
  Params where;
};

enum class HeadlinePick {
  Highest,     // a rate or bandwidth: the best record of any source is the chip's ceiling
  Lowest,      // a cost measured several ways: the cheapest is what the hardware allows
  Designated,  // one record defines the quantity (a latency level of the chase): the first found
};

struct HeadlineRule {
  std::string quantity;  // dotted id: "dram.read_bandwidth"
  std::string title;     // "DRAM read bandwidth"
  std::string group;     // the at-a-glance table's group: "memory", "compute", "tensor", "system"
  std::string unit;      // every candidate is converted to it (report/item_values.hpp unit_factor)
  HeadlinePick pick = HeadlinePick::Highest;
  std::vector<HeadlineSource> sources;
  std::string item;  // the seed item this headline answers ("": none)
};

struct Headline {
  const HeadlineRule* rule = nullptr;
  ItemValue value;          // value in the rule's unit, the winning record and its metric
  std::string shape;        // the winning record's params (a derived best record's best_point)
  int candidates = 0;       // records the rule compared
  std::vector<std::string> verdicts;  // what a reader must see beside the number; empty: clean
  // For a rate whose record states the peak at the clock it ran at (throughput/peak_tflops_at_clock):
  // the share of that peak (per-clock efficiency), and the share of the peak at the card's
  // application clock (what a rate per second is worth against the datasheet). NaN otherwise.
  double percent_of_peak_at_clock = NAN;
  double percent_of_peak_at_application = NAN;
  double clock_mhz = NAN;  // the clock of that peak: the record's, or its figure's (GEMM)
  // The clock was read right after a library's kernels, not in them: an upper bound on theirs,
  // so both shares are lower bounds (the report prints them with ≥).
  bool shares_are_lower_bounds = false;
  double application_mhz = 0;  // the run's application SM clock (core/clock_check.hpp); 0 unknown
};

// The suite's headline table, in the order the report shows it.
// Whether the record's params include every key and value of `where` (values compared as text).
bool record_has_params(const Record& r, const Params& where);

const std::vector<HeadlineRule>& headline_rules();

// The headline of one rule, nullopt when no ok record of any source carries the metric.
std::optional<Headline> resolve_headline(const RunDocument& doc, const HeadlineRule& rule);
// Every rule's headline that the run measured, in the rules' order.
std::vector<Headline> resolve_headlines(const RunDocument& doc,
                                        const std::vector<HeadlineRule>& rules = headline_rules());

// A record's verdicts: "sass <status>" unless verified or not applicable, "not converged",
// "throttled: <limiters>", and its flags (clock_below_application ...).
std::vector<std::string> record_verdicts(const Record& r);

// "memory.bandwidth.dram_shape op=write launch=oneshot width=16 block=256 per_thread=1".
std::string headline_source_label(const Headline& h);

// How often the two pipe methods of pipes.interference.* name the same pipe, over its derived
// rows (method=both). Strict: interference's top class owns every pipe ncu found busiest, the
// FP64/tensor shared pipe aside (it serves both), and at least one of them. Through a tie: not
// strict, but a class interference could not tell apart from its top one passes the same test.
// Undetermined rows (interference could not decide, or no counters) stay in the denominator.
struct PipeAgreement {
  int rows = 0, strict = 0, through_tie = 0, undetermined = 0;
  std::vector<std::string> misses;  // "pipes.interference.dadd: interference tensor, ncu fp64+shared"
};
PipeAgreement pipe_agreement(const RunDocument& doc);
bool pipe_class_strictly_matches(const std::string& interference_class, const std::vector<std::string>& busiest);

// Views: a Markdown table (quantity, value, unit, SM clock, record, verdicts) and a JSON array.
std::string headlines_markdown(const std::vector<Headline>& headlines);
nlohmann::json headlines_json(const std::vector<Headline>& headlines);

}  // namespace gd
