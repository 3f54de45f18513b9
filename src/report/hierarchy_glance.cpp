#include "report/hierarchy_glance.hpp"

#include <optional>
#include <string>
#include <vector>

#include "report/format.hpp"
#include "report/headlines.hpp"
#include "report/item_values.hpp"

namespace gd {
namespace {

constexpr const char* kNone = "-";

// One cell: a metric (or extra.<field>) of the first ok record of `probe` whose params include
// `where`, formatted by `show`; "-" when the run has none.
template <class Show>
std::string cell(const RunDocument& doc, const std::string& probe, const std::string& metric, const Params& where,
                 Show show) {
  const std::optional<ItemValue> v = metric_value(doc, "memory.hierarchy." + probe, metric, where);
  return v ? show(*v) : kNone;
}

std::string bytes(const ItemValue& v) { return format_bytes(v.value); }
std::string at_least_bytes(const ItemValue& v) { return "≥ " + format_bytes(v.value); }
std::string at_most_bytes(const ItemValue& v) { return "≤ " + format_bytes(v.value); }
std::string cycles(const ItemValue& v) { return fmt_num(v.value) + " cycles"; }
// A text answer; an undetermined one says so in a word (its reason is in the record and the docs).
std::string text(const ItemValue& v) { return v.text.rfind("undetermined", 0) == 0 ? "undetermined" : v.text; }
// The replacement hint's verdict without its reason.
std::string policy(const ItemValue& v) { return v.text.substr(0, v.text.find(':')); }

std::string headline(const RunDocument& doc, const std::string& quantity) {
  for (const HeadlineRule& rule : headline_rules())
    if (rule.quantity == quantity)
      if (const auto h = resolve_headline(doc, rule)) return fmt_num(h->value.value) + " " + h->value.unit;
  return kNone;
}

// The paths whose chains evicted this path's (memory.hierarchy.sharing verdicts).
std::string shared_with(const RunDocument& doc, const std::string& path) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"ca_nc", "nc"}, {"ca_tex", "tex"}, {"nc_tex", "tex"}};
  const auto name = [](const std::string& p) { return p == "ca" ? "L1" : p == "nc" ? "read-only" : "texture"; };
  std::string out;
  for (const auto& [pair, _] : pairs) {
    const std::string a = pair.substr(0, pair.find('_')), b = pair.substr(pair.find('_') + 1);
    if (a != path && b != path) continue;
    const auto v = metric_value(doc, "memory.hierarchy.sharing", "extra.verdict", {{"pair", pair}});
    if (v && v->text.rfind("shared", 0) == 0) out += std::string(out.empty() ? "" : ", ") + name(a == path ? b : a);
  }
  return out.empty() ? kNone : out;
}

}  // namespace

std::string hierarchy_glance_markdown(const RunDocument& doc) {
  bool any = false;
  for (const Record& r : doc.records) any = any || r.id.rfind("memory.hierarchy.", 0) == 0;
  if (!any) return "";
  MarkdownTable t;
  t.column("Level").column("Capacity").column("Line").column("Fetch").column("Ways").column("Replacement");
  t.column("Hit latency").column("Bandwidth").column("Shared with");
  const Params l1 = {{"carveout", std::int64_t(0)}, {"level", std::string("L1")}};
  t.row({"L1 data (ld.global)", cell(doc, "l1_carveout", "capacity/bytes", l1, bytes),
         cell(doc, "capacity", "extra.line_answer", {{"path", std::string("ca")}, {"quantity", std::string("line")}}, text),
         cell(doc, "fetch", "fetch/bytes", {{"path", std::string("ca")}}, bytes),
         cell(doc, "ways", "extra.ways_answer", {{"path", std::string("ca")}}, text),
         cell(doc, "l1_carveout", "extra.replacement_hint", l1, policy),
         cell(doc, "l1_carveout", "latency/below_cycles", l1, cycles), headline(doc, "l1.read_bandwidth"),
         shared_with(doc, "ca")});
  for (const std::string path : {"nc", "tex"}) {
    const Params at = {{"path", path}, {"stride", std::int64_t(128)}, {"level", std::string("L1")}};
    t.row({path == "nc" ? "Read-only (ld.global.nc)" : "Texture (tex1Dfetch)", cell(doc, "capacity", "capacity/bytes", at, bytes),
           cell(doc, "capacity", "extra.line_answer", {{"path", path}, {"quantity", std::string("line")}}, text),
           cell(doc, "fetch", "fetch/bytes", {{"path", path}}, bytes), kNone, kNone,
           cell(doc, "capacity", "latency/below_cycles", at, cycles), kNone, shared_with(doc, path)});
  }
  const Params segment = {{"stride", std::int64_t(128)}, {"level", std::string("L2.segment")}};
  t.row({"L2, one SM's segment (ld.global.cg)", cell(doc, "l2_capacity", "capacity/bytes", segment, bytes),
         cell(doc, "l2_capacity", "extra.line_answer", {{"level", std::string("L2.segment")}, {"quantity", std::string("line")}}, text),
         cell(doc, "fetch", "fetch/bytes", {{"path", std::string("cg")}}, bytes) + " from DRAM", kNone, kNone,
         cell(doc, "l2_capacity", "latency/below_cycles", segment, cycles), headline(doc, "l2.read_bandwidth"), "all SMs"});
  const Params cl1 = {{"stride", std::int64_t(64)}, {"level", std::string("constant.L1")}};
  const Params cl15 = {{"stride", std::int64_t(64)}, {"level", std::string("constant.L1.5")}};
  const Params cways = {{"path", std::string("const")}};
  t.row({"Constant L1 (LDC)", cell(doc, "const_capacity", "capacity/bytes", cl1, bytes),
         cell(doc, "ways", "ways/line_at_most_bytes", {{"path", std::string("const")}, {"quantity", std::string("line")}}, at_most_bytes),
         cell(doc, "fetch", "fetch/bytes", cways, bytes), cell(doc, "ways", "extra.ways_answer", cways, text),
         cell(doc, "ways", "extra.replacement_policy", cways, text), cell(doc, "const_capacity", "latency/below_cycles", cl1, cycles),
         kNone, kNone});
  t.row({"Constant L1.5", cell(doc, "const_capacity", "capacity/at_least_bytes", cl15, at_least_bytes), kNone,
         cell(doc, "fetch", "fetch/next_bytes", cways, bytes), kNone, kNone,
         cell(doc, "const_capacity", "latency/below_cycles", cl15, cycles), kNone,
         cell(doc, "const_l15_scope", "scope/sms_sharing", {}, [](const ItemValue& v) { return fmt_num(v.value) + " SMs"; })});
  const auto dram = metric_value(doc, "memory.latency.chase", "latency/cycles", {{"level", std::string("DRAM")}, {"variant", std::string("cg")}});
  t.row({"DRAM", format_bytes(double(doc.device.value("global_mem_bytes", 0LL))) + " (driver)", kNone, kNone, kNone, kNone,
         dram ? cycles(*dram) : kNone, headline(doc, "dram.read_bandwidth"), "all SMs"});
  return "## The memory hierarchy at a glance\n\n"
         "Measured, not assumed (`memory.hierarchy.*`, docs/memory-hierarchy.md): capacities are the last footprint "
         "still at a level's latency, lines and fetch granularities come from stride experiments, ways from conflict "
         "sweeps; bandwidths are the headlines. A dash: this run has no answer.\n\n" +
         t.render() + "\n";
}

}  // namespace gd
