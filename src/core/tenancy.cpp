#include "core/tenancy.hpp"

#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/gpu_lock.hpp"
#include "core/timing.hpp"

namespace gd {

using nlohmann::json;

namespace {

unsigned long long epoch_us() {
  return static_cast<unsigned long long>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

// The parent pid from /proc/PID/stat, or -1 when the process is not visible. The command name in
// field 2 may hold spaces and parentheses: the fields after it follow the last ')'.
long parent_of(unsigned pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(text.substr(close + 1));
  std::string state;
  long ppid = -1;
  rest >> state >> ppid;
  return rest ? ppid : -1;
}

PidRelation relation_to_self(unsigned pid) {
  const long self = long(::getpid());
  long at = long(pid);
  for (int depth = 0; depth < 64 && at > 1; ++depth) {
    if (at == self) return PidRelation::Own;
    const long up = parent_of(unsigned(at));
    if (up < 0) return depth == 0 ? PidRelation::Unseen : PidRelation::Other;  // an ancestor vanished mid-walk
    at = up;
  }
  return PidRelation::Other;
}

int count_own() {
  int n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (relation_to_self(unsigned(std::stoul(name))) == PidRelation::Own) ++n;
  }
  return std::max(n, 1);
}

std::string comm_of(unsigned pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string s;
  std::getline(in, s);
  return s;
}

std::string mib(unsigned long long bytes) {
  return bytes ? std::to_string((bytes + (1 << 19)) >> 20) + " MiB" : "memory not reported";
}

std::string fmt0(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", x);
  return buf;
}

const char* relation_name(PidRelation r) {
  switch (r) {
    case PidRelation::Own: return "this run";
    case PidRelation::Other: return "other";
    case PidRelation::Unseen: return "not visible here";
  }
  return "?";
}

}  // namespace

TenancySource nvml_tenancy_source(const std::string& pci_bus_id) {
  return [pci_bus_id](unsigned long long idle_since_us) {
    TenancyReading r;
    r.processes = read_gpu_processes(pci_bus_id);
    if (idle_since_us == 0) return r;
    r.utilization = read_utilization_since(pci_bus_id, idle_since_us);
    if (const auto p = read_power(pci_bus_id)) r.power_w = p->power_w;
    std::string why;
    if (const auto n = read_nvml(pci_bus_id, why); n && n->power_limit_w > 0) r.power_limit_w = n->power_limit_w;
    return r;
  };
}

ProcessView this_process_view() { return {relation_to_self, count_own, comm_of}; }

std::string TenancyVerdict::text() const {
  std::string s;
  for (const auto& e : evidence) s += (s.empty() ? "" : "; ") + e;
  return s;
}

TenancyMonitor::TenancyMonitor(TenancySource source, ProcessView view, std::function<double()> now_s,
                               std::function<void(double)> sleep_s)
    : source_(std::move(source)), view_(std::move(view)), now_s_(std::move(now_s)), sleep_s_(std::move(sleep_s)) {
  if (!now_s_) now_s_ = steady_now_s;
  if (!sleep_s_) sleep_s_ = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
}

TenancyVerdict TenancyMonitor::check_idle(double window_s) {
  (void)sample();  // first sight of any pid this machine cannot place
  // NVML stamps a utilization sample at the end of its period (about 0.2 s on an H200): samples
  // from the window's first 0.3 s could hold kernels of a run that ended just before this one.
  const unsigned long long since = epoch_us() + static_cast<unsigned long long>(std::min(0.3, window_s / 2) * 1e6);
  sleep_s_(window_s);
  const double t0 = now_s_();
  const TenancyReading r = source_(since);
  sampling_s_ += now_s_() - t0;
  ++samples_;
  return judge(r);
}

TenancyVerdict TenancyMonitor::sample() {
  const double t0 = now_s_();
  const TenancyReading r = source_(0);
  sampling_s_ += now_s_() - t0;
  ++samples_;
  return judge(r);
}

TenancyVerdict TenancyMonitor::judge(const TenancyReading& r) {
  TenancyVerdict v;
  const double now = now_s_();
  json procs = json::array();
  if (r.processes) {
    v.checked = true;
    struct Seen {
      const GpuProcess* p;
      PidRelation rel;
    };
    std::vector<Seen> seen;
    for (const GpuProcess& p : *r.processes) seen.push_back({&p, view_.relation(p.pid)});
    const bool any_own = std::any_of(seen.begin(), seen.end(), [](const Seen& s) { return s.rel == PidRelation::Own; });
    const bool all_unseen = !seen.empty() && std::all_of(seen.begin(), seen.end(), [](const Seen& s) { return s.rel == PidRelation::Unseen; });
    // The run holds a context whenever it looks: a list in which none of the pids is ours, and
    // none is visible here, is in another pid namespace (a container). Then only the count tells.
    const bool other_namespace = !any_own && all_unseen;
    std::map<unsigned, double> still_unseen;
    std::vector<std::string> tenants;
    for (const Seen& s : seen) {
      const std::string name = s.rel == PidRelation::Other ? view_.name(s.p->pid) : "";
      procs.push_back({{"pid", s.p->pid}, {"type", s.p->type}, {"used_memory_mib", double(s.p->used_memory_bytes) / (1 << 20)},
                       {"name", name}, {"relation", relation_name(s.rel)}});
      const std::string what = "pid " + std::to_string(s.p->pid) + (name.empty() ? "" : " " + name) + " (" + s.p->type +
                               ", " + mib(s.p->used_memory_bytes) + ")";
      if (s.rel == PidRelation::Other) tenants.push_back(what);
      if (s.rel != PidRelation::Unseen || other_namespace) continue;
      const auto it = unseen_since_.find(s.p->pid);
      const double first = it == unseen_since_.end() ? now : it->second;
      still_unseen[s.p->pid] = first;
      if (now - first >= kUnseenPidGraceS) tenants.push_back(what + ", not visible from here");
    }
    unseen_since_ = std::move(still_unseen);
    if (other_namespace) {
      const int own = view_.own_count();
      const int excess = int(seen.size()) - own;
      if (excess <= 0) {
        excess_since_.reset();
      } else {
        if (!excess_since_) excess_since_ = now;
        if (now - *excess_since_ >= kUnseenPidGraceS)
          v.evidence.push_back("NVML lists " + std::to_string(seen.size()) + " processes with a context on this GPU and this run has " +
                               std::to_string(own) + "; their pids are from another pid namespace (a container), so " +
                               std::to_string(excess) + " of them are someone else's");
      }
    }
    if (!tenants.empty()) {
      std::string list;
      for (const auto& t : tenants) list += (list.empty() ? "" : ", ") + t;
      v.evidence.insert(v.evidence.begin(), "another process has a context on this GPU: " + list);
    }
  }
  json reading = {{"processes", r.processes ? procs : json(nullptr)}};
  if (r.utilization) {
    v.checked = true;
    reading["utilization_pct"] = r.utilization->max_pct;
    reading["utilization_samples"] = r.utilization->samples;
    reading["utilization_source"] = r.utilization->source;
    if (r.utilization->max_pct > kBusyUtilizationPct)
      v.evidence.push_back("GPU utilization up to " + fmt0(r.utilization->max_pct) + " % over " +
                           std::to_string(r.utilization->samples) + " NVML sample(s) while this run launched nothing");
  }
  if (r.power_w) {
    reading["power_w"] = *r.power_w;
    if (r.power_limit_w) reading["power_limit_w"] = *r.power_limit_w;
    if (r.power_limit_w && *r.power_w > kBusyPowerFraction * *r.power_limit_w)
      v.evidence.push_back("board power " + fmt0(*r.power_w) + " W of its " + fmt0(*r.power_limit_w) +
                           " W limit while this run launched nothing");
  }
  v.busy = !v.evidence.empty();
  reading["busy"] = v.busy;
  reading["evidence"] = v.evidence;
  if (!v.checked) reading["why"] = "NVML could not list the GPU's processes";
  v.reading = std::move(reading);
  return v;
}

std::string busy_message(const std::string& gpu, const TenancyVerdict& v) {
  return gpu + " is in use: " + v.text() +
         ". Numbers measured beside another tenant are not the card's (a GEMM next to a quick run moved a quarter "
         "of its metrics by more than 10 %). Wait until the GPU is idle, or run with --allow-busy: every point "
         "measured while another tenant is seen is then flagged `contended`.";
}

bool run_takes_the_gpu(bool ncu_child, bool single_sample, bool functional) {
  return !ncu_child && !single_sample && !functional;
}

TenancyVerdict require_alone(TenancyMonitor& tenancy, const std::string& gpu, bool allow_busy, std::ostream& notes) {
  // A window in which this run launches nothing: any utilization or power in it is someone else's.
  TenancyVerdict v = tenancy.check_idle(0.8);
  if (!v.checked) {
    notes << "gpudissect: note: NVML could not list " << gpu
          << "'s processes: whether another tenant shares the GPU is not checked in this run\n";
  } else if (v.busy && !allow_busy) {
    throw GpuBusy(busy_message(gpu, v));
  } else if (v.busy) {
    notes << "gpudissect: warning: " << gpu << " is in use (" << v.text()
          << "); measuring anyway (--allow-busy): points measured beside it are flagged `contended`\n";
  }
  return v;
}

}  // namespace gd
