#include "report/machine_model.hpp"

#include <cmath>
#include <map>

#include "core/clock_check.hpp"
#include "core/json_fields.hpp"
#include "core/match.hpp"
#include "report/accel_sim.hpp"
#include "report/format.hpp"
#include "report/headlines.hpp"
#include "report/hierarchy_glance.hpp"
#include "report/run_view.hpp"

namespace gd {

namespace {

std::string label_of(const Record& r) {
  return r.id + (r.derived ? " (analysis)" : "") + (r.params.empty() ? "" : " " + to_string(r.params));
}

nlohmann::json instructions(const RunDocument& run) {
  nlohmann::json out = nlohmann::json::array();
  for (const OpcodeTiming& t : opcode_timings(run)) {
    nlohmann::json i = {{"opcode", t.opcode}, {"latency_cycles", t.latency_cycles}, {"latency_record", "latency.alu." + t.probe}};
    if (t.interval_cycles > 0) {
      i["interval_cycles"] = t.interval_cycles;  // between one sub-partition's warp instructions
      i["per_clk_per_sm"] = t.per_clk_per_sm;
      i["throughput_record"] = "compute.alu." + t.probe;
    }
    if (!t.pipe.empty()) {
      i["pipe"] = t.pipe;
      i["pipe_record"] = "pipes.interference." + t.probe + " (analysis)";
    }
    out.push_back(i);
  }
  return out;
}

// The pointer chase's levels (its analysis records, the cached variant) with their footprints.
nlohmann::json memory_levels(const RunDocument& run) {
  nlohmann::json out = nlohmann::json::array();
  for (const Record& r : run.records) {
    if (r.status != Status::Ok || !r.derived || r.id != "memory.latency.chase") continue;
    const ParamValue* level = find_param(r.params, "level");
    const ParamValue* variant = find_param(r.params, "variant");
    const Metric* cycles = r.metric("latency/cycles");
    if (!level || !variant || to_string(*variant) != "ca" || !cycles) continue;
    nlohmann::json l = {{"level", to_string(*level)}, {"latency_cycles", cycles->value()}, {"record", label_of(r)}};
    for (const auto& [key, metric] : {std::pair<const char*, const char*>{"latency_ns", "latency/ns"},
                                      {"first_bytes", "level/first_bytes"},
                                      {"last_bytes", "level/last_bytes"}})
      if (const Metric* m = r.metric(metric)) l[key] = m->value();
    out.push_back(l);
  }
  return out;
}

// Each cache level's geometry as memory.hierarchy.* measured it (report/hierarchy_glance): per
// answer its number (or text), unit and record.
nlohmann::json caches(const RunDocument& run) {
  nlohmann::json out = nlohmann::json::array();
  for (const CacheLevelFacts& l : hierarchy_facts(run)) {
    nlohmann::json level = {{"level", l.key}, {"name", l.name}};
    for (const auto& [key, f] : {std::pair<const char*, const std::optional<CacheFact>*>{"capacity", &l.capacity},
                                 {"line", &l.line},
                                 {"fetch", &l.fetch},
                                 {"ways", &l.ways},
                                 {"replacement", &l.replacement},
                                 {"latency", &l.latency},
                                 {"bandwidth", &l.bandwidth},
                                 {"shared_with", &l.shared_with}}) {
      if (!*f) continue;
      nlohmann::json a = {{"shown", (*f)->shown}, {"record", (*f)->record}};
      if ((*f)->value) a["value"] = *(*f)->value;
      if (!(*f)->unit.empty()) a["unit"] = (*f)->unit;
      level[key] = a;
    }
    out.push_back(level);
  }
  return out;
}

// The tensor instructions' families as their probes record them: where the type is read (a param,
// or the probe id's part after the prefix) and which params tell one row from another (an
// accumulator in TMEM or A read from it, a CTA pair), the rest being the sweep a row's best is over.
struct TensorFamily {
  const char* instruction;
  const char* throughput_probe;  // a glob
  const char* latency_probe;     // "" when the throughput records carry latency/cycles themselves
  const char* type_param;        // "" when the type is the id's tail after throughput_probe's prefix
  std::vector<std::string> row_params;
  const char* flops_metric;
};

const std::vector<TensorFamily>& tensor_families() {
  static const std::vector<TensorFamily> f = {
      {"wgmma", "tensor.wgmma.throughput", "tensor.wgmma.latency", "op", {}, "throughput/flops_per_clk_per_sm"},
      {"tcgen05.mma", "tensor.tcgen05.mma", "", "type", {"cta_group", "operands"}, "throughput/flops_per_clk_per_sm"},
      {"mma.sync", "tensor.mma_sync.*.m*", "", "", {}, "throughput/flop_per_clk_per_sm"},
      {"mma.sp", "tensor.mma_sp.*.m*", "", "", {}, "throughput/flop_per_clk_per_sm"},
  };
  return f;
}

std::string param_string(const Record& r, const std::string& name) {
  const ParamValue* v = find_param(r.params, name);
  return v ? to_string(*v) : "";
}

// One row per tensor instruction, type and row params: its best measured rate (the shape that won
// named by its record), at the clock its kernels ran and projected to the application clock, and
// its lowest dependent latency.
nlohmann::json tensor_rows(const RunDocument& run) {
  const double application_mhz = application_sm_clock_mhz(run.gpu_state, run.device);
  nlohmann::json out = nlohmann::json::array();
  for (const TensorFamily& f : tensor_families()) {
    const std::string prefix = std::string(f.throughput_probe).substr(0, std::string(f.throughput_probe).find('*'));
    std::map<std::string, nlohmann::json> rows;  // by type and row params, in a stable order
    std::map<std::string, double> best;
    for (const Record& r : run.records) {
      if (r.status != Status::Ok || r.derived || !glob_match(f.throughput_probe, r.id)) continue;
      const std::string type = *f.type_param ? param_string(r, f.type_param) : r.id.substr(prefix.size());
      const Metric* tflops = r.metric("throughput/tflops");
      if (type.empty() || !tflops || !std::isfinite(tflops->value())) continue;
      std::string key = type;
      nlohmann::json row = {{"instruction", f.instruction}, {"type", type}};
      for (const std::string& p : f.row_params)
        if (const std::string v = param_string(r, p); !v.empty()) key += " " + p + "=" + v, row[p] = v;
      if (best.count(key) && best[key] >= tflops->value()) continue;
      best[key] = tflops->value();
      row["tera_ops_per_s"] = tflops->value();
      if (const Metric* m = r.metric(f.flops_metric)) row["ops_per_clk_per_sm"] = m->value();
      row["record"] = label_of(r);
      if (r.sm_clock_mhz > 0) {
        row["sm_clock_mhz"] = r.sm_clock_mhz;
        if (application_mhz > 0)
          row["at_application_clock"] = {{"tera_ops_per_s", tflops->value() * application_mhz / r.sm_clock_mhz},
                                         {"application_mhz", application_mhz},
                                         {"how", "projected: the measured rate per clock at the application clock"}};
      }
      if (!*f.latency_probe)
        if (const Metric* lat = r.metric("latency/cycles")) row["latency_cycles"] = lat->value(), row["latency_record"] = label_of(r);
      rows[key] = row;
    }
    // A separate latency probe: the type's lowest latency, over its shapes, with that record.
    if (*f.latency_probe)
      for (auto& [key, row] : rows)
        for (const Record& r : run.records) {
          if (r.status != Status::Ok || r.derived || r.id != f.latency_probe || param_string(r, f.type_param) != row["type"].get<std::string>()) continue;
          const Metric* lat = r.metric("latency/cycles");
          if (!lat || !std::isfinite(lat->value())) continue;
          if (row.contains("latency_cycles") && row["latency_cycles"].get<double>() <= lat->value()) continue;
          row["latency_cycles"] = lat->value(), row["latency_record"] = label_of(r);
        }
    for (auto& [key, row] : rows) out.push_back(std::move(row));
  }
  return out;
}

nlohmann::json launch_costs(const RunDocument& run) {
  nlohmann::json out = nlohmann::json::object();
  for (const Record& r : run.records)
    if (r.status == Status::Ok && !r.derived && r.id == "topology.launch.overhead")
      if (const ParamValue* what = find_param(r.params, "what"))
        if (const Metric* us = r.metric("overhead/us")) out[to_string(*what) + "_us"] = us->value();
  return out;
}

// Every ok measured point of a probe: its params and the named metrics it has, with its record.
nlohmann::json points_of(const RunDocument& run, const std::string& id, const std::vector<std::string>& metrics) {
  nlohmann::json out = nlohmann::json::array();
  for (const Record& r : run.records) {
    if (r.status != Status::Ok || r.derived || r.id != id) continue;
    nlohmann::json p = {{"params", to_json(r.params)}, {"record", label_of(r)}};
    for (const std::string& name : metrics)
      if (const Metric* m = r.metric(name)) p[name] = m->value();
    out.push_back(p);
  }
  return out;
}

nlohmann::json headline_entry(const Headline& h) {
  return {{"value", h.value.value}, {"unit", h.rule->unit}, {"record", headline_source_label(h)}};
}

// A roofline's ceilings: compute per type (TFLOPS or TOPS) and bandwidth per level (TB/s), each
// from a headline. FP64 is measured per clock per SM: its TFLOPS is that x 2 x SMs x its clock.
nlohmann::json roofline(const RunDocument& run, const std::vector<Headline>& hs) {
  nlohmann::json compute = nlohmann::json::array(), bandwidth = nlohmann::json::array();
  const auto sm_count = json_fields::integer_if(run.device, "sm_count");
  for (const Headline& h : hs) {
    const std::string& q = h.rule->quantity;
    const std::string record = headline_source_label(h);
    if (q == "fp32.peak" || q.rfind("tensor.", 0) == 0) {
      nlohmann::json c = {{"name", h.rule->title}, {"tera_ops_per_s", h.value.value}, {"unit", h.rule->unit}, {"record", record}};
      // A tensor rate is measured at the clock its kernels ran (wgmma slows the SM clock): beside
      // it, the same rate per clock at the application clock, said to be a projection.
      if (std::isfinite(h.clock_mhz) && h.clock_mhz > 0 && h.application_mhz > 0) {
        c["sm_clock_mhz"] = h.clock_mhz;
        c["at_application_clock"] = {{"tera_ops_per_s", h.value.value * h.application_mhz / h.clock_mhz},
                                     {"application_mhz", h.application_mhz},
                                     {"how", "projected: the measured rate per clock at the application clock"}};
      }
      compute.push_back(c);
    }
    else if (q == "fp64.dfma_per_clk_per_sm" && sm_count && h.value.record && h.value.record->sm_clock_mhz > 0) {
      const double mhz = h.value.record->sm_clock_mhz;
      compute.push_back({{"name", "FP64 DFMA peak"},
                         {"tera_ops_per_s", h.value.value * 2 * double(*sm_count) * mhz * 1e-6},
                         {"unit", "TFLOPS"},
                         {"record", record},
                         {"how", fmt_num(h.value.value) + " results/clk/SM x 2 FLOP x " + std::to_string(*sm_count) +
                                     " SMs x " + fmt_num(mhz) + " MHz"}});
    } else if (q == "dram.read_bandwidth" || q == "l2.read_bandwidth" || q == "l1.read_bandwidth")
      bandwidth.push_back({{"level", q.substr(0, q.find('.')) == "dram" ? "DRAM" : q.substr(0, 2) == "l2" ? "L2" : "L1"},
                           {"tb_per_s", h.value.value},
                           {"record", record}});
  }
  return {{"compute", compute}, {"bandwidth", bandwidth}};
}

}  // namespace

nlohmann::json machine_model(const RunDocument& run) {
  const std::vector<Headline> hs = resolve_headlines(run);
  std::string how;
  const double mhz = kernel_sm_clock_mhz(run, &how);
  nlohmann::json gpu = {{"name", device_name(run.device)}};
  for (const char* field : {"uuid", "sm_count", "cc_major", "cc_minor", "l2_bytes", "shared_per_sm", "regs_per_sm",
                            "max_sm_clock_mhz", "max_mem_clock_mhz"})
    if (const nlohmann::json* v = json_fields::present(run.device, field)) gpu[field] = *v;
  nlohmann::json headlines = nlohmann::json::object();
  for (const Headline& h : hs) headlines[h.rule->quantity] = headline_entry(h);
  nlohmann::json model = {{"kind", "gpudissect-machine-model"},
                          {"version", kMachineModelVersion},
                          {"run", {{"run_id", run.run_id}, {"git_revision", run.git_revision}, {"started_at", run.started_at}}},
                          {"gpu", gpu},
                          {"instructions", instructions(run)},
                          {"memory", memory_levels(run)},
                          {"launch", launch_costs(run)},
                          {"sync",
                           {{"cta_barrier", points_of(run, "pipes.sched.bar_sync", {"barrier/cycles"})},
                            {"cluster_barrier", points_of(run, "topology.cluster.barrier", {"latency/cycles", "latency/ns"})},
                            {"grid_sync", points_of(run, "topology.launch.grid_sync", {"latency/cycles", "latency/ns"})}}},
                          {"clock_under_load",
                           points_of(run, "power.clock_response",
                                     {"clock/idle_mhz", "clock/loaded_mhz", "clock/loaded_min_mhz", "clock/after_mhz",
                                      "clock/settle_ms", "power/loaded_w"})},
                          {"tensor", tensor_rows(run)},
                          {"roofline", roofline(run, hs)},
                          {"headlines", headlines}};
  if (mhz > 0) model["clock"] = {{"in_kernel_sm_mhz", mhz}, {"how", how}};
  if (nlohmann::json c = caches(run); !c.empty()) model["caches"] = c;
  return model;
}

}  // namespace gd
