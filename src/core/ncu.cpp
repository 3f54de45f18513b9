#include "core/ncu.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>

#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#include "core/error.hpp"
#include "core/spawn.hpp"
#include "core/stats.hpp"

namespace gd::ncu {

namespace fs = std::filesystem;

const std::vector<std::string>& default_metrics() {
  // The per-pipe instruction counts ncu offers on sm_90 (ncu --query-metrics --chip gh100),
  // which name the pipe an instruction issues to.
  static const std::vector<std::string> m = {
      "smsp__inst_executed.sum",
      "sm__cycles_elapsed.avg",
      "smsp__inst_executed_pipe_adu.sum",
      "smsp__inst_executed_pipe_alu.sum",
      "smsp__inst_executed_pipe_cbu.sum",
      "smsp__inst_executed_pipe_fma.sum",
      "smsp__inst_executed_pipe_fmaheavy.sum",
      "smsp__inst_executed_pipe_fmalite.sum",
      "smsp__inst_executed_pipe_fma_type_fp16.sum",
      "smsp__inst_executed_pipe_fp64.sum",
      "smsp__inst_executed_pipe_lsu.sum",
      "smsp__inst_executed_pipe_tensor.sum",
      "smsp__inst_executed_pipe_tex.sum",
      "smsp__inst_executed_pipe_tma.sum",
      "smsp__inst_executed_pipe_uniform.sum",
      "smsp__inst_executed_pipe_xu.sum",
  };
  return m;
}

void check_metric_name(const std::string& name) {
  bool ok = !name.empty();
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':');
  if (!ok) throw UserError("not an Nsight Compute metric name: '" + name + "' (letters, digits, '_', '.', ':')");
}

std::string point_tag(const std::string& probe_id, const Params& params) {
  // FNV-1a over the canonical JSON (keys sorted, compact): equal points give equal tags in the
  // profiling child and in the timing run.
  const std::string text = gd::to_json(params).dump();
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return "@gd:" + probe_id + ":" + hex;
}

namespace {
bool g_tagging = false;
Counters g_counters;
bool g_have_counters = false;
}  // namespace

void set_tagging(bool on) { g_tagging = on; }
bool tagging() { return g_tagging; }

Range::Range(const std::string& name) {
  if (name.empty()) return;
  nvtxRangePushA(name.c_str());
  pushed_ = true;
}
Range::~Range() {
  if (pushed_) nvtxRangePop();
}

namespace {

// One CSV record (RFC 4180 quoting); false at end of input. Throws on an unterminated quote.
bool read_csv_row(std::istream& in, std::vector<std::string>& row, int& line_no) {
  row.clear();
  std::string line;
  if (!std::getline(in, line)) return false;
  ++line_no;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0;; ++i) {
    if (i == line.size()) {
      if (!quoted) break;
      std::string more;  // a quoted field spans a line break
      if (!std::getline(in, more)) throw Error("ncu CSV line " + std::to_string(line_no) + ": unterminated quote");
      ++line_no;
      field += '\n';
      line = std::move(more);
      i = std::size_t(-1);
      continue;
    }
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  row.push_back(std::move(field));
  return true;
}

double parse_value(const std::string& text, int line_no) {
  std::string digits;
  for (char c : text)
    if (c != ',') digits += c;
  char* end = nullptr;
  const double v = std::strtod(digits.c_str(), &end);
  if (digits.empty() || end != digits.c_str() + digits.size())
    throw Error("ncu CSV line " + std::to_string(line_no) + ": metric value '" + text + "' is not a number");
  return v;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  throw Error("ncu CSV has no '" + name + "' column (was it written with --csv and the details page?)");
}

}  // namespace

Counters parse_csv(std::istream& in) {
  std::vector<std::string> row;
  int line_no = 0;
  // ncu may print notes (==PROF==, ==WARNING==) before the header.
  while (read_csv_row(in, row, line_no))
    if (!row.empty() && row[0] == "ID") break;
  if (row.empty() || row[0] != "ID") throw Error("ncu CSV: no header row (a line starting with \"ID\")");
  const std::size_t kname = column(row, "Kernel Name"), mname = column(row, "Metric Name"),
                    mvalue = column(row, "Metric Value");
  const std::size_t need = std::max({kname, mname, mvalue}) + 1;
  Counters out;
  while (read_csv_row(in, row, line_no)) {
    if (row.size() == 1 && row[0].empty()) continue;
    if (row[0].rfind("==", 0) == 0) continue;  // ncu's own notes (==PROF==, ==WARNING==)
    if (row.size() < need)
      throw Error("ncu CSV line " + std::to_string(line_no) + ": " + std::to_string(row.size()) + " fields, expected " +
                  std::to_string(need) + " or more");
    const std::string& kernel = row[kname];
    if (kernel.rfind("@gd:", 0) != 0) continue;  // a launch outside our tagged ranges (our own
                                                // kernels, in namespace gd::, start with "gd:" too)
    const auto slash = kernel.find('/');
    if (slash == std::string::npos)
      throw Error("ncu CSV line " + std::to_string(line_no) + ": renamed kernel '" + kernel +
                  "' lacks the '/<kernel>' part (--print-nvtx-rename kernel)");
    out[kernel.substr(0, slash)][kernel.substr(slash + 1)][row[mname]].push_back(parse_value(row[mvalue], line_no));
  }
  return out;
}

nlohmann::json to_json(const PointCounters& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [kernel, metrics] : c)
    for (const auto& [name, values] : metrics) j[kernel][name] = summarize(values).median;
  return j;
}

nlohmann::json launches_json(const PointCounters& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [kernel, metrics] : c) {
    std::size_t n = 0;
    for (const auto& [name, values] : metrics) n = std::max(n, values.size());
    j[kernel] = n;
  }
  return j;
}

void set_counters(Counters c) {
  g_counters = std::move(c);
  g_have_counters = true;
}
bool have_counters() { return g_have_counters; }
const PointCounters* counters_for(const std::string& tag) {
  const auto it = g_counters.find(tag);
  return it == g_counters.end() ? nullptr : &it->second;
}

std::string find_exe(const std::string& explicit_path) {
  auto runnable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (!explicit_path.empty()) {
    if (runnable(require_absolute_tool(explicit_path, "--ncu-exe"))) return explicit_path;
    throw UserError("--ncu-exe " + explicit_path + ": not an executable file");
  }
  if (const char* env = std::getenv("GPUDISSECT_NCU"); env && *env) {
    if (runnable(require_absolute_tool(env, "GPUDISSECT_NCU"))) return env;
    throw UserError(std::string("GPUDISSECT_NCU=") + env + ": not an executable file");
  }
  if (auto found = find_tool_on_path("ncu")) return *found;
  std::string where;
  for (const auto& d : tool_search_dirs()) where += (where.empty() ? "" : ", ") + d;
  throw UserError("run --ncu needs Nsight Compute's `ncu` (the CUDA toolkit ships it) and found none (looked in: " +
                  where + "); set GPUDISSECT_NCU or pass --ncu-exe, an absolute path");
}

}  // namespace gd::ncu
