#include "core/result_db.hpp"

#include <sqlite3.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>

#include "core/error.hpp"
#include "core/json_fields.hpp"

namespace gd {

using nlohmann::json;

namespace {

constexpr const char* kSchemaSql = R"sql(
CREATE TABLE runs (
  run_id        TEXT PRIMARY KEY,
  started_at    TEXT NOT NULL,
  finished_at   TEXT,              -- NULL while running, or when the run was cut short
  complete      INTEGER NOT NULL,
  tool_version  TEXT NOT NULL,
  git_revision  TEXT NOT NULL,
  gpu_name      TEXT,
  gpu_uuid      TEXT,
  cc            INTEGER,           -- 10 * major + minor: 90 for Hopper, so "cc >= 90" works
  sm_count      INTEGER,
  options_json  TEXT NOT NULL,
  device_json   TEXT NOT NULL
);
CREATE TABLE records (
  run_id            TEXT NOT NULL REFERENCES runs(run_id),
  seq               INTEGER NOT NULL,  -- index of the record in the run file
  id                TEXT NOT NULL,
  category          TEXT NOT NULL,
  params_json       TEXT NOT NULL,
  status            TEXT NOT NULL,
  reason            TEXT NOT NULL,
  sass_status       TEXT NOT NULL,
  sass_detail       TEXT NOT NULL,
  derived           INTEGER NOT NULL,
  sm_clock_mhz      REAL,
  nvml_sm_clock_mhz REAL,
  elapsed_s         REAL,
  extra_json        TEXT NOT NULL,
  kernels_json      TEXT NOT NULL DEFAULT '[]',   -- mangled names of the kernels the point launched
  convergence_json  TEXT,                          -- how repetition ended; NULL when nothing repeated
  sm_clock_source   TEXT NOT NULL DEFAULT 'none',  -- in_kernel, from_points or none
  sm_clock_detail   TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE metrics (
  run_id  TEXT NOT NULL,
  seq     INTEGER NOT NULL,
  name    TEXT NOT NULL,
  unit    TEXT NOT NULL,
  value   REAL,                      -- the median, repeated for queries that want one number
  median  REAL,
  min     REAL,
  max     REAL,
  mean    REAL,
  stddev  REAL,
  n       INTEGER NOT NULL,
  q1      REAL,                      -- quartiles, NULL where unknown (n = 1, older runs)
  q3      REAL,
  sketch_json TEXT,                  -- Summary::sketch as a JSON array, NULL where none
  FOREIGN KEY (run_id, seq) REFERENCES records(run_id, seq)
);
CREATE INDEX metrics_by_record ON metrics(run_id, seq);
CREATE INDEX records_by_id ON records(id);
)sql";

// One row per metric value with what a comparison needs beside it: the GPU's UUID tells two
// cards of one model apart, and each value carries the SM clock it ran at. Kept apart from the
// tables so a migration can recreate it.
constexpr const char* kMetricViewSql = R"sql(
CREATE VIEW metric_view AS
  SELECT runs.gpu_name, runs.gpu_uuid, runs.run_id, runs.started_at, records.id, records.category,
         records.params_json, records.status, records.sass_status, records.derived,
         records.sm_clock_mhz, records.sm_clock_source,
         metrics.name AS metric, metrics.value, metrics.unit, metrics.min, metrics.max, metrics.n
  FROM runs
  JOIN records ON records.run_id = runs.run_id
  JOIN metrics ON metrics.run_id = records.run_id AND metrics.seq = records.seq;
)sql";

std::string db_path_of(sqlite3* db) {
  const char* f = sqlite3_db_filename(db, "main");
  return f ? f : "database";
}

// A write the disk refused (full, a file-size limit, an I/O error) is an output failure, exit 74 as
// README promises; anything else SQLite says is an error of its own (exit 3 as before).
[[noreturn]] void fail(sqlite3* db, const std::string& doing) {
  const std::string what = db_path_of(db) + ": " + doing + ": " + sqlite3_errmsg(db);
  const int code = sqlite3_errcode(db);
  if (code == SQLITE_FULL || code == SQLITE_IOERR) throw OutputError(what);
  throw Error(what);
}

void exec(sqlite3* db, const char* sql) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(db, "SQL failed");
}

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail(db, "SQL prepare failed");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& s) {
    return check(sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT));
  }
  // SQLite stores NaN as NULL anyway; saying so keeps the mapping visible at one place.
  Statement& bind(int i, double v) {
    return check(std::isnan(v) ? sqlite3_bind_null(stmt_, i) : sqlite3_bind_double(stmt_, i, v));
  }
  Statement& bind(int i, std::int64_t v) { return check(sqlite3_bind_int64(stmt_, i, v)); }
  Statement& bind(int i, const json& j) { return bind(i, j.dump(-1, ' ', false, json::error_handler_t::replace)); }
  Statement& bind_null(int i) { return check(sqlite3_bind_null(stmt_, i)); }

  // True while rows come back.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, "SQL step failed");
  }
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
  }
  double real(int col) const {
    return is_null(col) ? std::numeric_limits<double>::quiet_NaN() : sqlite3_column_double(stmt_, col);
  }
  std::int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }

 private:
  Statement& check(int rc) {
    if (rc != SQLITE_OK) fail(db_, "SQL bind failed");
    return *this;
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE takes the write lock up front, so two runs sharing one database queue
// behind the busy timeout instead of failing halfway through a record.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) { exec(db, "BEGIN IMMEDIATE"); }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    exec(db_, "COMMIT");
    done_ = true;
  }

 private:
  sqlite3* db_;
  bool done_ = false;
};

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbHandle = std::unique_ptr<sqlite3, CloseDb>;

enum class OpenMode { ReadOnly, Create };

int user_version(sqlite3* db, const std::string& path) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
  const int version = rc == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : 0;
  sqlite3_finalize(stmt);
  if (rc == SQLITE_NOTADB) throw UserError(path + ": not an SQLite database");
  if (rc != SQLITE_ROW) throw UserError(path + ": cannot open database: " + sqlite3_errmsg(db));
  return version;
}

bool has_tables(sqlite3* db) {
  Statement s(db, "SELECT count(*) FROM sqlite_master");
  s.step();
  return s.integer(0) > 0;
}

void create_schema_if_new(sqlite3* db) {
  Transaction tx(db);
  // Another process may have created it between our check and the write lock.
  if (has_tables(db)) return;
  exec(db, kSchemaSql);
  exec(db, kMetricViewSql);
  exec(db, ("PRAGMA user_version = " + std::to_string(kDbSchemaVersion)).c_str());
  tx.commit();
}

// Version 1 lacked the record provenance columns; adding them with their defaults keeps every
// stored run (its records read as "not recorded", like a version-1 run file).
void migrate_from_1(sqlite3* db) {
  Transaction tx(db);
  exec(db, "ALTER TABLE records ADD COLUMN kernels_json TEXT NOT NULL DEFAULT '[]';"
           "ALTER TABLE records ADD COLUMN convergence_json TEXT;"
           "ALTER TABLE records ADD COLUMN sm_clock_source TEXT NOT NULL DEFAULT 'none';"
           "ALTER TABLE records ADD COLUMN sm_clock_detail TEXT NOT NULL DEFAULT '';"
           "DROP VIEW metric_view;");
  exec(db, kMetricViewSql);
  exec(db, "PRAGMA user_version = 2;");
  tx.commit();
}

// Version 2 lacked the quartiles and sketch compare's rank test reads; stored metrics keep NULL
// there, as a run file written before them reads.
void migrate_from_2(sqlite3* db) {
  Transaction tx(db);
  exec(db, "ALTER TABLE metrics ADD COLUMN q1 REAL;"
           "ALTER TABLE metrics ADD COLUMN q3 REAL;"
           "ALTER TABLE metrics ADD COLUMN sketch_json TEXT;");
  exec(db, "PRAGMA user_version = 3;");
  tx.commit();
}

void check_schema(sqlite3* db, const std::string& path, OpenMode mode) {
  int version = user_version(db, path);
  if (version == 0 && !has_tables(db) && mode == OpenMode::Create) {
    create_schema_if_new(db);
    version = user_version(db, path);
  }
  if (version == 1) {
    migrate_from_1(db);
    version = user_version(db, path);
  }
  if (version == 2) {
    migrate_from_2(db);
    version = user_version(db, path);
  }
  if (version == 0)
    throw UserError(path + ": not a gpudissect database (no gpudissect schema version in it)");
  if (version != kDbSchemaVersion)
    throw UserError(path + ": database schema version " + std::to_string(version) +
                    " is not supported (this gpudissect uses version " + std::to_string(kDbSchemaVersion) + ")");
}

DbHandle open_db(const std::string& path, OpenMode mode) {
  std::error_code ec;
  if (mode == OpenMode::ReadOnly && !std::filesystem::exists(path, ec)) throw UserError(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw UserError(path + ": is a directory, expected a database file");
  const int flags = mode == OpenMode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  DbHandle db(raw);
  if (rc != SQLITE_OK)
    throw UserError(path + ": cannot open database: " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  sqlite3_busy_timeout(raw, 10000);
  check_schema(raw, path, mode);
  exec(raw, "PRAGMA foreign_keys = ON");
  return db;
}

void bind_device_identity(Statement& s, int first, const json& device) {
  const auto name = json_fields::nonempty_string(device, "name");
  const auto uuid = json_fields::nonempty_string(device, "uuid");
  const auto major = json_fields::integer_if(device, "cc_major"), minor = json_fields::integer_if(device, "cc_minor");
  const auto sms = json_fields::integer_if(device, "sm_count");
  name ? s.bind(first, *name) : s.bind_null(first);
  uuid ? s.bind(first + 1, *uuid) : s.bind_null(first + 1);
  major && minor ? s.bind(first + 2, std::int64_t{*major * 10 + *minor}) : s.bind_null(first + 2);
  sms ? s.bind(first + 3, *sms) : s.bind_null(first + 3);
}

bool run_exists(sqlite3* db, const std::string& run_id) {
  Statement s(db, "SELECT 1 FROM runs WHERE run_id = ?");
  s.bind(1, run_id);
  return s.step();
}

void insert_run_row(sqlite3* db, const RunDocument& doc) {
  Statement s(db,
              "INSERT INTO runs (run_id, started_at, finished_at, complete, tool_version, git_revision, "
              "gpu_name, gpu_uuid, cc, sm_count, options_json, device_json) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, doc.run_id).bind(2, doc.started_at);
  doc.finished_at.empty() ? s.bind_null(3) : s.bind(3, doc.finished_at);
  s.bind(4, std::int64_t{doc.complete}).bind(5, doc.tool_version).bind(6, doc.git_revision);
  bind_device_identity(s, 7, doc.device);
  s.bind(11, doc.options).bind(12, doc.device);
  s.step();
}

void insert_metric(Statement& s, const std::string& run_id, int seq, const Metric& m) {
  s.reset();
  s.bind(1, run_id).bind(2, std::int64_t{seq}).bind(3, m.name).bind(4, m.unit);
  s.bind(5, m.value()).bind(6, m.stats.median).bind(7, m.stats.min).bind(8, m.stats.max);
  s.bind(9, m.stats.mean).bind(10, m.stats.stddev).bind(11, static_cast<std::int64_t>(m.stats.n));
  s.bind(12, m.stats.q1).bind(13, m.stats.q3);
  if (m.stats.sketch.empty()) s.bind_null(14);
  else s.bind(14, json(m.stats.sketch));
  s.step();
}

void insert_record(sqlite3* db, const std::string& run_id, int seq, const Record& r) {
  Statement s(db,
              "INSERT INTO records (run_id, seq, id, category, params_json, status, reason, sass_status, "
              "sass_detail, derived, sm_clock_mhz, nvml_sm_clock_mhz, elapsed_s, extra_json, kernels_json, "
              "convergence_json, sm_clock_source, sm_clock_detail) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, run_id).bind(2, std::int64_t{seq}).bind(3, r.id).bind(4, r.category).bind(5, to_json(r.params));
  s.bind(6, to_string(r.status)).bind(7, r.reason).bind(8, to_string(r.sass.status)).bind(9, r.sass.detail);
  s.bind(10, std::int64_t{r.derived}).bind(11, r.sm_clock_mhz).bind(12, r.nvml_sm_clock_mhz);
  s.bind(13, r.elapsed_s).bind(14, r.extra).bind(15, json(r.kernels));
  if (r.convergence.recorded) s.bind(16, to_json(r.convergence));
  s.bind(17, to_string(r.sm_clock_source)).bind(18, r.sm_clock_detail);
  s.step();
  Statement m(db,
              "INSERT INTO metrics (run_id, seq, name, unit, value, median, min, max, mean, stddev, n, q1, q3, sketch_json) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const Metric& metric : r.metrics) insert_metric(m, run_id, seq, metric);
}

void delete_run(sqlite3* db, const std::string& run_id) {
  for (const char* sql : {"DELETE FROM metrics WHERE run_id = ?", "DELETE FROM records WHERE run_id = ?",
                          "DELETE FROM runs WHERE run_id = ?"}) {
    Statement s(db, sql);
    s.bind(1, run_id);
    s.step();
  }
}

std::int64_t run_count(sqlite3* db) {
  Statement s(db, "SELECT count(*) FROM runs");
  s.step();
  return s.integer(0);
}

void load_run_row(sqlite3* db, const std::string& path, RunDocument& doc) {
  Statement s(db,
              "SELECT started_at, finished_at, complete, tool_version, git_revision, options_json, device_json "
              "FROM runs WHERE run_id = ?");
  s.bind(1, doc.run_id);
  if (!s.step())
    throw UserError(path + ": no run '" + doc.run_id + "' (the database holds " + std::to_string(run_count(db)) +
                    " runs)");
  doc.started_at = s.text(0);
  doc.finished_at = s.is_null(1) ? "" : s.text(1);
  doc.complete = s.integer(2) != 0;
  doc.tool_version = s.text(3);
  doc.git_revision = s.text(4);
  doc.options = json::parse(s.text(5));
  doc.device = json::parse(s.text(6));
}

Record record_from_row(const Statement& s) {
  Record r;
  r.id = s.text(1);
  r.category = s.text(2);
  r.params = params_from_json(json::parse(s.text(3)));
  r.status = status_from_string(s.text(4));
  r.reason = s.text(5);
  r.sass.status = sass_status_from_string(s.text(6));
  r.sass.detail = s.text(7);
  r.derived = s.integer(8) != 0;
  r.sm_clock_mhz = s.real(9);
  r.nvml_sm_clock_mhz = s.real(10);
  r.elapsed_s = s.real(11);
  r.extra = json::parse(s.text(12));
  for (const json& k : json::parse(s.text(13))) r.kernels.push_back(k.get<std::string>());
  if (!s.is_null(14)) {
    const json c = json::parse(s.text(14));
    r.convergence = {true, c.at("converged").get<bool>(), c.at("stop_reason").get<std::string>(),
                     c.at("n").get<std::size_t>(), c.at("measurements").get<int>()};
  }
  r.sm_clock_source = clock_source_from_string(s.text(15));
  r.sm_clock_detail = s.text(16);
  return r;
}

Metric metric_from_row(const Statement& s) {
  Metric m;
  m.name = s.text(1);
  m.unit = s.text(2);
  m.stats.median = s.real(3);
  m.stats.min = s.real(4);
  m.stats.max = s.real(5);
  m.stats.mean = s.real(6);
  m.stats.stddev = s.real(7);
  m.stats.n = static_cast<std::size_t>(s.integer(8));
  m.stats.q1 = s.real(9);
  m.stats.q3 = s.real(10);
  if (!s.is_null(11))
    for (const json& v : json::parse(s.text(11))) m.stats.sketch.push_back(v.get<double>());
  return m;
}

void load_records(sqlite3* db, RunDocument& doc) {
  std::map<std::int64_t, std::size_t> index_of_seq;
  Statement rs(db,
               "SELECT seq, id, category, params_json, status, reason, sass_status, sass_detail, derived, "
               "sm_clock_mhz, nvml_sm_clock_mhz, elapsed_s, extra_json, kernels_json, convergence_json, sm_clock_source, "
               "sm_clock_detail FROM records WHERE run_id = ? ORDER BY seq");
  rs.bind(1, doc.run_id);
  while (rs.step()) {
    index_of_seq[rs.integer(0)] = doc.records.size();
    doc.records.push_back(record_from_row(rs));
  }
  Statement ms(db,
               "SELECT seq, name, unit, median, min, max, mean, stddev, n, q1, q3, sketch_json FROM metrics WHERE run_id = ? "
               "ORDER BY seq, rowid");
  ms.bind(1, doc.run_id);
  while (ms.step()) {
    auto it = index_of_seq.find(ms.integer(0));
    if (it != index_of_seq.end()) doc.records[it->second].metrics.push_back(metric_from_row(ms));
  }
}

}  // namespace

ResultDb::ResultDb(const std::string& path, const RunDocument& header) : path_(path), run_id_(header.run_id) {
  DbHandle db = open_db(path, OpenMode::Create);
  Transaction tx(db.get());
  if (run_exists(db.get(), run_id_)) throw UserError(path + ": run id '" + run_id_ + "' is already stored");
  insert_run_row(db.get(), header);
  tx.commit();
  // Each record's commit would otherwise fsync the database and its rollback journal twice
  // (about 18 ms on the H200 machine's disk, a fifth of a quick run). The durable copy of every
  // record is the run journal, fsync'd line by line (`gpudissect recover`); without syncs a killed
  // process still leaves a consistent database, and only an OS crash mid-write could damage it,
  // which `gpudissect import` of the run files repairs.
  exec(db.get(), "PRAGMA synchronous = OFF");
  db_ = db.release();
}

ResultDb::~ResultDb() { sqlite3_close_v2(db_); }

void ResultDb::on_record(const Record& r) {
  // The seq follows the run file's record index even if an earlier insert failed.
  const int seq = next_seq_++;
  Transaction tx(db_);
  insert_record(db_, run_id_, seq, r);
  tx.commit();
}

int ResultDb::synchronous_mode() const {
  Statement s(db_, "PRAGMA synchronous");
  s.step();
  return int(s.integer(0));
}

void ResultDb::on_finish(bool complete) {
  Statement s(db_, "UPDATE runs SET finished_at = ?, complete = ? WHERE run_id = ?");
  s.bind(1, utc_now_iso8601()).bind(2, std::int64_t{complete}).bind(3, run_id_);
  s.step();
}

void DbCopySink::on_record(const Record& r) {
  if (error_) return;
  try {
    db_.on_record(r);
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

void DbCopySink::on_finish(bool complete) {
  if (error_) return;
  try {
    db_.on_finish(complete);
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

namespace {

ImportOutcome import_in(sqlite3* db, const std::string& db_path, const RunDocument& doc, bool replace_different) {
  ImportOutcome outcome = ImportOutcome::Added;
  if (run_exists(db, doc.run_id)) {
    RunDocument stored;
    stored.run_id = doc.run_id;
    load_run_row(db, db_path, stored);
    load_records(db, stored);
    outcome = same_measurements(stored, doc) ? ImportOutcome::SameRunAgain : ImportOutcome::ReplacedDifferent;
    if (outcome == ImportOutcome::ReplacedDifferent && !replace_different)
      throw UserError(db_path + " already holds a run with id '" + doc.run_id + "' (" +
                      std::to_string(stored.records.size()) + " records, started " + stored.started_at +
                      ") whose measurements differ from this one's (" + std::to_string(doc.records.size()) +
                      " records, started " + doc.started_at + "): importing would replace it; nothing was imported "
                      "(import --replace replaces it on purpose, e.g. with a resummarized run)");
    delete_run(db, doc.run_id);
  }
  insert_run_row(db, doc);
  for (std::size_t i = 0; i < doc.records.size(); ++i) insert_record(db, doc.run_id, static_cast<int>(i), doc.records[i]);
  return outcome;
}

}  // namespace

std::vector<ImportOutcome> import_runs(const std::string& db_path, const std::vector<RunDocument>& docs,
                                       bool replace_different) {
  DbHandle db = open_db(db_path, OpenMode::Create);
  Transaction tx(db.get());
  std::vector<ImportOutcome> outcomes;
  for (const RunDocument& doc : docs) outcomes.push_back(import_in(db.get(), db_path, doc, replace_different));
  tx.commit();
  return outcomes;
}

ImportOutcome import_run(const std::string& db_path, const RunDocument& doc, bool replace_different) {
  return import_runs(db_path, {doc}, replace_different).front();
}

RunDocument load_run_from_db(const std::string& db_path, const std::string& run_id) {
  DbHandle db = open_db(db_path, OpenMode::ReadOnly);
  RunDocument doc;
  doc.run_id = run_id;
  try {
    load_run_row(db.get(), db_path, doc);
    load_records(db.get(), doc);
  } catch (const json::exception& e) {
    throw UserError(db_path + ": run '" + run_id + "' holds malformed JSON: " + e.what());
  } catch (const std::invalid_argument& e) {
    throw UserError(db_path + ": run '" + run_id + "': " + e.what());
  }
  return doc;
}

std::vector<std::string> list_runs(const std::string& db_path) {
  DbHandle db = open_db(db_path, OpenMode::ReadOnly);
  Statement s(db.get(), "SELECT run_id FROM runs ORDER BY started_at, run_id");
  std::vector<std::string> ids;
  while (s.step()) ids.push_back(s.text(0));
  return ids;
}

}  // namespace gd
