// The seeds' measurement items (data/coverage/seed-items.csv, compiled in), the rules that make
// an item not applicable to a chip (data/coverage/not-applicable.csv), the metrics that are the
// driver's answer rather than a measurement (data/coverage/reported-values.csv) and the items that
// are curves (data/coverage/curve-items.csv): the checklist that
// `coverage` measures the suite against and the quantities `compare` lines up across chips.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace gd {

struct SeedItem {
  std::string id;          // "memory.l2.near_latency"; repeats once per chip a seed gives a value for
  std::string category;    // the id's first segment
  std::string item;        // the seed's wording of the quantity and its condition
  std::string unit;
  std::string seed_value;  // as written ("~4", "24-32", "yes"); empty when the seed gives no number
  std::string arch;        // the chip the value is for: sm_120, sm_100, sm_90, ...
  std::string source;      // seed file
  std::string section;     // the seed's heading, figure or table
};

struct NotApplicableRule {
  std::string item_prefix;
  int min_cc = 0, max_cc = 0;  // the chips the item exists on (0: unbounded)
  int min_gpus = 1;
  std::string reason;
};

// A metric a probe records as the driver answers it (cudaOccupancyMaxPotentialClusterSize ...):
// an item it answers is reported, not measured.
struct ReportedValueRule {
  std::string probe;
  std::string metric;
  std::string source;  // the call or property the value comes from
};

// A cover declared as data (data/coverage/covers.csv) rather than in a probe's code: for probes
// whose variants come from shared tables (the ALU catalog, the mma.sync rows), where a line of
// code would rebuild every variant's heavy unit, and for the answers of the run's SASS check
// (metric "sass": what a construct lowers to; "ran": a feature the record exercised). `where` is
// "key=value;key=value" (params, compared as text).
struct TableCover {
  std::string item, probe, metric;
  std::vector<std::pair<std::string, std::string>> where;
};

// RFC 4180 CSV (quoted fields with commas, doubled quotes, newlines); the first row is the header.
// Throws std::invalid_argument on an unterminated quote or a row whose width differs from the header's.
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

const std::vector<SeedItem>& seed_items();               // every row, in file order
std::vector<std::string> seed_item_ids();                // distinct ids, in file order
bool is_seed_item(const std::string& id);
const std::vector<NotApplicableRule>& not_applicable_rules();
// Why `id` cannot be measured on a chip of this compute capability with this many GPUs; nullopt
// when it can.
std::optional<std::string> not_applicable_reason(const std::string& id, int cc, int gpus);
const std::vector<ReportedValueRule>& reported_value_rules();
// Where the driver answered `probe`'s `metric` (a rule for probe "*" holds for every probe);
// nullopt for a measured metric.
std::optional<std::string> reported_value_source(const std::string& probe, const std::string& metric);
// Throws std::invalid_argument for a row without item, probe or metric, or whose `where` is not
// key=value pairs.
const std::vector<TableCover>& table_covers();
// For an item about a curve (power vs active SMs, bandwidth vs bytes in flight), the axis it runs
// over: only a derived record (the curve's knee, best or fit) answers it, never one of its points.
std::optional<std::string> curve_axis(const std::string& id);

// The first number in a seed value ("~4.22" -> 4.22; "24-32" -> 28, the middle of a range;
// "≥32" -> 32); nullopt for text ("yes", "1:39", empty).
std::optional<double> seed_number(const std::string& seed_value);

}  // namespace gd
