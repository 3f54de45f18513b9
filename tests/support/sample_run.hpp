// Builders for run documents in tests: a realistic small run (measured, analysis, skipped and
// failed records, an unknown statistic) and a scratch directory that cleans up after itself.
#pragma once
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/run_file.hpp"

namespace gd::test_support {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline Metric metric(std::string name, std::string unit, double median, double min, double max, std::size_t n,
                     double stddev = 0.5) {
  Metric m;
  m.name = std::move(name);
  m.unit = std::move(unit);
  m.stats.median = median;
  m.stats.min = min;
  m.stats.max = max;
  m.stats.mean = (min + max) / 2;
  m.stats.stddev = stddev;
  m.stats.n = n;
  return m;
}

inline Record record(std::string id, Params params, std::vector<Metric> metrics,
                     SassStatus sass = SassStatus::Verified) {
  Record r;
  r.category = id.substr(0, id.find('.'));
  r.id = std::move(id);
  r.params = std::move(params);
  r.metrics = std::move(metrics);
  r.sass = {sass, sass == SassStatus::Verified ? "FFMA x64" : "expected FFMA >= 64, found FFMA x32, FMUL x32"};
  r.sm_clock_mhz = 1980;
  r.sm_clock_source = ClockSource::InKernel;
  r.sm_clock_detail = "clock64 cycles over %globaltimer ns in the timed kernels";
  r.convergence = {true, true, "converged", 20, 1};
  r.nvml_sm_clock_mhz = 1980;
  r.elapsed_s = 0.25;
  return r;
}

inline Record not_run(std::string id, Params params, Status status, std::string reason) {
  Record r = record(std::move(id), std::move(params), {}, SassStatus::Unverified);
  r.status = status;
  r.reason = std::move(reason);
  r.sass.detail = "";
  r.sm_clock_mhz = 0;
  r.sm_clock_source = ClockSource::None;
  r.sm_clock_detail = "";
  r.convergence = {};
  return r;
}

inline nlohmann::json device(const std::string& name, int cc_major, int sm_count) {
  return {{"name", name},         {"uuid", "GPU-0123"},      {"cc_major", cc_major},    {"cc_minor", 0},
          {"sm_count", sm_count}, {"l2_bytes", 52428800},    {"max_sm_clock_mhz", 1980}, {"ecc_enabled", true},
          {"features", {"tma"}},  {"nvml_status", "libnvidia-ml.so.1 not found"}, {"nvml", nullptr}};
}

// Params keys sorted as a JSON round trip returns them, so documents compare equal after one.
inline RunDocument sample_run() {
  RunDocument doc;
  doc.tool_version = "0.1.0";
  doc.git_revision = "abc123def456";
  doc.run_id = "2025-11-29T14:00:00Z-5e1a2b3c";
  doc.started_at = "2025-11-29T14:00:00Z";
  doc.finished_at = "2025-11-29T14:02:00Z";
  doc.complete = true;
  doc.options = {{"quick", true}, {"filters", {"latency.*"}}};
  doc.device = device("NVIDIA H200", 9, 132);
  doc.records.push_back(record("latency.alu.ffma", {{"chain", std::int64_t{64}}},
                               {metric("time/cycles", "cycles", 262, 260, 270, 20)}));
  doc.records.push_back(record("latency.alu.ffma", {{"chain", std::int64_t{128}}},
                               {metric("time/cycles", "cycles", 518, 516, 530, 20)}, SassStatus::Mismatch));
  Record fit = record("latency.alu.ffma", {}, {metric("latency/cycles", "cycles", 4.0, 4.0, 4.0, 1, kNaN)},
                      SassStatus::Unverified);
  fit.derived = true;
  fit.sm_clock_source = ClockSource::FromPoints;
  fit.convergence = {};
  fit.extra = {{"fit_r2", 0.99998}, {"points", 2}};
  doc.records.push_back(fit);
  doc.records.push_back(record("memory.bandwidth.dram", {{"blocks_per_sm", std::int64_t{4}}, {"op", std::string("triad")}},
                               {metric("bandwidth/tbps", "TB/s", 4.512, 4.498, 4.521, 15, 0.006),
                                metric("bandwidth/percent_of_theoretical", "%", 91.75, 91.47, 91.94, 15)}));
  doc.records.push_back(not_run("compute.tcgen05.mma", {}, Status::Skipped, "requires tcgen05; this GPU is sm_90"));
  doc.records.push_back(not_run("memory.latency.chase", {{"bytes", std::int64_t{1048576}}}, Status::Failed,
                                "cudaErrorIllegalAddress | sticky"));
  return doc;
}

// A run as its writer starts it: the header, no records, not finished.
inline RunDocument header_of(RunDocument doc) {
  doc.records.clear();
  doc.finished_at.clear();
  doc.complete = false;
  return doc;
}

inline std::string fixture(const std::string& name) { return std::string(GPUDISSECT_FIXTURES) + "/" + name; }

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("gpudissect-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Equality the way a reader sees it: two documents are the same when they serialize the same.
// NaN serializes as null, so NaN == NaN here, which is what a round trip must preserve.
inline std::string canonical(const RunDocument& doc) { return to_json(doc).dump(); }

// The message of the UserError that f() throws, or a marker that none was thrown.
template <class F>
std::string user_error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "<no UserError>";
}

}  // namespace gd::test_support
