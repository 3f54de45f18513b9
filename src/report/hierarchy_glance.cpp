#include "report/hierarchy_glance.hpp"

#include <string>
#include <vector>

#include "report/format.hpp"
#include "report/headlines.hpp"
#include "report/item_values.hpp"

namespace gd {
namespace {

using Show = std::string (*)(const ItemValue&);

std::string bytes(const ItemValue& v) { return format_bytes(v.value); }
std::string at_least_bytes(const ItemValue& v) { return "≥ " + format_bytes(v.value); }
std::string at_most_bytes(const ItemValue& v) { return "≤ " + format_bytes(v.value); }
// A capacity known to lie between the last footprint before a drop and the first past it.
std::string bytes_range(const ItemValue& v) {
  const Metric* upper = v.record ? v.record->metric("capacity/upper_bytes") : nullptr;
  return format_bytes(v.value) + (upper ? " to " + format_bytes(upper->value()) : "");
}
std::string cycles(const ItemValue& v) { return fmt_num(v.value) + " cycles"; }
std::string sms(const ItemValue& v) { return fmt_num(v.value) + " SMs"; }
// A text answer; an undetermined one says so in a word (its reason is in the record and the docs).
std::string text(const ItemValue& v) { return v.text.rfind("undetermined", 0) == 0 ? "undetermined" : v.text; }
// A replacement verdict without its reason.
std::string policy(const ItemValue& v) {
  std::string s = v.text.substr(0, v.text.find_first_of(":("));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::optional<CacheFact> fact_of(const ItemValue& v, Show show) {
  CacheFact f{show(v), std::nullopt, v.unit, v.record ? record_label(*v.record) : ""};
  if (v.text.empty()) f.value = v.value;
  return f;
}

// A metric (or extra.<field>) of the first ok record of memory.hierarchy.<probe> whose params
// include `where`.
std::optional<CacheFact> fact(const RunDocument& doc, const std::string& probe, const std::string& metric,
                              const Params& where, Show show) {
  const std::optional<ItemValue> v = metric_value(doc, "memory.hierarchy." + probe, metric, where);
  return v ? fact_of(*v, show) : std::nullopt;
}

std::optional<CacheFact> headline(const RunDocument& doc, const std::string& quantity) {
  for (const HeadlineRule& rule : headline_rules())
    if (rule.quantity == quantity)
      if (const auto h = resolve_headline(doc, rule))
        return CacheFact{fmt_num(h->value.value) + " " + h->value.unit, h->value.value, h->value.unit,
                         headline_source_label(*h)};
  return std::nullopt;
}

// The paths whose chains evicted this path's (memory.hierarchy.sharing verdicts).
std::optional<CacheFact> shared_with(const RunDocument& doc, const std::string& path) {
  const auto name = [](const std::string& p) { return p == "ca" ? "L1" : p == "nc" ? "read-only" : "texture"; };
  std::string out, records;
  for (const std::string pair : {"ca_nc", "ca_tex", "nc_tex"}) {
    const std::string a = pair.substr(0, pair.find('_')), b = pair.substr(pair.find('_') + 1);
    if (a != path && b != path) continue;
    const auto v = metric_value(doc, "memory.hierarchy.sharing", "extra.verdict", {{"pair", pair}});
    if (!v || v->text.rfind("shared", 0) != 0) continue;
    out += std::string(out.empty() ? "" : ", ") + name(a == path ? b : a);
    records += std::string(records.empty() ? "" : "; ") + record_label(*v->record);
  }
  if (out.empty()) return std::nullopt;
  return CacheFact{out, std::nullopt, "", records};
}

// The L1's ways: from the eviction-set search (its first target), which works under the hashed
// set index; the distance sweep's answer where a run has no search.
std::optional<CacheFact> l1_ways(const RunDocument& doc) {
  if (auto f = fact(doc, "l1_eviction_set", "extra.ways_answer", {}, text)) return f;
  return fact(doc, "ways", "extra.ways_answer", {{"path", std::string("ca")}}, text);
}

Params p(std::initializer_list<std::pair<const char*, ParamValue>> kv);

// A path's line: the texture's from its own slot sweep (memory.hierarchy.texture_line, slots to
// 2 KiB: its knee holds through the capacity sweep's 512 B), else the capacity sweep's answer.
std::optional<CacheFact> path_line(const RunDocument& doc, const std::string& path) {
  const std::string line = "line";
  if (path == "tex")
    if (auto f = fact(doc, "texture_line", "extra.line_answer", p({{"level", std::string("texture")}, {"quantity", line}}), text))
      return f;
  return fact(doc, "capacity", "extra.line_answer", p({{"path", path}, {"quantity", line}}), text);
}

Params p(std::initializer_list<std::pair<const char*, ParamValue>> kv) {
  Params out;
  for (const auto& [k, v] : kv) out.push_back({k, v});
  return out;
}

}  // namespace

std::vector<CacheLevelFacts> hierarchy_facts(const RunDocument& doc) {
  bool any = false;
  for (const Record& r : doc.records) any = any || r.id.rfind("memory.hierarchy.", 0) == 0;
  if (!any) return {};
  std::vector<CacheLevelFacts> out;
  const std::string ca = "ca", nc = "nc", tex = "tex", konst = "const", line = "line";
  const Params l1 = p({{"carveout", std::int64_t(0)}, {"level", std::string("L1")}});
  out.push_back({"l1", "L1 data (ld.global)", fact(doc, "l1_carveout", "capacity/bytes", l1, bytes),
                 fact(doc, "capacity", "extra.line_answer", p({{"path", ca}, {"quantity", line}}), text),
                 fact(doc, "fetch", "fetch/bytes", p({{"path", ca}}), bytes),
                 l1_ways(doc), fact(doc, "l1_eviction_set", "extra.replacement_policy", {}, policy),
                 fact(doc, "l1_carveout", "latency/below_cycles", l1, cycles), headline(doc, "l1.read_bandwidth"),
                 shared_with(doc, ca)});
  for (const std::string& path : {nc, tex}) {
    const Params at = p({{"path", path}, {"stride", std::int64_t(128)}, {"level", std::string("L1")}});
    out.push_back({path == nc ? "readonly" : "texture", path == nc ? "Read-only (ld.global.nc)" : "Texture (tex1Dfetch)",
                   fact(doc, "capacity", "capacity/bytes", at, bytes),
                   path_line(doc, path), fact(doc, "fetch", "fetch/bytes", p({{"path", path}}), bytes), std::nullopt, std::nullopt,
                   fact(doc, "capacity", "latency/below_cycles", at, cycles), std::nullopt, shared_with(doc, path)});
  }
  // The whole L2: where the latency steps with every SM chasing its own lines at once
  // (memory.hierarchy.l2_all_sms); a run without it, where every SM's read bandwidth drops
  // (memory.bandwidth.l2_sweep's analysis).
  const Params whole = p({{"level", std::string("L2")}, {"quantity", std::string("capacity")}});
  const Params whole_step = p({{"level", std::string("L2")}});
  if (const auto chased = metric_value(doc, "memory.hierarchy.l2_all_sms", "capacity/bytes", whole))
    out.push_back({"l2", "L2, the whole chip (every SM chasing its own lines)", fact_of(*chased, bytes_range), std::nullopt,
                   std::nullopt, std::nullopt, std::nullopt, fact(doc, "l2_all_sms", "latency/below_cycles", whole_step, cycles),
                   headline(doc, "l2.read_bandwidth"), CacheFact{"all SMs", std::nullopt, "", ""}});
  else if (const auto streamed = metric_value(doc, "memory.bandwidth.l2_sweep", "capacity/bytes", whole))
    out.push_back({"l2", "L2, the whole chip (all SMs streaming)", fact_of(*streamed, bytes_range), std::nullopt, std::nullopt,
                   std::nullopt, std::nullopt, std::nullopt, headline(doc, "l2.read_bandwidth"), CacheFact{"all SMs", std::nullopt, "", ""}});
  const Params segment = p({{"stride", std::int64_t(128)}, {"level", std::string("L2.segment")}});
  auto l2_fetch = fact(doc, "fetch", "fetch/bytes", p({{"path", std::string("cg")}}), bytes);
  if (l2_fetch) l2_fetch->shown += " from DRAM";
  out.push_back({"l2_segment", "L2, one SM's segment (ld.global.cg)", fact(doc, "l2_capacity", "capacity/bytes", segment, bytes),
                 fact(doc, "l2_capacity", "extra.line_answer", p({{"level", std::string("L2.segment")}, {"quantity", line}}), text),
                 l2_fetch, std::nullopt, std::nullopt, fact(doc, "l2_capacity", "latency/below_cycles", segment, cycles),
                 headline(doc, "l2.read_bandwidth"), CacheFact{"all SMs", std::nullopt, "", ""}});
  const Params cl1 = p({{"stride", std::int64_t(64)}, {"level", std::string("constant.L1")}});
  const Params cl15 = p({{"stride", std::int64_t(64)}, {"level", std::string("constant.L1.5")}});
  const Params cways = p({{"path", konst}});
  out.push_back({"constant_l1", "Constant L1 (LDC)", fact(doc, "const_capacity", "capacity/bytes", cl1, bytes),
                 fact(doc, "ways", "ways/line_at_most_bytes", p({{"path", konst}, {"quantity", line}}), at_most_bytes),
                 fact(doc, "fetch", "fetch/bytes", cways, bytes), fact(doc, "ways", "extra.ways_answer", cways, text),
                 fact(doc, "ways", "extra.replacement_policy", cways, text),
                 fact(doc, "const_capacity", "latency/below_cycles", cl1, cycles), std::nullopt, std::nullopt});
  // Its capacity and line where several modules' banks were walked at once from one GPC
  // (const_l15_capacity); else the lower bound one 64 KiB bank gives. The last footprint at hit
  // latency alone: at 64 B slots the rise past it is gradual (four slots share a 256 B fetch), so
  // the step's upper end lies far past the next point, which is already slower.
  auto l15_size = fact(doc, "const_l15_capacity", "capacity/bytes", cl15, bytes);
  if (!l15_size) l15_size = fact(doc, "const_capacity", "capacity/at_least_bytes", cl15, at_least_bytes);
  out.push_back({"constant_l15", "Constant L1.5", l15_size,
                 fact(doc, "const_l15_capacity", "extra.line_answer",
                      p({{"level", std::string("constant.L1.5")}, {"quantity", line}}), text),
                 fact(doc, "fetch", "fetch/next_bytes", cways, bytes), std::nullopt, std::nullopt,
                 fact(doc, "const_capacity", "latency/below_cycles", cl15, cycles), std::nullopt,
                 fact(doc, "const_l15_scope", "scope/sms_sharing", {}, sms)});
  std::optional<CacheFact> dram_size;
  if (const double b = doc.device.value("global_mem_bytes", 0.0); b > 0)
    dram_size = CacheFact{format_bytes(b) + " (driver)", b, "bytes", ""};
  const auto dram = metric_value(doc, "memory.latency.chase", "latency/cycles", p({{"level", std::string("DRAM")}, {"variant", std::string("cg")}}));
  out.push_back({"dram", "DRAM", dram_size, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                 dram ? fact_of(*dram, cycles) : std::nullopt, headline(doc, "dram.read_bandwidth"),
                 CacheFact{"all SMs", std::nullopt, "", ""}});
  return out;
}

std::string hierarchy_glance_markdown(const RunDocument& doc) {
  const std::vector<CacheLevelFacts> levels = hierarchy_facts(doc);
  if (levels.empty()) return "";
  MarkdownTable t;
  t.column("Level").column("Capacity").column("Line").column("Fetch").column("Ways").column("Replacement");
  t.column("Hit latency").column("Bandwidth").column("Shared with");
  const auto show = [](const std::optional<CacheFact>& f) { return f ? f->shown : std::string("-"); };
  for (const CacheLevelFacts& l : levels)
    t.row({l.name, show(l.capacity), show(l.line), show(l.fetch), show(l.ways), show(l.replacement), show(l.latency),
           show(l.bandwidth), show(l.shared_with)});
  return "## The memory hierarchy at a glance\n\n"
         "Measured, not assumed (`memory.hierarchy.*`, docs/memory-hierarchy.md): capacities are the last footprint "
         "still at a level's latency, lines and fetch granularities come from stride experiments, ways from conflict "
         "sweeps; bandwidths are the headlines. A dash: this run has no answer.\n\n" +
         t.render() + "\n";
}

}  // namespace gd
