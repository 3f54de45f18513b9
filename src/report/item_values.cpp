#include "report/item_values.hpp"

#include <algorithm>

#include "report/format.hpp"
#include "report/headlines.hpp"
#include "report/seed_items.hpp"

namespace gd {

bool is_reference(const RunDocument& doc) { return doc.options.is_object() && doc.options.contains("reference"); }

std::string chip_label(const RunDocument& doc) {
  std::string name = doc.device.is_object() ? doc.device.value("name", std::string("unknown GPU")) : "unknown GPU";
  return is_reference(doc) ? name + " (reference)" : name;
}

static const std::string kExtraPrefix = "extra.";

std::string ItemValue::display(int digits) const {
  if (!text.empty()) return text;
  if (!as_written.empty()) return as_written;
  return fmt_num(value, digits) + " " + unit;
}

std::vector<const SeedCover*> covers_of(const ProbeSpec& p) {
  // The table's rows as SeedCovers, built once: their addresses are handed out.
  static const std::vector<std::pair<std::string, SeedCover>> from_table = [] {
    std::vector<std::pair<std::string, SeedCover>> out;
    for (const TableCover& t : table_covers()) {
      Params where;
      for (const auto& [k, v] : t.where) where.emplace_back(k, v);
      out.emplace_back(t.probe, SeedCover{t.item, t.metric, where});
    }
    return out;
  }();
  std::vector<const SeedCover*> out;
  for (const SeedCover& c : p.covers) out.push_back(&c);
  for (const auto& [probe, c] : from_table)
    if (probe == p.id) out.push_back(&c);
  return out;
}

std::string checked_opcodes(const SassCheck& check) {
  if (check.status != SassStatus::Verified) return "";
  const std::string& d = check.detail;
  const std::string mark = " launched and checked: ";
  const auto at = d.find(mark);
  if (at == std::string::npos) return "";
  std::vector<std::string> ops;
  // "<arch>, N kernel(s) launched and checked: <kernel>: OP xN, OP xN; <kernel>: ..."
  for (std::size_t from = at + mark.size(); from < d.size();) {
    std::size_t end = d.find("; ", from);
    if (end == std::string::npos) end = d.size();
    const std::string kernel = d.substr(from, end - from);
    const auto colon = kernel.rfind(": ");
    for (std::size_t op = colon == std::string::npos ? kernel.size() : colon + 2; op < kernel.size();) {
      std::size_t next = kernel.find(", ", op);
      if (next == std::string::npos) next = kernel.size();
      std::string name = kernel.substr(op, next - op);
      name = name.substr(0, name.rfind(" x"));
      if (!name.empty() && std::find(ops.begin(), ops.end(), name) == ops.end()) ops.push_back(name);
      op = next + 2;
    }
    from = end + 2;
  }
  std::string out;
  for (const std::string& op : ops) out += (out.empty() ? "" : ", ") + op;
  return out;
}

std::optional<ItemValue> metric_value(const RunDocument& doc, const std::string& probe, const std::string& metric,
                                      const Params& where) {
  const bool from_extra = metric.rfind(kExtraPrefix, 0) == 0;
  for (const Record& r : doc.records) {
    if (r.status != Status::Ok || r.id != probe || !record_has_params(r, where)) continue;
    if (metric == kSassMetric || metric == kRanMetric) {
      const std::string ops = checked_opcodes(r.sass);
      if (ops.empty()) continue;
      ItemValue v{"", 0, "", "", &r, metric, ""};
      const std::string arch = r.sass.detail.substr(0, r.sass.detail.find(','));
      v.text = metric == kRanMetric ? "yes: ran " + ops + " on the chip (" + arch + " SASS checked)" : ops + " (" + arch + ")";
      return v;
    }
    if (from_extra) {
      const auto f = r.extra.find(metric.substr(kExtraPrefix.size()));
      if (f != r.extra.end() && f->is_string() && !f->get<std::string>().empty()) {
        ItemValue v{"", 0, "", "", &r, metric, ""};
        v.text = f->get<std::string>();
        return v;
      }
    } else if (const Metric* m = r.metric(metric)) {
      return ItemValue{"", m->value(), m->unit, "", &r, metric, ""};
    }
  }
  return std::nullopt;
}

// The device description's field at a dotted path ("nvml.power_limit_w"), or null.
static const nlohmann::json* device_field(const nlohmann::json& device, const std::string& path) {
  const nlohmann::json* at = &device;
  for (std::size_t from = 0; from <= path.size();) {
    const std::size_t dot = std::min(path.find('.', from), path.size());
    if (!at->is_object()) return nullptr;
    const auto f = at->find(path.substr(from, dot - from));
    if (f == at->end()) return nullptr;
    at = &*f;
    from = dot + 1;
  }
  return at;
}

std::vector<ItemValue> device_item_values(const nlohmann::json& device) {
  // What the driver (CUDA runtime or NVML) reports about the chip answers the seeds' platform
  // items directly: a number in its unit, or a text ("580.159.04").
  struct DeviceItem {
    const char* item;
    const char* field;
    const char* unit;  // "" for a text answer
  };
  static const DeviceItem device_items[] = {
      {"platform.sm_count", "sm_count", "count"},
      {"memory.l2.capacity", "l2_bytes", "bytes"},
      {"scheduler.max_warps_per_sm", "max_warps_per_sm", "warps"},
      {"platform.dram.bus_width", "memory_bus_width_bits", "bits"},
      {"memory.dram.bandwidth_theoretical", "theoretical_dram_gbps", "GB/s"},
      {"smem.capacity_per_sm", "shared_per_sm", "bytes"},
      {"smem.max_per_block", "shared_per_block_optin", "bytes"},
      {"platform.registers.per_sm", "regs_per_sm", "count"},
      {"platform.device.name", "name", ""},
      {"platform.dram.capacity", "global_mem_bytes", "bytes"},
      // NVML's memory clock is the figure nvidia-smi prints and the studies quote as the data rate.
      {"platform.dram.data_rate", "nvml.max_mem_clock_mhz", "MHz"},
      {"platform.power_limit", "nvml.power_limit_w", "W"},
      {"platform.env.driver", "nvml.driver_version", ""},
  };
  std::vector<ItemValue> out;
  if (!device.is_object()) return out;
  auto add = [&](const char* item, const std::string& field, double value, const char* unit, std::string text) {
    ItemValue v{item, value, unit, "", nullptr, "device." + field, ""};
    v.text = std::move(text);
    out.push_back(std::move(v));
  };
  for (const DeviceItem& d : device_items) {
    const nlohmann::json* f = device_field(device, d.field);
    if (!f) continue;
    if (*d.unit && f->is_number() && f->get<double>() > 0) add(d.item, d.field, f->get<double>(), d.unit, "");
    if (!*d.unit && f->is_string() && !f->get<std::string>().empty()) add(d.item, d.field, 0, "", f->get<std::string>());
  }
  if (device.value("cc_major", 0) > 0)
    add("platform.device.compute_capability", "cc_major", 0, "",
        std::to_string(device.value("cc_major", 0)) + "." + std::to_string(device.value("cc_minor", 0)));
  // The CUDA runtime the run used (the driver supports it; the build's toolkit is the tool's).
  if (const int rt = device.value("runtime_version", 0); rt > 0)
    add("platform.env.cuda", "runtime_version", 0, "",
        "CUDA runtime " + std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10));
  return out;
}

// The method's precision as the run measured it: the widest half-range (max - min) / 2 of one
// metric over the repetitions of every ok, non-derived record whose id starts with `prefix`,
// in the metric's unit or, with `relative`, in % of the record's value. The record is the worst.
static std::optional<ItemValue> worst_spread(const RunDocument& doc, const std::string& item, const std::string& prefix,
                                             const std::string& metric, bool relative) {
  std::optional<ItemValue> worst;
  int records = 0;
  for (const Record& r : doc.records) {
    if (r.status != Status::Ok || r.derived || r.id.rfind(prefix, 0) != 0) continue;
    const Metric* m = r.metric(metric);
    if (!m || m->stats.n < 2 || !(m->value() > 0)) continue;
    ++records;
    const double half = (m->stats.max - m->stats.min) / 2;
    const double spread = relative ? 100 * half / m->value() : half;
    if (!worst || spread > worst->value) worst = ItemValue{item, spread, relative ? "%" : m->unit, "", &r, metric, ""};
  }
  if (worst)
    worst->text = "±" + fmt_num(worst->value, 2) + " " + worst->unit + " (the widest half-range of " +
                  std::to_string(records) + " repeated " + prefix + "* records' " + metric + ")";
  return worst;
}

std::map<std::string, ItemValue> item_values(const RunDocument& doc, const std::vector<const ProbeSpec*>& probes) {
  std::map<std::string, ItemValue> out;
  if (is_reference(doc)) {
    for (const Record& r : doc.records) {
      if (r.status != Status::Ok || r.metrics.empty()) continue;
      const Metric& m = r.metrics.front();
      const std::string written = r.extra.contains("reference") ? r.extra["reference"].value("as_written", "") : "";
      out.emplace(r.id, ItemValue{r.id, m.value(), m.unit, written, &r, m.name, ""});
    }
    return out;
  }
  // A quantity with a headline rule is answered by its headline (the best of every record that
  // measures it), so coverage, the guide and the report's summary say the same number.
  for (const HeadlineRule& rule : headline_rules())
    if (!rule.item.empty())
      if (auto h = resolve_headline(doc, rule)) out.emplace(rule.item, h->value);
  for (const ProbeSpec* p : probes)
    for (const SeedCover* c : covers_of(*p)) {
      if (out.count(c->item)) continue;
      if (auto v = metric_value(doc, p->id, c->metric, c->where)) {
        v->item = c->item;
        out.emplace(c->item, *v);
      }
    }
  if (auto v = worst_spread(doc, "platform.method.chain_latency_precision", "latency.alu.", "latency/cycles", false))
    out.emplace(v->item, *v);
  if (auto v = worst_spread(doc, "platform.method.ilp_throughput_precision", "compute.alu.", "throughput/per_clk_per_sm", true))
    out.emplace(v->item, *v);
  for (ItemValue& v : device_item_values(doc.device))
    if (!out.count(v.item)) out.emplace(v.item, std::move(v));
  return out;
}

std::optional<double> unit_factor(const std::string& from, const std::string& to) {
  if (from == to) return 1.0;
  // Each unit as a multiple of its dimension's base unit.
  struct U {
    const char* name;
    const char* dim;
    double scale;
  };
  static const U units[] = {
      {"TB/s", "bw", 1e12},       {"GB/s", "bw", 1e9},        {"bytes", "size", 1},       {"B", "size", 1},
      {"KiB", "size", 1024.0},    {"KB", "size", 1024.0},     {"MiB", "size", 1048576.0}, {"MB", "size", 1048576.0},
      {"ns", "time", 1e-9},       {"us", "time", 1e-6},       {"cycles", "clk", 1},       {"cyc", "clk", 1},
      {"FMA/clk/SM", "ipc", 1.0 / 32}, {"inst/cyc/SM", "ipc", 1}, {"TFLOPS", "flops", 1e12}, {"GFLOPS", "flops", 1e9},
      {"GB", "size", 1e9},        {"GiB", "size", 1073741824.0},
      {"MHz", "freq", 1e6},       {"GHz", "freq", 1e9},       {"%", "pct", 1},            {"W", "power", 1}};
  const U* a = nullptr;
  const U* b = nullptr;
  for (const U& u : units) {
    if (from == u.name) a = &u;
    if (to == u.name) b = &u;
  }
  if (!a || !b || std::string(a->dim) != b->dim) return std::nullopt;
  return a->scale / b->scale;
}

std::string record_label(const Record& r) {
  const std::string p = to_string(r.params);
  return r.id + (p.empty() ? "" : " " + p);
}

std::string record_anchor(const Record& r) { return "#" + r.id; }

std::string value_label(const ItemValue& v) {
  return v.record ? record_label(*v.record) : v.metric + " (the driver's device description)";
}

std::string value_anchor(const ItemValue& v) { return v.record ? record_anchor(*v.record) : "#device"; }

}  // namespace gd
