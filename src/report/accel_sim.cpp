#include "report/accel_sim.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <regex>
#include <sstream>

#include "core/json_fields.hpp"
#include "report/csv.hpp"
#include "report/format.hpp"
#include "report/hierarchy_glance.hpp"
#include "report/run_view.hpp"

namespace gd {

namespace {

// A record of the run: its id, whether it is an analysis, and the params it must have.
const Record* find_record(const RunDocument& run, const std::string& id, bool derived, const Params& want = {}) {
  for (const Record& r : run.records) {
    if (r.status != Status::Ok || r.id != id || r.derived != derived) continue;
    bool all = true;
    for (const auto& [k, v] : want) {
      const ParamValue* have = find_param(r.params, k);
      all = all && have && to_string(*have) == to_string(v);
    }
    if (all) return &r;
  }
  return nullptr;
}

struct Value {
  double v = 0;
  std::string source;
};

std::optional<Value> metric_of(const RunDocument& run, const std::string& id, bool derived, const Params& want,
                               const std::string& metric) {
  const Record* r = find_record(run, id, derived, want);
  const Metric* m = r ? r->metric(metric) : nullptr;
  if (!m || !std::isfinite(m->value())) return std::nullopt;
  std::string where = id + (derived ? " (analysis)" : "");
  if (!r->params.empty()) where += " " + to_string(r->params);
  return Value{m->value(), where + ": " + metric + " " + fmt_num(m->value())};
}

std::string integer(double v) { return std::to_string(std::llround(v)); }

ConfigLine driver_line(const std::string& option, const nlohmann::json& device, const char* field) {
  const auto v = json_fields::integer_if(device, field);
  if (!v) return {option, "", std::string("not measured: the driver gives no ") + field, false};
  return {option, std::to_string(*v), std::string("driver property ") + field, false};
}

// The in-kernel SM clock as a value with its source, nullopt when the run has none.
std::optional<Value> kernel_clock(const RunDocument& run) {
  std::string how;
  const double mhz = kernel_sm_clock_mhz(run, &how);
  if (!(mhz > 0)) return std::nullopt;
  return Value{mhz, how};
}

// The opcode the latency kernels ran, from the verified SASS check ("...): MUFU.EX2 x32; ...").
std::string verified_opcode(const Record& r) {
  if (r.sass.status != SassStatus::Verified) return "";
  static const std::regex first(R"(\): ([A-Z][A-Z0-9_.]*) x[0-9]+)");
  std::smatch m;
  return std::regex_search(r.sass.detail, m, first) ? m[1].str() : "";
}

// trace.config's "<latency>,<initiation interval>" of a unit class, from one representative opcode.
ConfigLine class_line(const std::string& option, const std::vector<OpcodeTiming>& ops, const std::string& probe,
                      const std::string& why) {
  for (const OpcodeTiming& t : ops)
    if (t.probe == probe && t.interval_cycles > 0)
      return {option, integer(t.latency_cycles) + "," + integer(std::max(1.0, t.interval_cycles)),
              why + ": " + t.opcode + " latency " + fmt_num(t.latency_cycles) + " cycles (latency.alu." + probe +
                  "), one warp instruction per " + fmt_num(t.interval_cycles) + " cycles per sub-partition (compute.alu." +
                  probe + ")",
              true};
  return {option, "", "not measured: latency.alu." + probe + " or compute.alu." + probe + " is not in this run", false};
}

// A comment's text on one line: a run file's id or params holding a line break would otherwise
// start a line the simulator reads as an option.
std::string one_line(const std::string& text) {
  std::string s = printable(text);
  for (const std::string_view brk : {"\r\n", "\n", "\r", "\u2028", "\u2029", "\u0085"})
    for (std::size_t at = s.find(brk); at != std::string::npos; at = s.find(brk, at)) s.replace(at, brk.size(), " ");
  return s;
}

}  // namespace

double kernel_sm_clock_mhz(const RunDocument& run, std::string* how) {
  std::vector<double> mhz;
  for (const Record& r : run.records)
    if (r.status == Status::Ok && !r.derived && r.id.rfind("latency.alu.", 0) == 0 &&
        r.sm_clock_source == ClockSource::InKernel && r.sm_clock_mhz > 0)
      mhz.push_back(r.sm_clock_mhz);
  if (mhz.empty()) return 0;
  std::nth_element(mhz.begin(), mhz.begin() + mhz.size() / 2, mhz.end());
  const double median = mhz[mhz.size() / 2];
  if (how)
    *how = "median in-kernel SM clock (clock64 over %globaltimer) of " + std::to_string(mhz.size()) +
           " latency.alu.* records: " + fmt_num(median) + " MHz";
  return median;
}

std::vector<OpcodeTiming> opcode_timings(const RunDocument& run) {
  std::vector<OpcodeTiming> out;
  for (const Record& r : run.records) {
    if (r.status != Status::Ok || r.derived || r.id.rfind("latency.alu.", 0) != 0) continue;
    const Metric* lat = r.metric("latency/cycles");
    const std::string opcode = verified_opcode(r);
    if (!lat || opcode.empty()) continue;
    OpcodeTiming t{r.id.substr(std::string("latency.alu.").size()), opcode, lat->value()};
    if (const Record* c = find_record(run, "compute.alu." + t.probe, false)) {
      if (const Metric* w = c->metric("throughput/warp_instr_per_clk_per_smsp"); w && w->value() > 0)
        t.interval_cycles = 1 / w->value();
      if (const Metric* l = c->metric("throughput/per_clk_per_sm")) t.per_clk_per_sm = l->value();
    }
    if (const Record* p = find_record(run, "pipes.interference." + t.probe, true))
      if (const auto pipe = json_fields::nonempty_string(p->extra, "pipe_by_interference"); pipe && *pipe != "undetermined")
        t.pipe = *pipe;
    out.push_back(t);
  }
  return out;
}

// The caches' geometry memory.hierarchy.* measured, as comments on the options that would carry
// it: each of these options also holds MSHR, miss-queue and port fields nothing here measures, so
// they stay unset, with what was measured said where a reader of the configuration looks.
void cache_geometry_lines(const RunDocument& run, std::vector<ConfigLine>& g) {
  const std::vector<CacheLevelFacts> levels = hierarchy_facts(run);
  const auto find = [&](const std::string& key) -> const CacheLevelFacts* {
    for (const CacheLevelFacts& l : levels)
      if (l.key == key) return &l;
    return nullptr;
  };
  const auto said = [](const char* what, const std::optional<CacheFact>& f) {
    return f ? std::string(what) + " " + f->shown + (f->record.empty() ? "" : " (" + f->record + ")") : std::string();
  };
  const auto join = [](std::vector<std::string> parts) {
    std::string out;
    for (const std::string& p : parts)
      if (!p.empty()) out += (out.empty() ? "" : "; ") + p;
    return out;
  };
  const std::string fields = ": the option's sets and ways, MSHR, miss-queue and port fields are not all measured, so it is not set";
  if (const CacheLevelFacts* l1 = find("l1"))
    g.push_back({"-gpgpu_cache:dl1", "",
                 "not measured in full: " + join({said("capacity", l1->capacity), said("line", l1->line),
                                                  said("sector (fetch)", l1->fetch), said("ways", l1->ways),
                                                  said("replacement", l1->replacement)}) + fields,
                 false});
  if (const CacheLevelFacts* c = find("constant_l1"))
    g.push_back({"-gpgpu_const_cache:l1", "",
                 "not measured in full: " + join({said("capacity", c->capacity), said("line", c->line), said("fetch", c->fetch),
                                                  said("ways", c->ways), said("replacement", c->replacement)}) + fields,
                 false});
  if (const CacheLevelFacts* l2 = find("l2_segment")) {
    const CacheLevelFacts* whole = find("l2");
    g.push_back({"-gpgpu_cache:dl2", "",
                 "not measured in full: " + join({said("the whole L2", whole ? whole->capacity : std::nullopt),
                                                  said("one SM's segment", l2->capacity), said("line", l2->line),
                                                  said("fetch", l2->fetch)}) + fields,
                 false});
  }
}

AccelSimExport accel_sim_export(const RunDocument& run) {
  AccelSimExport e;
  const nlohmann::json& dev = run.device;
  auto& g = e.gpgpusim;
  g.push_back(driver_line("-gpgpu_compute_capability_major", dev, "cc_major"));
  g.push_back(driver_line("-gpgpu_compute_capability_minor", dev, "cc_minor"));
  g.push_back(driver_line("-gpgpu_n_clusters", dev, "sm_count"));
  g.push_back({"-gpgpu_n_cores_per_cluster", "1", "not measured: Accel-Sim models one SM per cluster", false});
  {
    const auto core = kernel_clock(run);
    const auto dram = json_fields::positive_number(dev, "max_mem_clock_mhz");
    if (core && dram)
      g.push_back({"-gpgpu_clock_domains", integer(core->v) + ":" + integer(core->v) + ":" + integer(core->v) + ":" + integer(*dram),
                   "core: " + core->source + "; interconnect and L2: not measured, the SM clock stands in (the latencies "
                   "here are in SM cycles); DRAM: driver property max_mem_clock_mhz",
                   true});
    else
      g.push_back({"-gpgpu_clock_domains", "", "not measured: no in-kernel SM clock or no memory clock in this run", false});
  }
  g.push_back(driver_line("-gpgpu_shader_registers", dev, "regs_per_sm"));
  g.push_back(driver_line("-gpgpu_registers_per_block", dev, "regs_per_block"));
  g.push_back(driver_line("-gpgpu_shmem_size", dev, "shared_per_sm"));
  g.push_back(driver_line("-gpgpu_shmem_sizeDefault", dev, "shared_per_sm"));
  g.push_back(driver_line("-gpgpu_shmem_per_block", dev, "shared_per_block"));

  const auto chase = [&](const char* level) {
    return metric_of(run, "memory.latency.chase", true, {{"level", level}, {"variant", "ca"}}, "latency/cycles");
  };
  const auto l1 = chase("L1"), l2 = chase("L2"), dram = chase("DRAM");
  g.push_back(l1 ? ConfigLine{"-gpgpu_l1_latency", integer(l1->v), l1->source, true}
                 : ConfigLine{"-gpgpu_l1_latency", "", "not measured: no L1 pointer-chase level in this run", false});
  const auto smem = metric_of(run, "memory.shared.bank_conflict", false,
                              {{"mode", "latency"}, {"stride", std::int64_t{0}}, {"width", std::int64_t{4}}}, "shared/latency_cycles");
  g.push_back(smem ? ConfigLine{"-gpgpu_smem_latency", integer(smem->v), smem->source, true}
                   : ConfigLine{"-gpgpu_smem_latency", "", "not measured: no conflict-free shared-memory latency point", false});
  // Accel-Sim's own tuner (gpu-app-collection's l2_lat and mem_lat microbenchmarks) sets the ROP
  // latency to the L2 hit latency minus L1's and the DRAM latency to memory's minus L2's.
  g.push_back(l1 && l2 ? ConfigLine{"-gpgpu_l2_rop_latency", integer(l2->v - l1->v),
                                    "L2 minus L1 pointer-chase latency, as Accel-Sim's tuner sets it: " + l2->source + "; " + l1->source, true}
                       : ConfigLine{"-gpgpu_l2_rop_latency", "", "not measured: no L1 and L2 pointer-chase levels", false});
  g.push_back(l2 && dram ? ConfigLine{"-dram_latency", integer(dram->v - l2->v),
                                      "DRAM minus L2 pointer-chase latency, as Accel-Sim's tuner sets it: " + dram->source + "; " + l2->source, true}
                         : ConfigLine{"-dram_latency", "", "not measured: no L2 and DRAM pointer-chase levels", false});
  {
    const auto gap = metric_of(run, "topology.launch.overhead", false, {{"what", "dependent_gap"}}, "overhead/us");
    const auto core = kernel_clock(run);
    if (gap && core)
      g.push_back({"-gpgpu_kernel_launch_latency", integer(gap->v * core->v),
                   "the gap between two dependent kernels of one stream, in SM cycles: " + gap->source + " x " + fmt_num(core->v) + " MHz", true});
    else
      g.push_back({"-gpgpu_kernel_launch_latency", "", "not measured: no dependent-kernel gap in this run", false});
  }

  cache_geometry_lines(run, g);

  e.opcodes = opcode_timings(run);
  auto& t = e.trace;
  t.push_back(class_line("-trace_opcode_latency_initiation_int", e.opcodes, "iadd3", "INT class"));
  t.push_back(class_line("-trace_opcode_latency_initiation_sp", e.opcodes, "ffma", "SP class"));
  t.push_back(class_line("-trace_opcode_latency_initiation_dp", e.opcodes, "dfma", "DP class"));
  t.push_back(class_line("-trace_opcode_latency_initiation_sfu", e.opcodes, "mufu_ex2", "SFU class"));
  t.push_back(class_line("-trace_opcode_latency_initiation_tensor", e.opcodes, "mma_f16_f32", "tensor class"));
  t.push_back(class_line("-trace_opcode_latency_initiation_spec_op_3", e.opcodes, "mma_f16_f32",
                         "specialized unit 3 (TENSOR in Accel-Sim's Hopper configuration)"));
  return e;
}

std::string render_config(const std::vector<ConfigLine>& lines, const RunDocument& run, const std::string& title) {
  std::ostringstream os;
  os << "# " << title << ", written by gpudissect export --format accel-sim from run "
     << one_line(run.run_id + " on " + device_name(run.device) + " (" +
                 json_fields::nonempty_string(run.device, "uuid").value_or("no uuid") + ", tool " + run.git_revision + ")")
     << ".\n# Each option's source is in the comment above it; an option nothing here measured is left "
     << "commented out.\n";
  for (const ConfigLine& l : lines) {
    os << "\n# " << (l.measured ? "measured: " : "") << one_line(l.source) << "\n";
    os << (l.value.empty() ? "# " + l.option + " (not set)" : l.option + " " + l.value) << "\n";
  }
  return os.str();
}

std::string render_opcode_table(const AccelSimExport& e) {
  std::ostringstream os;
  os << "opcode,probe,latency_cycles,interval_cycles_per_warp_instruction,lanes_per_clk_per_sm,pipe,latency_record,"
        "throughput_record,pipe_record\n";
  for (const OpcodeTiming& t : e.opcodes)
    os << t.opcode << "," << csv_field(t.probe) << "," << fmt_num(t.latency_cycles) << ","
       << (t.interval_cycles > 0 ? fmt_num(t.interval_cycles) : "") << ","
       << (t.per_clk_per_sm > 0 ? fmt_num(t.per_clk_per_sm) : "") << "," << csv_field(t.pipe) << ","
       << csv_field("latency.alu." + t.probe) << "," << (t.interval_cycles > 0 ? csv_field("compute.alu." + t.probe) : "")
       << "," << (t.pipe.empty() ? "" : csv_field("pipes.interference." + t.probe + " (analysis)")) << "\n";
  return os.str();
}

std::map<std::string, std::string> parse_config(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string option, value;
    if (!(words >> option) || option[0] != '-') continue;
    std::getline(words >> std::ws, value);
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
    out[option] = value;
  }
  return out;
}

namespace {

// "4,2" / "1980:3106" -> {4, 2}; nullopt when any element is not a number.
std::optional<std::vector<double>> numbers_of(const std::string& v) {
  std::vector<double> out;
  std::string item;
  std::istringstream in(v);
  while (std::getline(in, item, v.find(':') != std::string::npos ? ':' : ',')) {
    char* end = nullptr;
    const double d = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0') return std::nullopt;
    out.push_back(d);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::string ratio_of_values(const std::string& ours, const std::string& theirs) {
  if (ours == theirs) return "same";
  const auto a = numbers_of(ours), b = numbers_of(theirs);
  if (!a || !b || a->size() != b->size()) return "";
  std::string out;
  for (std::size_t i = 0; i < a->size(); ++i)
    out += (i ? ", " : "") + ((*b)[i] == 0 ? std::string("n/a") : fmt_num((*a)[i] / (*b)[i], 3));
  return out;
}

}  // namespace

std::string diff_config(const AccelSimExport& e, const std::map<std::string, std::string>& theirs,
                        const std::string& theirs_name) {
  MarkdownTable t;
  t.column("Option").column("Ours", MarkdownTable::Align::Right).column(theirs_name, MarkdownTable::Align::Right)
      .column("Ours / theirs", MarkdownTable::Align::Right).column("Where ours came from");
  int differ = 0, only_ours = 0;
  for (const auto* lines : {&e.gpgpusim, &e.trace})
    for (const ConfigLine& l : *lines) {
      const auto it = theirs.find(l.option);
      const std::string their = it == theirs.end() ? "" : it->second;
      const std::string ratio = l.value.empty() || their.empty() ? "" : ratio_of_values(l.value, their);
      differ += !l.value.empty() && !their.empty() && l.value != their;
      only_ours += it == theirs.end();
      t.row({"`" + markdown_escape(l.option) + "`", l.value.empty() ? "not set" : markdown_escape(l.value),
             it == theirs.end() ? "—" : markdown_escape(their), ratio, markdown_escape(l.source)});
    }
  std::ostringstream os;
  os << "# Accel-Sim configuration: ours beside " << markdown_escape(theirs_name) << "\n\n"
     << differ << " of the options we set differ from theirs; " << only_ours
     << " are not in theirs. Ours are in SM cycles at the clock in `-gpgpu_clock_domains`; a ratio compares cycle "
        "counts, so a clock difference shows in every latency.\n\n"
     << t.render();
  return os.str();
}

}  // namespace gd
