// The values a run gives for the seeds' items (data/coverage/seed-items.csv): a measured run
// through its probes' declarations (ProbeSpec::covers: which metric of which record answers an
// item), a reference dataset (data/reference/) directly, its records being named by item id.
// Coverage, the cross-generation table and the guide all read values through this one door.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/probe.hpp"
#include "core/run_file.hpp"

namespace gd {

struct ItemValue {
  std::string item;
  double value = 0;
  std::string unit;
  std::string as_written;   // a reference's figure as the seed writes it ("~4", "24-32"); "" for a run
  const Record* record = nullptr;  // null: the run's device description (the driver's properties)
  std::string metric;
  // A categorical answer ("which pipe"): a cover whose metric is "extra.<field>" reads the
  // record's extra field (a string) here; value and unit are then unused.
  std::string text;
  // The value as a reader sees it: the text, the figure as written, or the number and unit.
  std::string display(int digits = 4) const;
};

// True for a reference dataset (options.reference is set): the seeds' published values.
bool is_reference(const RunDocument& doc);
// The chip a document is about: the device name, "(reference)" appended for a reference dataset.
std::string chip_label(const RunDocument& doc);

// Item id -> value. For a run, an item with a headline rule (report/headlines.hpp) is its headline;
// any other, the first ok record of a covering probe whose params include the
// cover's `where` and that carries its metric, and the platform items the run's device
// description answers (SM count, L2 size, ... as the driver reported them at run time); for a
// reference, each record whose id is an item.
std::map<std::string, ItemValue> item_values(const RunDocument& doc, const std::vector<const ProbeSpec*>& probes);

// The platform items the run's device description answers (the driver's and NVML's properties
// at run time): SM count, L2 size, name, compute capability, driver version ... Their record is null.
std::vector<ItemValue> device_item_values(const nlohmann::json& device);

// Two pseudo-metrics a cover may name, answered from the record's SASS check (the opcodes the
// run verified in the kernels it launched): "sass", the opcodes ("IMAD.WIDE.U32, ... (sm_90a)":
// what a PTX construct lowers to, a table derived from our binary), and "ran", a feature the
// probe exercised on the chip ("yes: ran UTMALDG ... (sm_90a SASS checked)").
inline const std::string kSassMetric = "sass";
inline const std::string kRanMetric = "ran";
// A probe's covers: its own (ProbeSpec::covers) and those data/coverage/covers.csv declares
// for it (report/seed_items.hpp table_covers). The pointers stay valid for the program's life.
std::vector<const SeedCover*> covers_of(const ProbeSpec& p);

// The distinct opcodes a verified SASS check lists, in order ("" when it is not verified).
std::string checked_opcodes(const SassCheck& check);

// The value of one probe's metric on the first ok record whose params include `where`; a metric
// named "extra.<field>" is the record's extra field as text (ItemValue::text).
std::optional<ItemValue> metric_value(const RunDocument& doc, const std::string& probe, const std::string& metric,
                                      const Params& where = {});

// Multiply a value in `from` by this to get it in `to` (TB/s -> GB/s: 1000); nullopt when the
// units are not two spellings of one dimension this knows.
std::optional<double> unit_factor(const std::string& from, const std::string& to);

// "memory.latency.chase level=DRAM variant=cg": where a value came from, for links and notes.
std::string record_label(const Record& r);
// The HTML/Markdown anchor of a probe's section in the report ("#memory.latency.chase").
std::string record_anchor(const Record& r);
// The same for a value: its record's, or the device description's ("device.sm_count", "#device").
std::string value_label(const ItemValue& v);
std::string value_anchor(const ItemValue& v);

}  // namespace gd
