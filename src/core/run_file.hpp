// The JSON run file: the source of truth for a run. A run appends its records to a journal
// (core/run_journal.hpp) as they finish and writes this file once, from the journal, at its end.
#pragma once
#include <string>
#include <vector>

#include "core/json.hpp"

#include "core/device.hpp"
#include "core/executor.hpp"
#include "core/output_file.hpp"  // write_file_atomic
#include "core/record.hpp"

namespace gd {

struct RunDocument {
  int schema_version = kSchemaVersion;
  std::string tool_version;
  std::string git_revision;
  std::string run_id;           // unique per run: "<started_at>-<uuid prefix>"
  std::string started_at;       // ISO 8601 UTC
  std::string finished_at;      // empty while running
  bool complete = false;        // false if interrupted or still running
  nlohmann::json options = nlohmann::json::object();  // quick, filters, category, host
  nlohmann::json device;        // to_json(DeviceInfo) as measured at the start
  nlohmann::json gpu_state;     // null, or {"before", "after", "changed"} (core/gpu_state.hpp)
  nlohmann::json timing;        // null, or {"wall_s", "probe_wall_s": {id: seconds}}: where the run's time went
  std::vector<Record> records;
};

nlohmann::json to_json(const RunDocument& doc);
// Run files and journal lines nest a few levels (8 in the suite's run); deeper input is refused
// before it reaches code that recurses over it (the serializer overflowed the stack at ~70,000).
inline constexpr int kMaxRunFileDepth = 64;
// Run files travel between people (issue 36): past any of these limits a file is refused with
// exit 2 naming the limit, before a report pads tables to it or memory grows without bound. The
// suite's own run is far inside them (2.8 MB, strings up to 2.4 KB, 5 params a record, 73 param
// names in one probe's records).
inline constexpr std::uintmax_t kMaxRunFileBytes = std::uintmax_t(512) << 20;  // a file or journal
inline constexpr std::size_t kMaxRunStringBytes = 64 * 1024;                    // one string or key
inline constexpr std::size_t kMaxParamsPerRecord = 64;
inline constexpr std::size_t kMaxParamNamesPerProbe = 1024;  // distinct names over a probe's records
// The whole text of a run file or journal, inflated when it is gzip-compressed (data/measured's
// *.json.gz): UserError when it is not a regular file (a FIFO, /dev/zero), is or inflates to more
// than kMaxRunFileBytes, is a damaged gzip file, or cannot be read.
std::string read_run_text(const std::string& path);
// UserError naming `source_name` when the records pass the per-record or per-probe limits.
void check_run_limits(const std::vector<Record>& records, const std::string& source_name);
// JSON text parsed with those limits: UserError naming `source_name` when it nests deeper or holds a
// longer string; other
// parse errors as json::parse gives them (or a discarded value without exceptions).
nlohmann::json parse_run_json(const std::string& text, const std::string& source_name, bool allow_exceptions = true);
// Throws UserError naming the file and what is wrong (not JSON, wrong schema version, missing field).
RunDocument run_from_json(const nlohmann::json& j, const std::string& source_name);
// Reads a run file or a run journal (.jsonl, also the journal of a run that was killed).
RunDocument read_run_file(const std::string& path);
// Every file read and checked before anything is done with them: a path that is neither a run
// file (.json) nor a journal (.jsonl) is a UserError saying "nothing was <done>".
std::vector<RunDocument> read_run_files(const std::vector<std::string>& paths, const std::string& done);
// A glob over a results folder as `import` takes it: the run files and journals among other files.
// A file that is plainly not a run (another extension, or JSON another tool wrote) is skipped,
// with the reason; a file that should be a run and is not readable (not JSON, a broken record,
// an unsupported schema) is still a UserError, so a damaged run is never passed over quietly.
struct SkippedFile {
  std::string path;
  std::string reason;
};
struct RunFiles {
  std::vector<RunDocument> docs;
  std::vector<std::string> paths;  // the file each of docs came from
  std::vector<SkippedFile> skipped;
};
RunFiles read_run_files_among_others(const std::vector<std::string>& paths);
// One run given more than once (a file named twice, a run file and its journal: the same run_id
// and the same measurements) is kept once, where it first came; each repeat is removed from docs
// and paths and returned with the file it repeats. A fleet of `merge A.json A.json` is one GPU,
// not two. Two files whose runs share an id but not their measurements are UserError: one would
// silently stand for the other (issue 36 item 5).
std::vector<SkippedFile> drop_repeated_runs(std::vector<RunDocument>& docs, std::vector<std::string>& paths);
// True when two documents hold the same run's measurements: start time, and per record its id,
// params, status and each metric's name, unit, median and sample count. What a run adds at its end
// (finished_at, gpu_state, timing) and a database's copy of the run may differ.
bool same_measurements(const RunDocument& a, const RunDocument& b);
// Writes via a temporary file and rename, so a reader never sees a half-written file.
void write_run_file_atomic(const std::string& path, const RunDocument& doc);


std::string utc_now_iso8601();

}  // namespace gd
