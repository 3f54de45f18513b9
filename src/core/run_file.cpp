#include "core/run_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/device.hpp"
#include "core/error.hpp"
#include "core/json_fields.hpp"
#include "core/run_journal.hpp"

#include <zlib.h>

namespace gd {

using nlohmann::json;
namespace jf = json_fields;
namespace fs = std::filesystem;

static constexpr const char* kToolName = "gpudissect";

json to_json(const RunDocument& doc) {
  json records = json::array();
  for (const Record& r : doc.records) records.push_back(to_json(r));
  json j = {{"schema_version", doc.schema_version},
          {"tool", {{"name", kToolName}, {"version", doc.tool_version}, {"git_revision", doc.git_revision}}},
          {"run_id", doc.run_id},
          {"started_at", doc.started_at},
          {"finished_at", doc.finished_at.empty() ? json(nullptr) : json(doc.finished_at)},
          {"complete", doc.complete},
          {"options", doc.options},
          {"device", doc.device},
          {"records", std::move(records)}};
  if (!doc.gpu_state.is_null()) j["gpu_state"] = doc.gpu_state;
  if (!doc.timing.is_null()) j["timing"] = doc.timing;
  return j;
}

// Identity before version: a file that is not ours should be called that, not "wrong version".
static void check_identity(const json& j) {
  if (!j.is_object())
    throw std::invalid_argument(std::string("not a gpudissect run file (top level is ") + j.type_name() +
                                ", expected an object)");
  const json* tool = jf::optional(j, "tool");
  const bool ours = tool && tool->is_object() && tool->value("name", json()) == kToolName;
  if (!ours && !jf::optional(j, "schema_version"))
    throw std::invalid_argument("not a gpudissect run file (no \"tool\": {\"name\": \"gpudissect\"} and no schema_version)");
  if (tool && !ours) throw std::invalid_argument("not a gpudissect run file (tool.name is not \"gpudissect\")");
}

static void check_schema_version(const json& j) {
  const std::string supported = "this gpudissect reads schema versions " + std::to_string(kOldestReadableSchemaVersion) +
                                " to " + std::to_string(kSchemaVersion);
  const json* v = jf::optional(j, "schema_version");
  if (!v) throw std::invalid_argument("missing schema_version (" + supported + ")");
  if (!v->is_number_integer())
    throw std::invalid_argument("schema_version must be an integer, not " + v->dump() + " (" + supported + ")");
  if (v->get<std::int64_t>() < kOldestReadableSchemaVersion || v->get<std::int64_t>() > kSchemaVersion)
    throw std::invalid_argument("schema version " + v->dump() + " is not supported (" + supported + ")");
}

static std::string record_label(const json& records, std::size_t i) {
  std::string label = "record " + std::to_string(i);
  const json& r = records[i];
  if (r.is_object() && r.contains("id") && r["id"].is_string()) label += " (" + r["id"].get<std::string>() + ")";
  return label;
}

// The device object's fields with the types device_from_json reads them as (the one reader of
// them), each tried alone beside placeholder required fields: a wrong type is named where the
// file is read, not met later as an internal error in whichever command reads the field.
// The device's numbers are read as int (counts, clocks, versions) but for its byte sizes: a value
// outside that range (an sm_count of -4e18, found by the run-model fuzzer) would be converted with
// undefined behaviour wherever it is read.
static void check_device_numbers(const json& v, const std::string& key) {
  static const std::set<std::string> kWide = {"shared_per_sm", "shared_per_block", "shared_per_block_optin",
                                              "l2_bytes", "global_mem_bytes"};
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) check_device_numbers(x, k);
  } else if (v.is_array()) {
    for (const auto& x : v) check_device_numbers(x, key);
  } else if (v.is_number()) {
    const double x = v.get<double>();
    const double limit = kWide.count(key) ? 9.0e18 : 2147483647.0;
    if (!std::isfinite(x) || x > limit || x < -limit)
      throw std::invalid_argument("device: field '" + key + "' is out of range (" + v.dump() + ")");
  }
}

static void check_device_fields(const json& device) {
  check_device_numbers(device, "device");
  static const json kRequired = {{"name", ""}, {"cc_major", 0}, {"cc_minor", 0}, {"sm_count", 0}};
  for (const auto& [key, value] : device.items()) {
    json one = kRequired;
    one[key] = value;
    try {
      (void)device_from_json(one);
    } catch (const json::exception&) {
      throw std::invalid_argument("device: field '" + key + "' has the wrong type (" + value.type_name() + ")");
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string(e.what()) + " (" + value.type_name() + ")");
    }
  }
}

static RunDocument document_from_json(const json& j) {
  check_identity(j);
  check_schema_version(j);
  RunDocument doc;
  const json& tool = jf::object_at(j, "tool");
  jf::with_context("tool", [&] {
    doc.tool_version = jf::string_at(tool, "version");
    doc.git_revision = jf::string_or(tool, "git_revision", "");
  });
  doc.run_id = jf::string_at(j, "run_id");
  doc.started_at = jf::string_at(j, "started_at");
  if (const json* f = jf::optional(j, "finished_at"); f && !f->is_null()) doc.finished_at = jf::string_at(j, "finished_at");
  doc.complete = jf::bool_or(j, "complete", false);
  if (jf::optional(j, "options")) doc.options = jf::object_at(j, "options");
  const json& device = jf::required(j, "device");
  if (!device.is_object() && !device.is_null())
    throw std::invalid_argument(std::string("field 'device' must be an object, not ") + device.type_name());
  if (device.is_object()) check_device_fields(device);
  doc.device = device;
  if (const json* g = jf::optional(j, "gpu_state")) doc.gpu_state = *g;
  if (jf::optional(j, "timing")) doc.timing = jf::object_at(j, "timing");
  const json& records = jf::array_at(j, "records");
  for (std::size_t i = 0; i < records.size(); ++i)
    doc.records.push_back(jf::with_context(record_label(records, i), [&] { return record_from_json(records[i]); }));
  return doc;
}

RunDocument run_from_json(const json& j, const std::string& source_name) {
  try {
    return document_from_json(j);
  } catch (const std::invalid_argument& e) {
    throw UserError(source_name + ": " + e.what());
  }
}

nlohmann::json parse_run_json(const std::string& text, const std::string& source_name, bool allow_exceptions) {
  const json::parser_callback_t limit = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > kMaxRunFileDepth)
      throw UserError(source_name + ": JSON nested deeper than " + std::to_string(kMaxRunFileDepth) +
                      " levels; a run file nests a few (refused before anything reads it)");
    if ((event == json::parse_event_t::value || event == json::parse_event_t::key) && parsed.is_string() &&
        parsed.get_ref<const std::string&>().size() > kMaxRunStringBytes)
      throw UserError(source_name + ": a string of " + std::to_string(parsed.get_ref<const std::string&>().size()) +
                      " bytes; a run file's strings are at most " + std::to_string(kMaxRunStringBytes / 1024) +
                      " KiB (refused before anything reads it)");
    return true;
  };
  return json::parse(text, limit, allow_exceptions);
}

// A gzip file's text, inflated to at most kMaxRunFileBytes: a small file may stand for a huge one
// (a "zip bomb"), so the limit is on what it inflates to, not on its size.
static std::string gunzip(const std::string& packed, const std::string& path) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw UserError(path + ": cannot start zlib to read it");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  z.avail_in = static_cast<uInt>(packed.size());
  std::string text;
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      const std::string why = z.msg ? z.msg : rc == Z_BUF_ERROR ? "the file ends early" : "corrupt data";
      inflateEnd(&z);
      throw UserError(path + ": not a readable gzip file: " + why);
    }
    text.append(buf, sizeof buf - z.avail_out);
    if (text.size() > kMaxRunFileBytes) {
      inflateEnd(&z);
      throw UserError(path + ": inflates to more than " + std::to_string(kMaxRunFileBytes >> 20) +
                      " MiB; run files and journals are at most that");
    }
  }
  const bool trailing = z.avail_in > 0;
  inflateEnd(&z);
  if (trailing) throw UserError(path + ": holds more than one gzip member or data after it");
  return text;
}

std::string read_run_text(const std::string& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) throw UserError(path + ": no such file");
  if (fs::is_directory(status)) throw UserError(path + ": is a directory, expected a run file (.json)");
  if (!fs::is_regular_file(status))
    throw UserError(path + ": not a regular file (a pipe, device or socket); run files and journals are read from files");
  const auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxRunFileBytes)
    throw UserError(path + ": " + std::to_string(size >> 20) + " MiB; run files and journals are at most " +
                    std::to_string(kMaxRunFileBytes >> 20) + " MiB (the suite's run is about 3 MiB)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot be read: " + std::strerror(errno));
  std::string text;
  text.resize(ec ? 0 : size);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  // A file that grew since it was measured is read to the limit and refused past it.
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxRunFileBytes)
      throw UserError(path + ": more than " + std::to_string(kMaxRunFileBytes >> 20) + " MiB; run files and journals are at most that");
  }
  if (in.bad()) throw UserError(path + ": cannot be read: " + std::strerror(errno));
  // gzip's magic: committed datasets are stored compressed (data/measured/*.json.gz).
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b)
    return gunzip(text, path);
  return text;
}

void check_run_limits(const std::vector<Record>& records, const std::string& source_name) {
  std::map<std::string, std::set<std::string>> names;
  for (const Record& r : records) {
    if (r.params.size() > kMaxParamsPerRecord)
      throw UserError(source_name + ": record " + r.id + " has " + std::to_string(r.params.size()) +
                      " params; a record has at most " + std::to_string(kMaxParamsPerRecord));
    auto& seen = names[r.id];
    for (const auto& [name, value] : r.params) seen.insert(name);
    if (seen.size() > kMaxParamNamesPerProbe)
      throw UserError(source_name + ": probe " + r.id + "'s records name more than " +
                      std::to_string(kMaxParamNamesPerProbe) + " distinct params (each becomes a report column)");
  }
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; the user needs the rest.
// Parsing throws more than parse_error: a number too large for a double is out_of_range (found
// by the run-file fuzzer; it used to end as an internal error).
static std::string parse_error_text(const json::exception& e) {
  std::string what = e.what();
  const auto bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

// The run in a file; or, when `foreign` is given and the file is JSON that another tool wrote
// (no gpudissect identity), nothing, with the reason in *foreign.
static std::optional<RunDocument> read_run_or_foreign(const std::string& path, std::string* foreign) {
  const std::string text = read_run_text(path);
  if (fs::path(path).extension() == ".jsonl" || looks_like_journal(text)) {
    JournalRead j = read_journal_text(text, path);
    if (!j.bad_lines.empty())
      throw UserError(path + ": line " + std::to_string(j.bad_lines.front().first) + ": " + j.bad_lines.front().second +
                      " (" + std::to_string(j.bad_lines.size()) + " unreadable line(s) in this journal; `gpudissect recover` "
                      "writes a run file of the lines that can be read and names those it leaves out)");
    return std::move(j.doc);
  }
  json j;
  try {
    j = parse_run_json(text, path);
  } catch (const json::exception& e) {
    throw UserError(path + ": not JSON: " + parse_error_text(e));
  }
  if (foreign) {
    try {
      check_identity(j);
    } catch (const std::invalid_argument& e) {
      *foreign = e.what();
      return std::nullopt;
    }
  }
  RunDocument doc = run_from_json(j, path);
  check_run_limits(doc.records, path);
  return doc;
}

RunDocument read_run_file(const std::string& path) { return *read_run_or_foreign(path, nullptr); }

namespace {
// Run files end in .json (.json.gz compressed, as data/measured keeps them), journals in .jsonl.
bool has_run_file_name(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  for (const std::string_view ext : {".json", ".json.gz", ".jsonl"})
    if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0) return true;
  return false;
}
}  // namespace

std::vector<RunDocument> read_run_files(const std::vector<std::string>& paths, const std::string& done) {
  std::vector<RunDocument> docs;
  for (const auto& path : paths) {
    // A shell glob over a results folder also catches the .md and .csv next to each run.
    if (!has_run_file_name(path))
      throw UserError(path + ": not a run file (run files end in .json or .json.gz, run journals in .jsonl; nothing was " +
                      done + ")");
    docs.push_back(read_run_file(path));
  }
  return docs;
}

RunFiles read_run_files_among_others(const std::vector<std::string>& paths) {
  RunFiles out;
  for (const auto& path : paths) {
    if (!has_run_file_name(path)) {
      out.skipped.push_back({path, "not a run file (run files end in .json or .json.gz, run journals in .jsonl)"});
      continue;
    }
    std::string foreign;
    if (auto doc = read_run_or_foreign(path, &foreign)) {
      out.docs.push_back(std::move(*doc));
      out.paths.push_back(path);
    } else {
      out.skipped.push_back({path, foreign});
    }
  }
  return out;
}

bool same_measurements(const RunDocument& a, const RunDocument& b) {
  const auto measured = [](const Record& r) {
    json metrics = json::array();
    for (const Metric& m : r.metrics) metrics.push_back({m.name, m.unit, m.stats.median, m.stats.n});
    return json{r.id, to_json(r.params), to_string(r.status), metrics};
  };
  if (a.run_id != b.run_id || a.started_at != b.started_at || a.records.size() != b.records.size()) return false;
  for (std::size_t i = 0; i < a.records.size(); ++i)
    if (measured(a.records[i]).dump() != measured(b.records[i]).dump()) return false;  // NaN == NaN here
  return true;
}

std::vector<SkippedFile> drop_repeated_runs(std::vector<RunDocument>& docs, std::vector<std::string>& paths) {
  std::vector<SkippedFile> repeats;
  std::map<std::string, std::size_t> first;  // run_id -> the index it came from first
  std::size_t kept = 0;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const std::string path = i < paths.size() ? paths[i] : "";
    const auto [at, fresh] = first.emplace(docs[i].run_id, kept);
    if (!fresh) {
      const std::string earlier = at->second < paths.size() ? paths[at->second] : "an earlier document";
      if (!same_measurements(docs[at->second], docs[i]))
        throw UserError(path + " and " + earlier + " both claim run id '" + docs[i].run_id +
                        "' but hold different measurements: one would silently stand for the other; nothing was done");
      repeats.push_back({path, "the same run (" + docs[i].run_id + ") as " + earlier});
      continue;
    }
    if (kept != i) {
      docs[kept] = std::move(docs[i]);
      if (i < paths.size()) paths[kept] = paths[i];
    }
    ++kept;
  }
  docs.resize(kept);
  if (paths.size() > kept) paths.resize(kept);
  return repeats;
}

void write_run_file_atomic(const std::string& path, const RunDocument& doc) {
  // Probe strings (disassembler output, driver messages) are not guaranteed UTF-8; replace
  // rather than fail a run at its last step.
  write_file_atomic(path, to_json(doc).dump(2, ' ', false, json::error_handler_t::replace) + "\n");
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace gd
