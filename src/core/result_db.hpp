// SQLite store of every run, so runs, GPUs and reference datasets can be compared with one
// query. The JSON run file stays the source of truth; the database is an index over runs.
//
// Tables: runs (one row per run, device identity pulled out of device_json), records (one
// row per record, seq = its index in the run file), metrics (one row per metric of a record),
// and the view metric_view joining them. Comparing GPUs on one probe is one query:
//
//   SELECT gpu_name, params_json, value, unit FROM metric_view
//   WHERE id = 'latency.alu.ffma' AND metric = 'latency/cycles' AND status = 'ok'
//   ORDER BY params_json, gpu_name;
//
// and the same number side by side for two GPUs:
//
//   SELECT a.params_json, a.value AS a, b.value AS b, b.value / a.value AS ratio
//   FROM metric_view a JOIN metric_view b USING (id, params_json, metric)
//   WHERE a.gpu_name = 'NVIDIA H100 80GB HBM3' AND b.gpu_name = 'NVIDIA H200'
//     AND a.metric = 'bandwidth/triad/tbps';
//
// params_json is canonical (keys sorted, compact), so equal sweep points compare equal as text.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/executor.hpp"
#include "core/run_file.hpp"

struct sqlite3;

namespace gd {

// Bumped whenever a table or view changes; kept in PRAGMA user_version.
// 2: record provenance (kernels, convergence, clock source); 3: metric quartiles and sketch.
inline constexpr int kDbSchemaVersion = 3;

// Sink that stores a run as it happens: the run row at construction, each record in its own
// transaction (an interrupted run keeps every finished record), the finish state at the end.
class ResultDb : public RecordSink {
 public:
  // Opens or creates the database at `path` and registers the run described by `header`
  // (its records, if any, are not stored). Throws UserError when the file cannot be opened,
  // is not a gpudissect database, has another schema version, or already holds this run id.
  ResultDb(const std::string& path, const RunDocument& header);
  ~ResultDb() override;
  ResultDb(const ResultDb&) = delete;
  ResultDb& operator=(const ResultDb&) = delete;

  void on_record(const Record& r) override;  // throws gd::Error when SQLite fails
  void on_finish(bool complete) override;    // finished_at = now
  const std::string& path() const { return path_; }
  // This connection's PRAGMA synchronous (0: off): records are not synced one by one.
  int synchronous_mode() const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  std::string run_id_;
  int next_seq_ = 0;
};

// How `run` feeds its database. The database is a copy of the run for queries; the run journal is
// the record. A database that cannot be written (a full disk, a lock, damage) is no longer
// appended to and the run goes on: its run file is written whole, and `run` exits 74 at the end
// naming the import that repairs the database.
class DbCopySink : public RecordSink {
 public:
  explicit DbCopySink(ResultDb& db) : db_(db) {}
  void on_record(const Record& r) override;
  void on_finish(bool complete) override;
  // What failed first; nullopt while every write succeeded.
  const std::optional<std::string>& error() const { return error_; }

 private:
  ResultDb& db_;
  std::optional<std::string> error_;
};

// Stores a whole run document (a run file, a reference dataset) in one transaction. A run already
// stored under the same id with the same measurements (same_measurements: the file of a run whose
// database copy was streamed, or one imported again) is replaced by it; one with other measurements
// is UserError unless `replace_different` (import --replace), since the stored run would be lost.
enum class ImportOutcome { Added, SameRunAgain, ReplacedDifferent };
ImportOutcome import_run(const std::string& db_path, const RunDocument& doc, bool replace_different = false);
// Several runs in one transaction: a refused run imports none of them.
std::vector<ImportOutcome> import_runs(const std::string& db_path, const std::vector<RunDocument>& docs,
                                       bool replace_different = false);
// Reads a run back. Throws UserError when the database or the run does not exist.
RunDocument load_run_from_db(const std::string& db_path, const std::string& run_id);
// Run ids in the database, oldest first.
std::vector<std::string> list_runs(const std::string& db_path);

}  // namespace gd
