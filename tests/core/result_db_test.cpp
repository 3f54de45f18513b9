#include "core/result_db.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <signal.h>
#include <sys/resource.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "support/sample_run.hpp"

namespace gd {
namespace {

using test_support::canonical;
using test_support::TempDir;
using test_support::user_error_of;


// Raw SQL against the file, as a user comparing runs would do.
std::vector<std::vector<std::string>> query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  std::vector<std::vector<std::string>> rows;
  auto collect = [](void* out, int n, char** values, char**) {
    auto& r = *static_cast<std::vector<std::vector<std::string>>*>(out);
    r.emplace_back();
    for (int i = 0; i < n; ++i) r.back().push_back(values[i] ? values[i] : "NULL");
    return 0;
  };
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), collect, &rows, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
  return rows;
}

using test_support::header_of;

TEST(ResultDb, ImportThenLoadIsTheSameDocument) {
  TempDir dir;
  const RunDocument doc = test_support::sample_run();
  import_run(dir.file("r.db"), doc);
  const RunDocument back = load_run_from_db(dir.file("r.db"), doc.run_id);
  EXPECT_EQ(canonical(back), canonical(doc));
  EXPECT_TRUE(std::isnan(back.records[2].metrics[0].stats.stddev));
  EXPECT_EQ(back.records[3].metrics[1].name, "bandwidth/percent_of_theoretical") << "metric order is kept";
  EXPECT_EQ(back.records[2].extra["points"], 2);
}

TEST(ResultDb, FixtureRoundTripsThroughSqlite) {
  TempDir dir;
  const RunDocument doc = read_run_file(test_support::fixture("runs/h200_small.json"));
  import_run(dir.file("r.db"), doc);
  EXPECT_EQ(canonical(load_run_from_db(dir.file("r.db"), doc.run_id)), canonical(doc));
  const auto run = query(dir.file("r.db"), "SELECT gpu_name, gpu_uuid, cc, sm_count, complete FROM runs");
  ASSERT_EQ(run.size(), 1u);
  EXPECT_EQ(run[0], (std::vector<std::string>{"NVIDIA H200", "GPU-5e1a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8", "90", "132", "1"}));
}

TEST(ResultDb, SinkStoresEachRecordAndTheFinish) {
  TempDir dir;
  const RunDocument doc = test_support::sample_run();
  {
    ResultDb db(dir.file("r.db"), header_of(doc));
    EXPECT_EQ(db.path(), dir.file("r.db"));
    for (const Record& r : doc.records) db.on_record(r);
    db.on_finish(true);
  }
  const RunDocument back = load_run_from_db(dir.file("r.db"), doc.run_id);
  EXPECT_TRUE(back.complete);
  EXPECT_FALSE(back.finished_at.empty());
  RunDocument expected = doc;
  expected.finished_at = back.finished_at;
  EXPECT_EQ(canonical(back), canonical(expected));
}

TEST(ResultDb, InterruptedRunKeepsFinishedRecords) {
  TempDir dir;
  const RunDocument doc = test_support::sample_run();
  {
    ResultDb db(dir.file("r.db"), header_of(doc));
    db.on_record(doc.records[0]);
    db.on_record(doc.records[1]);
  }  // no on_finish: the run was cut short
  const RunDocument back = load_run_from_db(dir.file("r.db"), doc.run_id);
  EXPECT_FALSE(back.complete);
  EXPECT_TRUE(back.finished_at.empty());
  ASSERT_EQ(back.records.size(), 2u);
  EXPECT_EQ(to_json(back.records[1]), to_json(doc.records[1]));
}

// A commit that syncs costs about 18 ms on a VM disk, a fifth of a quick run; the run journal is
// the durable copy. The sink's records still reach the database (InterruptedRunKeepsFinishedRecords).
TEST(ResultDb, SinkDoesNotSyncEachRecord) {
  TempDir dir;
  const RunDocument doc = test_support::sample_run();
  ResultDb db(dir.file("r.db"), header_of(doc));
  EXPECT_EQ(db.synchronous_mode(), 0);
}

// `run`'s database is a copy: once it cannot be written the copy stops, the run does not.
TEST(ResultDb, ACopySinkThatFailsRemembersWhyAndStopsWithoutThrowing) {
  TempDir dir;
  const RunDocument doc = test_support::sample_run();
  ResultDb db(dir.file("r.db"), header_of(doc));
  DbCopySink copy(db);
  copy.on_record(doc.records[0]);
  EXPECT_FALSE(copy.error());
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto previous = ::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = std::filesystem::file_size(dir.file("r.db"));  // not one byte more
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  for (int i = 0; i < 50; ++i) EXPECT_NO_THROW(copy.on_record(doc.records[std::size_t(i) % doc.records.size()]));
  EXPECT_NO_THROW(copy.on_finish(true));
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, previous);
  ASSERT_TRUE(copy.error());
  EXPECT_NE(copy.error()->find(dir.file("r.db")), std::string::npos) << *copy.error();
}

// Importing a run whose id is stored already replaced the stored run (237 records became 1) with
// no word (issue 36 item 5). The same run again is refreshed; other measurements under that id are
// refused unless replaced on purpose, and a refused run in a batch imports none of the batch.
TEST(ResultDb, AStoredRunIsNeverSilentlyReplacedByAnotherWithItsId) {
  TempDir dir;
  const std::string db = dir.file("r.db");
  const RunDocument doc = test_support::sample_run();
  EXPECT_EQ(import_run(db, doc), ImportOutcome::Added);
  RunDocument finished_later = doc;
  finished_later.finished_at = "2030-01-01T00:00:00Z";
  EXPECT_EQ(import_run(db, finished_later), ImportOutcome::SameRunAgain);
  RunDocument impostor = doc;
  impostor.records.resize(1);
  const std::string msg = user_error_of([&] { import_run(db, impostor); });
  EXPECT_NE(msg.find("already holds a run with id '" + doc.run_id + "'"), std::string::npos) << msg;
  EXPECT_EQ(load_run_from_db(db, doc.run_id).records.size(), doc.records.size()) << "the stored run is intact";
  RunDocument fresh = doc;
  fresh.run_id = "run-fresh";
  EXPECT_NE(user_error_of([&] { import_runs(db, {fresh, impostor}); }), "<no UserError>");
  EXPECT_EQ(list_runs(db).size(), 1u) << "a refused run imports none of its batch";
  EXPECT_EQ(import_run(db, impostor, true), ImportOutcome::ReplacedDifferent);
  EXPECT_EQ(load_run_from_db(db, doc.run_id).records.size(), 1u);
}

// `import` into a database the disk cannot take is exit 74 (OutputError), not 3 ("no GPU").
TEST(ResultDb, AnImportTheDiskRefusesIsAnOutputError) {
  TempDir dir;
  const RunDocument doc = test_support::sample_run();
  import_run(dir.file("r.db"), doc);
  RunDocument more = doc;
  more.run_id = "run-more";
  for (int i = 0; i < 200; ++i) more.records.push_back(doc.records[std::size_t(i) % doc.records.size()]);
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto previous = ::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = std::filesystem::file_size(dir.file("r.db"));
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    import_run(dir.file("r.db"), more);
  } catch (const OutputError& e) {
    message = e.what();
  } catch (const std::exception& e) {
    message = std::string("not an OutputError: ") + e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, previous);
  EXPECT_EQ(message.rfind(dir.file("r.db") + ": ", 0), 0u) << message;
  EXPECT_EQ(list_runs(dir.file("r.db")), std::vector<std::string>{doc.run_id}) << "nothing of the failed import stays";
}

TEST(ResultDb, ManyRunsAndOneQueryComparesGpus) {
  TempDir dir;
  RunDocument h100 = test_support::sample_run();
  h100.run_id = "run-h100";
  h100.started_at = "2025-01-01T00:00:00Z";
  h100.device = test_support::device("NVIDIA H100", 9, 132);
  h100.records[3].metrics[0].stats.median = 3.2;
  RunDocument h200 = test_support::sample_run();
  h200.run_id = "run-h200";
  import_run(dir.file("r.db"), h200);
  import_run(dir.file("r.db"), h100);
  EXPECT_EQ(list_runs(dir.file("r.db")), (std::vector<std::string>{"run-h100", "run-h200"})) << "oldest first";

  const auto rows = query(dir.file("r.db"),
                          "SELECT gpu_name, value, unit FROM metric_view WHERE id = 'memory.bandwidth.dram' "
                          "AND metric = 'bandwidth/tbps' ORDER BY gpu_name");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"NVIDIA H100", "3.2", "TB/s"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"NVIDIA H200", "4.512", "TB/s"}));
  const auto pair = query(dir.file("r.db"),
                          "SELECT b.value / a.value FROM metric_view a JOIN metric_view b USING (id, params_json, metric) "
                          "WHERE a.gpu_name = 'NVIDIA H100' AND b.gpu_name = 'NVIDIA H200' AND a.metric = 'bandwidth/tbps'");
  ASSERT_EQ(pair.size(), 1u);
  EXPECT_NEAR(std::stod(pair[0][0]), 4.512 / 3.2, 1e-12);
}

TEST(ResultDb, MetricViewTellsCardsApartAndCarriesTheClock) {
  TempDir dir;
  import_run(dir.file("r.db"), test_support::sample_run());
  const auto rows = query(dir.file("r.db"),
                          "SELECT gpu_uuid, sm_clock_mhz, sm_clock_source FROM metric_view WHERE metric = 'bandwidth/tbps'");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"GPU-0123", "1980.0", "in_kernel"}));
}

// A version-1 database (before records carried kernels, convergence and clock source) is
// migrated in place on first use, keeping its runs.
TEST(ResultDb, AVersion1DatabaseIsMigratedInPlace) {
  TempDir dir;
  const std::string path = dir.file("old.db");
  import_run(path, test_support::sample_run());
  // Turn it back into version 1: the provenance columns and the view's new columns are gone.
  query(path, "DROP VIEW metric_view;"
              "ALTER TABLE records DROP COLUMN kernels_json; ALTER TABLE records DROP COLUMN convergence_json;"
              "ALTER TABLE records DROP COLUMN sm_clock_source; ALTER TABLE records DROP COLUMN sm_clock_detail;"
              "ALTER TABLE metrics DROP COLUMN q1; ALTER TABLE metrics DROP COLUMN q3; ALTER TABLE metrics DROP COLUMN sketch_json;"
              "CREATE VIEW metric_view AS SELECT runs.gpu_name, metrics.name AS metric FROM runs "
              "JOIN metrics ON metrics.run_id = runs.run_id; PRAGMA user_version = 1;");
  RunDocument second = test_support::sample_run();
  second.run_id = "second";
  import_run(path, second);
  EXPECT_EQ(query(path, "PRAGMA user_version")[0][0], "3");
  EXPECT_EQ(list_runs(path).size(), 2u);
  const auto rows = query(path, "SELECT count(*) FROM metric_view WHERE gpu_uuid = 'GPU-0123' AND sm_clock_source = 'none'");
  EXPECT_EQ(rows[0][0], "5") << "the old run's records read as 'not recorded'";
}

// A version-2 database (before metrics kept quartiles and a sketch) gains the columns, NULL for
// what it stored; a run imported after keeps them through the database.
TEST(ResultDb, AVersion2DatabaseGainsQuartilesAndSketches) {
  TempDir dir;
  const std::string path = dir.file("old.db");
  import_run(path, test_support::sample_run());
  query(path, "ALTER TABLE metrics DROP COLUMN q1; ALTER TABLE metrics DROP COLUMN q3;"
              "ALTER TABLE metrics DROP COLUMN sketch_json; PRAGMA user_version = 2;");
  RunDocument second = test_support::sample_run();
  second.run_id = "second";
  const double samples[] = {4.0, 1.0, 3.0, 2.0, 5.0};
  second.records[0].metrics[0].stats = summarize(samples);
  import_run(path, second);
  EXPECT_EQ(query(path, "PRAGMA user_version")[0][0], "3");
  EXPECT_EQ(query(path, "SELECT count(*) FROM metrics WHERE run_id = 'second' AND sketch_json IS NOT NULL")[0][0], "1");
  const Summary back = load_run_from_db(path, "second").records[0].metrics[0].stats;
  EXPECT_EQ(back.sketch, (std::vector<double>{1, 2, 3, 4, 5}));
  EXPECT_DOUBLE_EQ(back.q1, 2.0);
  EXPECT_DOUBLE_EQ(back.q3, 4.0);
  EXPECT_TRUE(load_run_from_db(path, test_support::sample_run().run_id).records[0].metrics[0].stats.sketch.empty());
}

TEST(ResultDb, NaNIsStoredAsNull) {
  TempDir dir;
  import_run(dir.file("r.db"), test_support::sample_run());
  const auto rows = query(dir.file("r.db"), "SELECT stddev FROM metrics WHERE name = 'latency/cycles'");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "NULL");
}

TEST(ResultDb, ImportReplacesButTheSinkRefusesADuplicateRun) {
  TempDir dir;
  const RunDocument doc = test_support::sample_run();
  import_run(dir.file("r.db"), doc);
  import_run(dir.file("r.db"), doc);
  EXPECT_EQ(query(dir.file("r.db"), "SELECT count(*) FROM records")[0][0], std::to_string(doc.records.size()));
  EXPECT_EQ(query(dir.file("r.db"), "SELECT count(*) FROM metrics")[0][0], "5");
  EXPECT_EQ(user_error_of([&] { ResultDb db(dir.file("r.db"), header_of(doc)); }),
            dir.file("r.db") + ": run id '" + doc.run_id + "' is already stored");
}

TEST(ResultDb, OtherSchemaVersionIsRefused) {
  TempDir dir;
  import_run(dir.file("r.db"), test_support::sample_run());
  query(dir.file("r.db"), "PRAGMA user_version = 7");
  const std::string msg = user_error_of([&] { list_runs(dir.file("r.db")); });
  EXPECT_EQ(msg, dir.file("r.db") + ": database schema version 7 is not supported (this gpudissect uses version " +
                     std::to_string(kDbSchemaVersion) + ")");
  RunDocument other = test_support::sample_run();
  other.run_id = "other";
  EXPECT_EQ(user_error_of([&] { ResultDb db(dir.file("r.db"), other); }), msg);
}

TEST(ResultDb, ForeignFilesAreRefused) {
  TempDir dir;
  query(dir.file("foreign.db"), "CREATE TABLE t (x)");
  EXPECT_NE(user_error_of([&] { import_run(dir.file("foreign.db"), test_support::sample_run()); })
                .find("not a gpudissect database"),
            std::string::npos);
  std::ofstream(dir.file("run.json")) << "{\"schema_version\": 1, \"padding\": \"" << std::string(200, 'x') << "\"}\n";
  EXPECT_EQ(user_error_of([&] { list_runs(dir.file("run.json")); }), dir.file("run.json") + ": not an SQLite database");
}

TEST(ResultDb, UnopenablePathsAreUserErrors) {
  TempDir dir;
  const std::string in_missing_dir = dir.file("missing/r.db");
  EXPECT_EQ(user_error_of([&] { ResultDb db(in_missing_dir, test_support::sample_run()); }),
            in_missing_dir + ": cannot open database: unable to open database file");
  EXPECT_NE(user_error_of([&] { import_run(dir.path().string(), test_support::sample_run()); }).find("is a directory"),
            std::string::npos);
  EXPECT_EQ(user_error_of([&] { list_runs(dir.file("absent.db")); }), dir.file("absent.db") + ": no such file");
  EXPECT_FALSE(std::filesystem::exists(dir.file("absent.db"))) << "reading must not create a database";
}

TEST(ResultDb, UnknownRunIsAUserError) {
  TempDir dir;
  import_run(dir.file("r.db"), test_support::sample_run());
  EXPECT_EQ(user_error_of([&] { load_run_from_db(dir.file("r.db"), "nope"); }),
            dir.file("r.db") + ": no run 'nope' (the database holds 1 runs)");
}

}  // namespace
}  // namespace gd
