// `merge` and `recover` in process: rank files into one database and a fleet report; the run
// file of a killed run from its journal.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "cli/commands.hpp"
#include "core/result_db.hpp"
#include "core/run_file.hpp"
#include "core/run_journal.hpp"
#include "support/cli.hpp"
#include "support/sample_run.hpp"
#include "support/text.hpp"

namespace gd {
namespace {

using test_support::TempDir;

using test_support::run_cli;

// A rank's file as a Slurm job leaves it: the sample run on GPU `index`, bandwidth scaled.
std::string write_rank(const TempDir& dir, int index, double scale, bool journal_only = false) {
  RunDocument d = test_support::sample_run();
  d.run_id = "rank-" + std::to_string(index);
  d.device["index"] = index;
  d.device["uuid"] = "GPU-rank" + std::to_string(index);
  for (Record& r : d.records)
    for (Metric& m : r.metrics)
      if (m.name == "bandwidth/tbps") m.stats.median *= scale;
  if (!journal_only) {
    const std::string path = dir.file("rank" + std::to_string(index) + ".json");
    write_run_file_atomic(path, d);
    return path;
  }
  const std::string path = dir.file("rank" + std::to_string(index) + ".jsonl");
  RunDocument header = d;
  header.records.clear();
  RunJournal j(path, header);
  for (const Record& r : d.records) j.on_record(r);  // killed before its finish line
  return path;
}

TEST(MergeCommand, RankFilesBecomeOneDatabaseAndAFleetReport) {
  TempDir dir;
  const std::vector<std::string> files = {write_rank(dir, 0, 1.0), write_rank(dir, 1, 1.01), write_rank(dir, 2, 0.8, true),
                                          write_rank(dir, 3, 0.99)};
  std::vector<std::string> args = {"merge"};
  args.insert(args.end(), files.begin(), files.end());
  args.insert(args.end(), {"--db", dir.file("fleet/fleet.db"), "--out", dir.file("fleet.md")});
  EXPECT_EQ(run_cli(args), 0);
  EXPECT_EQ(list_runs(dir.file("fleet/fleet.db")).size(), 4u);
  const std::string md = read_text(dir.file("fleet.md"));
  EXPECT_NE(md.find("# gpudissect fleet report: 4 GPU(s)"), std::string::npos) << md;
  EXPECT_NE(md.find("#2 GPU-rank2 (-19.6"), std::string::npos) << "the slow rank is flagged:\n" << md;
  EXPECT_EQ(md.find("#1 GPU-rank1 ("), std::string::npos) << "a 1 % difference is no outlier:\n" << md;
}

// `merge A.json A.json A.json` reported three GPUs (one UUID) while the database held one run.
TEST(MergeCommand, ARunGivenTwiceIsMergedOnce) {
  TempDir dir;
  const std::string a = write_rank(dir, 0, 1.0), b = write_rank(dir, 1, 0.5);
  testing::internal::CaptureStderr();
  const int rc = run_cli({"merge", a, a, b, a, "--db", dir.file("fleet.db"), "--out", dir.file("fleet.md")});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 0) << err;
  EXPECT_EQ(list_runs(dir.file("fleet.db")).size(), 2u);
  const std::string md = read_text(dir.file("fleet.md"));
  EXPECT_NE(md.find("# gpudissect fleet report: 2 GPU(s)"), std::string::npos) << md;
  EXPECT_EQ(md.find("(run rank-0)"), std::string::npos) << "one run is not told apart from itself:\n" << md;
  EXPECT_NE(err.find(a + " is the same run (rank-0) as " + a + ": merged once"), std::string::npos) << err;
  EXPECT_NE(err.find("merged 2 run(s)"), std::string::npos) << err;
}

TEST(ImportCommand, ARunGivenTwiceIsImportedOnce) {
  TempDir dir;
  const std::string a = write_rank(dir, 0, 1.0);
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  const int rc = run_cli({"import", a, a, "--db", dir.file("r.db")});
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 0) << err;
  EXPECT_EQ(list_runs(dir.file("r.db")).size(), 1u);
  EXPECT_EQ(out.find("imported rank-0"), out.rfind("imported rank-0")) << "imported once:\n" << out;
  EXPECT_NE(err.find("is the same run (rank-0)"), std::string::npos) << err;
}

// data/measured keeps its runs as .json.gz, which every reader inflates; merge and import refused
// the name ("run files end in .json") before reading a byte.
TEST(MergeCommand, GzipCompressedRunsAreRuns) {
  TempDir dir;
  const std::string run = std::string(GPUDISSECT_SOURCE_DIR) + "/data/measured/nvidia-h200-2026-12-03-noise-r1.json.gz";
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  const int merged = run_cli({"merge", run, "--db", dir.file("fleet.db"), "--out", dir.file("fleet.md")});
  const int imported = run_cli({"import", run, "--db", dir.file("r.db")});
  testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(merged, 0) << err;
  EXPECT_EQ(imported, 0) << err;
  EXPECT_EQ(list_runs(dir.file("r.db")).size(), 1u);
  EXPECT_EQ(err.find("not a run file"), std::string::npos) << err;
}

TEST(MergeCommand, OtherFilesAreRefused) {
  TempDir dir;
  EXPECT_THROW(run_cli({"merge", write_rank(dir, 0, 1.0), dir.file("run.md")}), UserError);
}

// `merge A.json --db m.db --out m.db` wrote the fleet report over the database it had just filled;
// an --out or --db that is an input is refused before anything is written (issue 36 item 5).
TEST(MergeCommand, NoOutputReplacesAnInputOrTheDatabase) {
  TempDir dir;
  const std::string a = write_rank(dir, 0, 1.0);
  const std::string db = dir.file("m.db");
  EXPECT_NE(test_support::user_error_of([&] { run_cli({"merge", a, "--db", db, "--out", db}); }).find("is this command's input"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(db)) << "refused before the database was made";
  EXPECT_NE(test_support::user_error_of([&] { run_cli({"merge", a, "--db", dir.file("x.db"), "--out", a}); })
                .find("is this command's input"),
            std::string::npos);
  EXPECT_NE(test_support::user_error_of([&] { run_cli({"merge", a, "--db", a}); }).find("being merged"), std::string::npos);
  EXPECT_NE(test_support::user_error_of([&] { run_cli({"import", a, "--db", a}); }).find("being imported"), std::string::npos);
  EXPECT_EQ(read_run_file(a).run_id, "rank-0") << "the run file is intact";
}

// Two files claiming one run id with other measurements: neither stands for the other.
TEST(ImportCommand, TwoRunsWithOneIdAreRefusedAndAStoredRunIsKept) {
  TempDir dir;
  const std::string a = write_rank(dir, 0, 1.0);
  RunDocument other = read_run_file(a);
  other.records.resize(1);
  const std::string b = dir.file("other.json");
  write_run_file_atomic(b, other);
  EXPECT_NE(test_support::user_error_of([&] { run_cli({"import", a, b, "--db", dir.file("r.db")}); })
                .find("both claim run id 'rank-0'"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.db")));
  testing::internal::CaptureStdout();
  EXPECT_EQ(run_cli({"import", a, "--db", dir.file("r.db")}), 0);
  testing::internal::GetCapturedStdout();
  EXPECT_NE(test_support::user_error_of([&] { run_cli({"import", b, "--db", dir.file("r.db")}); }).find("already holds"),
            std::string::npos);
  EXPECT_EQ(load_run_from_db(dir.file("r.db"), "rank-0").records.size(), test_support::sample_run().records.size());
  testing::internal::CaptureStdout();
  EXPECT_EQ(run_cli({"import", b, "--db", dir.file("r.db"), "--replace"}), 0);
  EXPECT_NE(testing::internal::GetCapturedStdout().find("REPLACED"), std::string::npos);
  EXPECT_EQ(load_run_from_db(dir.file("r.db"), "rank-0").records.size(), 1u);
}

// A bad line in the middle of a journal cost the whole journal; recover keeps the rest, names the
// line, exits 1 and marks the run incomplete.
TEST(RecoverCommand, ABadLineIsLeftOutAndNamed) {
  TempDir dir;
  const std::string journal = write_rank(dir, 3, 1.0, true);
  std::string text = read_text(journal);
  text.insert(text.find('\n') + 1, "{\"record\": {broken\n");
  std::ofstream(journal) << text;
  testing::internal::CaptureStderr();
  const int rc = run_cli({"recover", journal});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1) << err;
  EXPECT_NE(err.find("left out line 2"), std::string::npos) << err;
  const RunDocument doc = read_run_file(dir.file("rank3.json"));
  EXPECT_EQ(doc.records.size(), test_support::sample_run().records.size());
  EXPECT_FALSE(doc.complete);
  EXPECT_NE(test_support::user_error_of([&] { run_cli({"report", journal}); }).find("gpudissect recover"), std::string::npos);
}

TEST(RecoverCommand, AKilledRunsJournalBecomesItsRunFile) {
  TempDir dir;
  const std::string journal = write_rank(dir, 7, 1.0, true);
  EXPECT_EQ(run_cli({"recover", journal}), 0);
  const RunDocument doc = read_run_file(dir.file("rank7.json"));
  EXPECT_EQ(doc.run_id, "rank-7");
  EXPECT_EQ(doc.records.size(), test_support::sample_run().records.size());
  EXPECT_FALSE(doc.complete) << "a run killed before its finish line is incomplete";
  // report takes the journal itself too.
  EXPECT_EQ(run_cli({"report", journal, "--out", dir.file("r.md")}), 0);
  EXPECT_NE(read_text(dir.file("r.md")).find("# gpudissect report"), std::string::npos);
}

}  // namespace
}  // namespace gd
