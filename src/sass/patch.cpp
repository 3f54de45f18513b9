#include "sass/patch.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "core/child_process.hpp"
#include "core/error.hpp"
#include "sass/disasm.hpp"
#include "sass/driver_api.hpp"
#include "sass/fatbin.hpp"

namespace gd::sass {

namespace {

const Kernel& kernel_named(const Cubin& c, const std::string& name) {
  const Kernel* k = c.find_kernel(name);
  if (!k) throw Error("patch: the " + c.arch().name() + " cubin has no kernel '" + name + "'");
  return *k;
}

std::string to_hex(const std::vector<std::uint8_t>& b) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(2 * b.size());
  for (auto v : b) {
    s += digits[v >> 4];
    s += digits[v & 15];
  }
  return s;
}

std::vector<std::uint8_t> from_hex(const std::string& s) {
  if (s.size() % 2) throw UserError("odd-length hex string in a launch job");
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw UserError("bad hex digit in a launch job");
  };
  std::vector<std::uint8_t> b(s.size() / 2);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::uint8_t(nibble(s[2 * i]) << 4 | nibble(s[2 * i + 1]));
  return b;
}

// Device memory freed on every path, including a kernel that failed.
class DeviceAllocation {
 public:
  explicit DeviceAllocation(std::size_t n) { GD_CUDA_CHECK(cudaMalloc(&ptr_, n ? n : 1)); }
  ~DeviceAllocation() { cudaFree(ptr_); }
  DeviceAllocation(const DeviceAllocation&) = delete;
  DeviceAllocation& operator=(const DeviceAllocation&) = delete;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

}  // namespace

// ------------------------------------------------------------------------------------- edits

Cubin apply_patch(const Cubin& cubin, const std::vector<InstructionEdit>& edits, const PatchOptions& opts) {
  Cubin out = cubin;
  for (const auto& e : edits) {
    const Kernel& k = kernel_named(out, e.kernel);
    Instruction128 w = out.instruction(k, e.index);
    if (e.word) w = *e.word;
    if (e.control) w.hi = e.control->encode(w.hi);
    out.set_instruction(k, e.index, w);
  }
  if (opts.disable_opportunistic_finalization && out.has_mercury_sections()) {
    for (const auto& a : out.compat_attributes())
      if (a.id == nvcompat::kOpportunisticFinalization) out.set_compat_byte(a.id, 0);
  }
  return out;
}

std::vector<InstructionRun> identical_runs(const Cubin& cubin, const Kernel& k, std::size_t min_count) {
  std::vector<InstructionRun> runs;
  InstructionRun cur;
  Instruction128 prev{};
  const auto close = [&] {
    if (cur.count >= min_count && cur.count > 0) runs.push_back(cur);
  };
  for (std::size_t i = 0; i < k.instruction_count(); ++i) {
    Instruction128 w = cubin.instruction(k, i);
    w.hi &= ~ControlWord::kMask;
    if (i > 0 && w == prev) {
      ++cur.count;
    } else {
      close();
      cur = {i, 1};
    }
    prev = w;
  }
  close();
  return runs;
}

InstructionRun longest_identical_run(const Cubin& cubin, const Kernel& k) {
  InstructionRun best;
  for (const InstructionRun& r : identical_runs(cubin, k, 1))
    if (r.count > best.count) best = r;
  return best;
}

// ---------------------------------------------------------------------------------- launches

LaunchArg LaunchArg::value(const void* p, std::size_t n) {
  LaunchArg a;
  a.bytes.assign(static_cast<const std::uint8_t*>(p), static_cast<const std::uint8_t*>(p) + n);
  return a;
}

LaunchArg LaunchArg::device_buffer(const void* p, std::size_t n) {
  LaunchArg a = value(p, n);
  a.buffer = true;
  return a;
}

std::string to_string(LaunchOutcome::Kind k) {
  switch (k) {
    case LaunchOutcome::Kind::Completed: return "completed";
    case LaunchOutcome::Kind::CudaError: return "cuda-error";
    case LaunchOutcome::Kind::Crashed: return "crashed";
    case LaunchOutcome::Kind::TimedOut: return "timed-out";
    case LaunchOutcome::Kind::NotRun: return "not-run";
  }
  return "?";
}

nlohmann::json to_json(const LaunchJob& job) {
  nlohmann::json args = nlohmann::json::array();
  for (const auto& a : job.args) args.push_back({{"buffer", a.buffer}, {"hex", to_hex(a.bytes)}});
  return {{"kernel", job.kernel}, {"device", job.device}, {"grid", job.grid}, {"block", job.block}, {"args", args}};
}

LaunchJob launch_job_from_json(const nlohmann::json& j) {
  try {
    LaunchJob job;
    job.kernel = j.at("kernel").get<std::string>();
    job.device = j.at("device").get<int>();
    job.grid = j.at("grid").get<unsigned>();
    job.block = j.at("block").get<unsigned>();
    for (const auto& a : j.at("args")) {
      LaunchArg arg;
      arg.buffer = a.at("buffer").get<bool>();
      arg.bytes = from_hex(a.at("hex").get<std::string>());
      job.args.push_back(std::move(arg));
    }
    return job;
  } catch (const nlohmann::json::exception& e) {
    throw UserError(std::string("malformed launch job: ") + e.what());
  }
}

nlohmann::json to_json(const LaunchOutcome& o) {
  nlohmann::json buffers = nlohmann::json::array();
  for (const auto& b : o.buffers) buffers.push_back(to_hex(b));
  return {{"kind", to_string(o.kind)}, {"message", o.message}, {"buffers", buffers}};
}

LaunchOutcome launch_outcome_from_json(const nlohmann::json& j) {
  LaunchOutcome o;
  const std::string kind = j.at("kind").get<std::string>();
  for (auto k : {LaunchOutcome::Kind::Completed, LaunchOutcome::Kind::CudaError, LaunchOutcome::Kind::Crashed,
                 LaunchOutcome::Kind::TimedOut, LaunchOutcome::Kind::NotRun})
    if (to_string(k) == kind) o.kind = k;
  o.message = j.at("message").get<std::string>();
  for (const auto& b : j.at("buffers")) o.buffers.push_back(from_hex(b.get<std::string>()));
  return o;
}

LaunchOutcome launch_here(const std::vector<std::uint8_t>& cubin, const LaunchJob& job) {
  GD_CUDA_CHECK(cudaSetDevice(job.device));
  GD_CUDA_CHECK(cudaFree(nullptr));  // makes the primary context current for the driver calls
  const DriverApi& drv = DriverApi::get();
  CUmodule module = nullptr;
  drv.check(drv.module_load_data(&module, cubin.data()), "cuModuleLoadData");
  struct Unload {
    const DriverApi& d;
    CUmodule m;
    ~Unload() { d.module_unload(m); }
  } unload{drv, module};
  CUfunction fn = nullptr;
  drv.check(drv.module_get_function(&fn, module, job.kernel.c_str()), "cuModuleGetFunction");

  std::vector<std::unique_ptr<DeviceAllocation>> buffers;
  std::vector<void*> device_ptrs(job.args.size(), nullptr);
  std::vector<void*> params;
  for (std::size_t i = 0; i < job.args.size(); ++i) {
    const LaunchArg& a = job.args[i];
    if (a.buffer) {
      buffers.push_back(std::make_unique<DeviceAllocation>(a.bytes.size()));
      device_ptrs[i] = buffers.back()->get();
      GD_CUDA_CHECK(cudaMemcpy(device_ptrs[i], a.bytes.data(), a.bytes.size(), cudaMemcpyHostToDevice));
      params.push_back(&device_ptrs[i]);
    } else {
      params.push_back(const_cast<std::uint8_t*>(a.bytes.data()));
    }
  }
  drv.check(drv.launch_kernel(fn, job.grid, 1, 1, job.block, 1, 1, 0, nullptr, params.data(), nullptr),
            "cuLaunchKernel");
  LaunchOutcome o;
  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    o.kind = LaunchOutcome::Kind::CudaError;
    o.message = std::string("kernel failed: ") + cudaGetErrorString(e);
    return o;
  }
  for (std::size_t i = 0; i < job.args.size(); ++i) {
    if (!job.args[i].buffer) continue;
    std::vector<std::uint8_t> host(job.args[i].bytes.size());
    GD_CUDA_CHECK(cudaMemcpy(host.data(), device_ptrs[i], host.size(), cudaMemcpyDeviceToHost));
    o.buffers.push_back(std::move(host));
  }
  o.kind = LaunchOutcome::Kind::Completed;
  return o;
}

namespace {

// When the `stop_after` launches before `next`, all of next's group, failed the same way, marks
// the rest of that group not run and returns the first launch after it; else returns `next`.
std::size_t skip_settled_group(const std::vector<PatchedLaunch>& launches, std::vector<LaunchOutcome>& outcomes,
                               std::size_t next, int stop_after) {
  const std::string& group = launches[next].group;
  if (stop_after <= 0 || group.empty() || next < std::size_t(stop_after)) return next;
  const LaunchOutcome& last = outcomes[next - 1];
  for (std::size_t i = next - std::size_t(stop_after); i < next; ++i)
    if (launches[i].group != group || outcomes[i].completed() || outcomes[i].kind == LaunchOutcome::Kind::NotRun ||
        outcomes[i].kind != last.kind || outcomes[i].message != last.message)
      return next;
  const std::string why = "not run: the " + std::to_string(stop_after) + " launches before it in its sweep (" + group +
                          ") failed the same way (" + to_string(last.kind) + ": " + last.message + ")";
  std::size_t i = next;
  for (; i < launches.size() && launches[i].group == group; ++i) outcomes[i] = {LaunchOutcome::Kind::NotRun, why, {}};
  return i;
}

}  // namespace

namespace {

// The child that served the last batch, while it may serve the next (see kPatchChildReuse_s).
struct PatchSession {
  std::unique_ptr<ChildSession> child;
  std::string executable;
  double last_answer_s = 0;
};

PatchSession& patch_session() {
  static PatchSession s;
  return s;
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// A serving child for `exe`: the last one if it is still serving and was answered less than
// kPatchChildReuse_s ago (it ends by itself after twice that idle), else a fresh one.
ChildSession& serving_child(const std::string& exe) {
  PatchSession& s = patch_session();
  if (!s.child || !s.child->serving() || s.executable != exe || now_s() - s.last_answer_s >= kPatchChildReuse_s) {
    s.child.reset();
    s.child = std::make_unique<ChildSession>(std::vector<std::string>{exe, "__patch-child", "--serve"});
    s.executable = exe;
  }
  return *s.child;
}

bool emit_line(int fd, const std::string& line) {
  for (std::size_t done = 0; done < line.size();) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += std::size_t(n);
  }
  return true;
}

// Runs one batch file in this process. 0: every launch completed; otherwise the exit code the
// child ends with (a launch failed, the batch was unreadable, or the parent is gone).
int run_batch(const std::string& batch_path, int out_fd, bool& all_completed) {
  all_completed = false;
  const auto emit = [out_fd](const LaunchOutcome& o) { return emit_line(out_fd, to_json(o).dump() + "\n"); };
  nlohmann::json batch;
  try {
    const std::vector<std::uint8_t> bytes = read_file_bytes(batch_path);
    batch = nlohmann::json::parse(bytes.begin(), bytes.end());
    if (!batch.is_array()) throw UserError("a patch batch is a JSON array");
  } catch (const std::exception& e) {
    emit({LaunchOutcome::Kind::NotRun, std::string("unreadable patch batch: ") + e.what(), {}});
    return 2;
  }
  for (const auto& entry : batch) {
    LaunchOutcome o;
    try {
      const std::vector<std::uint8_t> cubin = read_file_bytes(entry.at("cubin").get<std::string>());
      o = launch_here(cubin, launch_job_from_json(entry.at("job")));
    } catch (const std::exception& e) {
      o.kind = LaunchOutcome::Kind::CudaError;
      o.message = e.what();
    }
    if (!emit(o)) return 3;
    if (!o.completed()) return 0;  // the context may be poisoned: the parent goes on in a fresh child
  }
  all_completed = true;
  return 0;
}

}  // namespace

std::vector<LaunchOutcome> launch_batch_in_child(const std::vector<PatchedLaunch>& launches, double timeout_s,
                                                 const std::string& executable, int stop_after) {
  const std::string exe = executable.empty() ? own_executable_path() : executable;
  std::vector<LaunchOutcome> outcomes(launches.size());
  std::size_t next = 0;
  while (next < launches.size()) {
    next = skip_settled_group(launches, outcomes, next, stop_after);
    if (next >= launches.size()) break;
    // The rest of the batch, each cubin in its own file, in one job file.
    std::vector<std::unique_ptr<TempFile>> cubin_files;
    nlohmann::json batch = nlohmann::json::array();
    for (std::size_t i = next; i < launches.size(); ++i) {
      if (!launches[i].cubin) throw Error("launch_batch_in_child: launch " + std::to_string(i) + " has no cubin");
      cubin_files.push_back(std::make_unique<TempFile>(".cubin"));
      cubin_files.back()->write(launches[i].cubin->bytes().data(), launches[i].cubin->bytes().size());
      batch.push_back({{"cubin", cubin_files.back()->path()}, {"job", to_json(launches[i].job)}});
    }
    TempFile batch_file(".json");
    const std::string text = batch.dump();
    batch_file.write(text.data(), text.size());

    std::size_t got = 0;
    ChildSession& child = serving_child(exe);
    const std::optional<ChildOutcome> ended = child.request(
        batch_file.path(),
        [&](const std::string& line) {
          nlohmann::json j;
          try {
            j = nlohmann::json::parse(line);
          } catch (const std::exception& e) {
            if (next + got < launches.size())
              outcomes[next + got++] = {LaunchOutcome::Kind::Crashed, std::string("unreadable outcome from the child: ") + e.what(), {}};
            return false;
          }
          if (j.is_object() && j.contains("end")) return true;  // the batch is done, the child serves on
          if (next + got >= launches.size()) return false;     // more lines than launches: ignored
          try {
            outcomes[next + got] = launch_outcome_from_json(j);
          } catch (const std::exception& e) {
            outcomes[next + got] = {LaunchOutcome::Kind::Crashed, std::string("unreadable outcome from the child: ") + e.what(), {}};
          }
          ++got;
          return false;
        },
        timeout_s);
    patch_session().last_answer_s = now_s();
    if (!ended) {
      // Answered in full; a child that closed the batch early leaves its unanswered launches crashed.
      for (std::size_t i = next + got; i < launches.size(); ++i)
        outcomes[i] = {LaunchOutcome::Kind::Crashed, "the child ended the batch before answering this launch", {}};
      next = launches.size();
      continue;
    }
    const bool stopped_on_failure = got > 0 && !outcomes[next + got - 1].completed();
    if (next + got < launches.size() && !stopped_on_failure) {
      // The child ended or hung during launch next+got: that launch is the one that failed.
      LaunchOutcome& o = outcomes[next + got];
      o.kind = ended->timed_out ? LaunchOutcome::Kind::TimedOut : LaunchOutcome::Kind::Crashed;
      o.message = ended->describe(timeout_s);
      ++got;
    }
    next += got;
  }
  return outcomes;
}

LaunchOutcome launch_in_child(const Cubin& cubin, const LaunchJob& job, double timeout_s,
                              const std::string& executable) {
  return launch_batch_in_child({{&cubin, job}}, timeout_s, executable).at(0);
}

int patch_child_main(const std::string& batch_path, int out_fd) {
  bool all_completed = false;
  return run_batch(batch_path, out_fd, all_completed);
}

int patch_child_serve(int in_fd, int out_fd, double idle_exit_s) {
  std::string pending;
  char buf[4096];
  for (;;) {
    for (std::size_t eol; (eol = pending.find('\n')) != std::string::npos;) {
      const std::string path = pending.substr(0, eol);
      pending.erase(0, eol + 1);
      bool all_completed = false;
      if (const int rc = run_batch(path, out_fd, all_completed); rc != 0 || !all_completed) return rc;
      if (!emit_line(out_fd, "{\"end\":true}\n")) return 3;
    }
    pollfd p{in_fd, POLLIN, 0};
    const int n = ::poll(&p, 1, int(idle_exit_s * 1000));
    if (n == 0) return 0;  // idle: the parent has moved on
    if (n < 0) {
      if (errno == EINTR) continue;
      return 0;
    }
    const ssize_t k = ::read(in_fd, buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return 0;  // the parent closed the session
    pending.append(buf, std::size_t(k));
  }
}

}  // namespace gd::sass
