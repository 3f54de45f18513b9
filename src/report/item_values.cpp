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

static bool has_params(const Record& r, const Params& where) {
  return std::all_of(where.begin(), where.end(), [&](const auto& kv) {
    const ParamValue* v = find_param(r.params, kv.first);
    return v && to_string(*v) == to_string(kv.second);
  });
}

static const std::string kExtraPrefix = "extra.";

std::string ItemValue::display(int digits) const {
  if (!text.empty()) return text;
  if (!as_written.empty()) return as_written;
  return fmt_num(value, digits) + " " + unit;
}

std::optional<ItemValue> metric_value(const RunDocument& doc, const std::string& probe, const std::string& metric,
                                      const Params& where) {
  const bool from_extra = metric.rfind(kExtraPrefix, 0) == 0;
  for (const Record& r : doc.records) {
    if (r.status != Status::Ok || r.id != probe || !has_params(r, where)) continue;
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
    for (const SeedCover& c : p->covers) {
      if (out.count(c.item)) continue;
      if (auto v = metric_value(doc, p->id, c.metric, c.where)) {
        v->item = c.item;
        out.emplace(c.item, *v);
      }
    }
  // What the driver reports about the chip answers the seeds' platform items directly.
  struct DeviceItem {
    const char* item;
    const char* field;
    const char* unit;
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
  };
  if (doc.device.is_object())
    for (const DeviceItem& d : device_items) {
      const auto f = doc.device.find(d.field);
      if (f == doc.device.end() || !f->is_number() || f->get<double>() <= 0 || out.count(d.item)) continue;
      out.emplace(d.item, ItemValue{d.item, f->get<double>(), d.unit, "", nullptr, std::string("device.") + d.field, ""});
    }
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
