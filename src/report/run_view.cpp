#include "report/run_view.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "core/json_fields.hpp"
#include "core/registry.hpp"
#include "report/format.hpp"
#include "report/timing.hpp"

namespace gd {

using nlohmann::json;

namespace {

const std::string kUnknown = "unknown";

using json_fields::nonempty_string;
using json_fields::positive_number;
const auto& field = json_fields::present;
const auto& positive = positive_number;
const auto& text = nonempty_string;

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string or_unknown(const std::vector<std::string>& parts) { return parts.empty() ? kUnknown : join(parts, ", "); }

std::string code_span(const std::string& s) {
  std::string out = "`";
  out += markdown_escape(s);
  out += '`';
  return out;
}

std::string mhz(double v) { return fmt_num(v) + " MHz"; }

std::string compute_capability(const json& d) {
  const json* major = field(d, "cc_major");
  const json* minor = field(d, "cc_minor");
  if (!major || !minor || !major->is_number_integer() || !minor->is_number_integer()) return kUnknown;
  std::string s = std::to_string(major->get<int>()) + "." + std::to_string(minor->get<int>());
  if (auto code = text(d, "arch_code_loaded")) s += " (running " + *code + " code)";
  return s;
}

std::string sm_clock(const json& d) {
  std::vector<std::string> parts;
  if (auto v = positive(d, "max_sm_clock_mhz")) parts.push_back("max " + mhz(*v));
  const json* nvml = field(d, "nvml");
  if (nvml) {
    if (auto v = positive(*nvml, "sm_clock_mhz")) parts.push_back(mhz(*v) + " at start (NVML)");
    if (auto v = positive(*nvml, "max_sm_clock_mhz")) parts.push_back("NVML max " + mhz(*v));
  }
  return or_unknown(parts);
}

std::string memory(const json& d) {
  std::vector<std::string> parts;
  if (auto v = positive(d, "global_mem_bytes")) parts.push_back(format_bytes(*v));
  if (auto v = positive(d, "memory_bus_width_bits")) parts.push_back(fmt_num(*v) + "-bit bus");
  if (auto v = positive(d, "max_mem_clock_mhz")) parts.push_back("max " + mhz(*v));
  // In TB/s, the unit the bandwidth probes report, so the two read side by side.
  if (auto v = positive(d, "theoretical_dram_gbps")) parts.push_back(fmt_num(*v / 1e3) + " TB/s theoretical");
  return or_unknown(parts);
}

std::string driver_runtime(const json& d) {
  std::vector<std::string> parts;
  const json* nvml = field(d, "nvml");
  std::string driver;
  if (nvml)
    if (auto v = text(*nvml, "driver_version")) driver = *v;
  if (auto v = positive(d, "driver_version"))
    driver += (driver.empty() ? "CUDA " : " (CUDA ") + cuda_version_string(static_cast<long long>(*v)) +
              (driver.empty() ? "" : ")");
  if (!driver.empty()) parts.push_back("driver " + driver);
  if (auto v = positive(d, "runtime_version")) parts.push_back("runtime CUDA " + cuda_version_string(static_cast<long long>(*v)));
  return or_unknown(parts);
}

std::string nvml_state(const json& d) {
  const json* nvml = field(d, "nvml");
  if (!nvml) return "unavailable" + (text(d, "nvml_status") ? ": " + *text(d, "nvml_status") : std::string());
  std::vector<std::string> parts;
  if (auto v = positive(*nvml, "power_w")) {
    std::string p = fmt_num(*v) + " W";
    if (auto limit = positive(*nvml, "power_limit_w")) p += " of " + fmt_num(*limit) + " W limit";
    parts.push_back(p);
  }
  if (auto v = positive(*nvml, "temperature_c")) parts.push_back(fmt_num(*v) + " °C");
  if (auto v = positive(*nvml, "mem_clock_mhz")) parts.push_back("memory " + mhz(*v));
  return parts.empty() ? "ok" : "at start: " + join(parts, ", ");
}

std::string ecc(const json& d) {
  const json* v = field(d, "ecc_enabled");
  if (!v || !v->is_boolean()) return kUnknown;
  return v->get<bool>() ? "on" : "off";
}

std::string pcie_link(const json& nvml, const char* gen_key, const char* width_key) {
  auto gen = positive(nvml, gen_key);
  auto width = positive(nvml, width_key);
  if (!gen || !width) return "";
  return "Gen" + fmt_num(*gen) + " x" + fmt_num(*width);
}

std::string pcie(const json& d) {
  const json* nvml = field(d, "nvml");
  if (!nvml) return kUnknown;
  const std::string now = pcie_link(*nvml, "pcie_gen", "pcie_width");
  const std::string max = pcie_link(*nvml, "pcie_max_gen", "pcie_max_width");
  if (now.empty()) return kUnknown;
  return max.empty() || max == now ? now : now + " (max " + max + ")";
}

std::string features(const json& d) {
  const json* f = field(d, "features");
  if (!f || !f->is_array()) return kUnknown;
  std::vector<std::string> names;
  for (const json& x : *f)
    if (x.is_string()) names.push_back(x.get<std::string>());
  return names.empty() ? "none" : join(names, ", ");
}

}  // namespace

std::string cuda_version_string(long long version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string device_name(const json& device) { return text(device, "name").value_or("unknown GPU"); }

std::vector<Fact> device_facts(const json& d) {
  std::vector<Fact> facts = {
      {"GPU", device_name(d)},
      {"UUID", text(d, "uuid").value_or(kUnknown)},
      {"Compute capability", compute_capability(d)},
      {"SMs", positive(d, "sm_count") ? fmt_num(*positive(d, "sm_count")) : kUnknown},
      {"SM clock", sm_clock(d)},
      {"Memory", memory(d)},
      {"L2", positive(d, "l2_bytes") ? format_bytes(*positive(d, "l2_bytes")) : kUnknown},
      {"Driver / runtime", driver_runtime(d)},
      {"NVML", nvml_state(d)},
      {"ECC", ecc(d)},
      {"PCIe", pcie(d)},
      {"Features", features(d)},
  };
  for (Fact& f : facts) f.value = markdown_escape(f.value);
  return facts;
}

// Older runs (and killed ones) have no timing: say so rather than show nothing.
static std::string timing_fact(const nlohmann::json& timing) {
  const ProbeWalls walls = walls_from_timing(timing);
  const auto total = timing.is_object() ? timing.find("wall_s") : timing.end();
  if (walls.empty() || total == timing.end() || !total->is_number()) return "not recorded";
  return markdown_escape(slowest_line(walls, total->get<double>()));
}

std::vector<Fact> run_facts(const RunDocument& doc) {
  std::string tool = "gpudissect " + doc.tool_version;
  if (!doc.git_revision.empty()) tool += " (git " + doc.git_revision + ")";
  return {
      {"Tool", markdown_escape(tool)},
      {"Run id", markdown_escape(doc.run_id)},
      {"Started", markdown_escape(doc.started_at)},
      {"Finished", doc.finished_at.empty() ? "not finished" : markdown_escape(doc.finished_at)},
      {"State", doc.complete ? "complete" : "**INTERRUPTED** (the run did not finish)"},
      {"Options", code_span(doc.options.dump())},
      {"Wall time", timing_fact(doc.timing)},
  };
}

std::string sass_flag(SassStatus s) {
  switch (s) {
    case SassStatus::Verified: return "verified";
    case SassStatus::Mismatch: return "**MISMATCH** ⚠";
    case SassStatus::Unverified: return "**unverified** ⚠";
    case SassStatus::NotApplicable: return "n/a";
  }
  return "";
}

std::string throttle_text(const Record& r) {
  const auto by = throttled_by(r);
  if (!by) return "unknown";
  return join(*by, ", ");
}

std::string throttle_cell(const Record& r) {
  const auto by = throttled_by(r);
  if (!by || by->empty()) return "";
  return "**" + join(*by, ", ") + "** ⚠";
}

std::string convergence_cell(const Convergence& c) {
  if (!c.recorded) return "";
  if (c.converged) return "n=" + std::to_string(c.n);
  return "**" + markdown_escape(c.stop_reason) + "** n=" + std::to_string(c.n) + " ⚠";
}

std::string clock_cell(const Record& r) {
  if (r.sm_clock_mhz <= 0) return r.sm_clock_source == ClockSource::None && !r.sm_clock_detail.empty() ? "none" : "";
  switch (r.sm_clock_source) {
    case ClockSource::InKernel: return fmt_num(r.sm_clock_mhz);
    case ClockSource::FromPoints: return fmt_num(r.sm_clock_mhz) + " (pts)";
    case ClockSource::None: break;
  }
  return fmt_num(r.sm_clock_mhz) + " (?)";
}

std::vector<ProbeRecords> group_by_probe(const std::vector<const Record*>& records) {
  std::vector<ProbeRecords> groups;
  std::map<std::string, std::size_t> index;
  for (const Record* r : records) {
    auto [it, added] = index.try_emplace(r->id, groups.size());
    if (added) groups.push_back({r->id, r->category, {}});
    groups[it->second].records.push_back(r);
  }
  return groups;
}

std::vector<std::string> param_names(const std::vector<const Record*>& records) {
  std::vector<std::string> names;
  for (const Record* r : records)
    for (const auto& [name, value] : r->params)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  if (records.empty()) return names;
  const ProbeSpec* probe = Registry::global().find(records.front()->id);
  if (!probe) return names;
  const auto rank = [&](const std::string& name) {
    const auto at = std::find_if(probe->axes.begin(), probe->axes.end(), [&](const Axis& a) { return a.name == name; });
    return at == probe->axes.end() ? probe->axes.size() : std::size_t(at - probe->axes.begin());
  };
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  return names;
}

std::string param_cell(const Record& r, const std::string& name) {
  const ParamValue* v = find_param(r.params, name);
  return v ? to_string(*v) : "";
}

std::vector<MetricColumn> metric_columns(const std::vector<const Record*>& records) {
  std::vector<MetricColumn> cols;
  for (const Record* r : records)
    for (const Metric& m : r->metrics) {
      auto it = std::find_if(cols.begin(), cols.end(), [&](const MetricColumn& c) { return c.name == m.name; });
      if (it == cols.end()) cols.push_back({m.name, m.unit, true});
      else if (it->unit != m.unit) it->uniform_unit = false;
    }
  return cols;
}

std::string metric_header(const MetricColumn& c) {
  return markdown_escape(c.uniform_unit && !c.unit.empty() ? c.name + " [" + c.unit + "]" : c.name);
}

}  // namespace gd
