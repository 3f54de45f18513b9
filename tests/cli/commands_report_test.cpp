// `report` and `compare` in process: argument parsing, outputs and the errors a user sees.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/result_db.hpp"
#include "core/run_file.hpp"
#include "support/cli.hpp"
#include "support/sample_run.hpp"
#include "support/text.hpp"
#include "support/committed_suite.hpp"

namespace gd {
namespace {

using test_support::kPairStem;

using test_support::fixture;
using test_support::TempDir;
using test_support::user_error_of;

using test_support::run_cli;


TEST(ReportCommand, MarkdownToFile) {
  TempDir dir;
  EXPECT_EQ(run_cli({"report", fixture("runs/h200_small.json"), "--out", dir.file("r.md")}), 0);
  const std::string md = read_text(dir.file("r.md"));
  EXPECT_EQ(md.rfind("# gpudissect report: NVIDIA H200\n", 0), 0u);
  EXPECT_NE(md.find("## Skipped and failed"), std::string::npos);
}

// A run file may say "device": null; report and validate met it with value() on null and
// exited 70 "internal error" (found by the run-model fuzzer).
TEST(ReportCommand, ARunWithoutADeviceReportsAndValidates) {
  TempDir dir;
  const std::string run = dir.file("nodevice.json");
  std::ofstream(run) << R"({"tool":{"name":"gpudissect","version":"x"},"schema_version":2,"run_id":"a",)"
                     << R"("started_at":"x","device":null,"records":[]})";
  testing::internal::CaptureStdout();
  EXPECT_EQ(run_cli({"report", run, "--out", dir.file("r.md")}), 0);
  int validated = -1;
  try {
    validated = run_cli({"validate", run});
  } catch (const UserError&) {
    validated = 2;  // no published record for an unknown chip is a usage error, not a crash
  }
  testing::internal::GetCapturedStdout();
  EXPECT_TRUE(validated == 0 || validated == 2) << validated;
}

TEST(ReportCommand, CsvToFile) {
  TempDir dir;
  EXPECT_EQ(run_cli({"report", fixture("runs/h200_small.json"), "--format", "csv", "-o", dir.file("r.csv")}), 0);
  EXPECT_EQ(read_text(dir.file("r.csv")).rfind("run_id,gpu,id,category,params,", 0), 0u);
}

TEST(ReportCommand, MarkdownToStdout) {
  testing::internal::CaptureStdout();
  const int rc = run_cli({"report", fixture("runs/h200_small.json")});
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out.rfind("# gpudissect report: NVIDIA H200\n", 0), 0u);
}

// `--out -` created a file named "-".
TEST(ReportCommand, DashIsStandardOutput) {
  TempDir dir;
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  testing::internal::CaptureStdout();
  const int rc = run_cli({"report", fixture("runs/h200_small.json"), "--format", "csv", "--out", "-"});
  const std::string out = testing::internal::GetCapturedStdout();
  std::filesystem::current_path(cwd);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out.rfind("run_id,gpu,id,category,params,", 0), 0u);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

// A symlinked output (latest.md -> runs/today.md) used to become a regular file.
TEST(CompareCommand, WritesThroughASymlink) {
  TempDir dir;
  const std::string run = fixture("runs/h200_small.json");
  std::filesystem::create_symlink("today.md", dir.file("latest.md"));
  EXPECT_EQ(run_cli({"compare", run, run, "--out", dir.file("latest.md")}), 0);
  EXPECT_TRUE(std::filesystem::is_symlink(dir.file("latest.md")));
  EXPECT_EQ(read_text(dir.file("today.md")).rfind("# gpudissect comparison:", 0), 0u);
}

TEST(ReportCommand, BadInputsAreUserErrors) {
  EXPECT_NE(user_error_of([] { run_cli({"report", fixture("runs/malformed.json")}); }).find("not JSON"), std::string::npos);
  EXPECT_NE(user_error_of([] { run_cli({"report", fixture("runs/wrong_schema.json")}); }).find("schema version 99"),
            std::string::npos);
  EXPECT_NE(user_error_of([] { run_cli({"report", fixture("runs/absent.json")}); }).find("no such file"), std::string::npos);
  TempDir dir;
  EXPECT_NE(user_error_of([&] { run_cli({"report", fixture("runs/h200_small.json"), "--out", dir.file("x/r.md")}); })
                .find("cannot write"),
            std::string::npos);
}

TEST(ReportCommand, UnknownFormatAndMissingFileAreParseErrors) {
  EXPECT_THROW(run_cli({"report", fixture("runs/h200_small.json"), "--format", "pdf"}), CLI::ValidationError);
  EXPECT_THROW(run_cli({"report"}), CLI::RequiredError);
}

TEST(ImportCommand, AddsRunsToADatabaseIdempotently) {
  TempDir dir;
  const std::string db = dir.file("sub/results.db");
  EXPECT_EQ(run_cli({"import", fixture("runs/h200_small.json"), "--db", db}), 0);
  EXPECT_EQ(run_cli({"import", fixture("runs/h200_small.json"), "--db", db}), 0);  // same run id: replaced
  const auto runs = list_runs(db);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(load_run_from_db(db, runs[0]).records.size(), read_run_file(fixture("runs/h200_small.json")).records.size());
}

TEST(ImportCommand, ABadFileImportsNothing) {
  TempDir dir;
  const std::string db = dir.file("results.db");
  const std::string msg = user_error_of(
      [&] { run_cli({"import", fixture("runs/h200_small.json"), fixture("runs/malformed.json"), "--db", db}); });
  EXPECT_NE(msg.find("malformed.json"), std::string::npos) << msg;
  // A run file of ours that this build cannot read is not "another tool's JSON": it stops the import.
  const std::string wrong = user_error_of(
      [&] { run_cli({"import", fixture("runs/h200_small.json"), fixture("runs/wrong_schema.json"), "--db", db}); });
  EXPECT_NE(wrong.find("schema version 99"), std::string::npos) << wrong;
  EXPECT_FALSE(std::filesystem::exists(db));
}

// `import data/measured/*.json`, import's own example, imported nothing because a PyTorch result
// file sat among the runs; `import data/measured/*` also takes the .md and .txt beside them. Files
// that are not runs are skipped, each named with the reason, and the runs are imported.
TEST(ImportCommand, FilesThatAreNotRunsAreSkippedAndNamed) {
  TempDir dir;
  const std::string db = dir.file("results.db");
  const std::string txt = dir.file("patch-demo.txt");
  std::ofstream(txt) << "not a run\n";
  const std::string torch = dir.file("attention-torch-sdpa.json");
  std::ofstream(torch) << R"({"gpu": "NVIDIA H200", "torch": "2.9", "results": [{"backend": "flash", "tflops": 500}]})";
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  const int rc = run_cli({"import", txt, fixture("runs/h200_small.json"), torch, "--db", db});
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 0) << err;
  EXPECT_NE(err.find("skipped " + txt + ": not a run file (run files end in .json"), std::string::npos) << err;
  EXPECT_NE(err.find("skipped " + torch + ": not a gpudissect run file"), std::string::npos) << err;
  EXPECT_NE(out.find("2 file(s) that are not runs skipped"), std::string::npos) << out;
  EXPECT_EQ(list_runs(db).size(), 1u);
}

TEST(ImportCommand, NoRunAmongTheFilesIsAnError) {
  TempDir dir;
  const std::string db = dir.file("results.db");
  const std::string txt = dir.file("notes.md");
  std::ofstream(txt) << "# notes\n";
  testing::internal::CaptureStderr();
  const std::string msg = user_error_of([&] { run_cli({"import", txt, "--db", db}); });
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(msg, "no run file among the 1 file(s) given; nothing was imported");
  EXPECT_NE(err.find("skipped " + txt), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(CompareCommand, WritesTheComparison) {
  TempDir dir;
  const std::string run = fixture("runs/h200_small.json");
  EXPECT_EQ(run_cli({"compare", run, run, "--out", dir.file("c.md")}), 0);
  const std::string md = read_text(dir.file("c.md"));
  EXPECT_EQ(md.rfind("# gpudissect comparison: NVIDIA H200 (A) vs NVIDIA H200 (B)\n", 0), 0u);
  EXPECT_NE(md.find("| 4.512 TB/s | 4.512 TB/s |   1 |"), std::string::npos) << md;
}

TEST(CompareCommand, EitherBadFileIsNamed) {
  const std::string good = fixture("runs/h200_small.json");
  const std::string bad = fixture("runs/malformed.json");
  EXPECT_EQ(user_error_of([&] { run_cli({"compare", good, bad}); }).rfind(bad + ": not JSON", 0), 0u);
  EXPECT_THROW(run_cli({"compare", good}), CLI::ParseError);  // two files at least
}

}  // namespace
}  // namespace gd

namespace gd {
namespace {

// `noise` builds the run-to-run table from repeat runs of one card; `compare --noise` reads it and
// refuses a table of another GPU model or a file that is not one.
TEST(NoiseCommand, BuildsTheTableCompareReads) {
  TempDir dir;
  RunDocument a = test_support::sample_run(), b = a, other = a;
  a.run_id = "a";
  b.run_id = "b";
  for (Record& r : b.records)
    for (Metric& m : r.metrics) m.stats.median *= 1.01;
  other.run_id = "other";
  other.device["uuid"] = "GPU-4567";
  for (const auto& [name, doc] : {std::pair<const char*, RunDocument*>{"a.json", &a}, {"b.json", &b}, {"o.json", &other}})
    write_run_file_atomic(dir.file(name), *doc);
  testing::internal::CaptureStderr();
  EXPECT_EQ(run_cli({"noise", dir.file("a.json"), dir.file("b.json"), "--out", dir.file("t.json")}), 0);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("from 1 pair(s) of runs of one NVIDIA H200"), std::string::npos);
  EXPECT_EQ(run_cli({"compare", dir.file("a.json"), dir.file("b.json"), "--noise", dir.file("t.json"), "--json", "--out",
                     dir.file("c.json")}),
            0);
  EXPECT_EQ(nlohmann::json::parse(read_text(dir.file("c.json")))["summary"]["noise_table"]["pairs"], 1);
  EXPECT_NE(user_error_of([&] { run_cli({"noise", dir.file("a.json"), dir.file("o.json")}); }).find("no two of the runs"),
            std::string::npos);
  EXPECT_NE(user_error_of([&] { run_cli({"noise", dir.file("a.json"), dir.file("t.md")}); }).find("not a run file"),
            std::string::npos);
  EXPECT_NE(user_error_of([&] {
              run_cli({"compare", dir.file("a.json"), dir.file("b.json"), "--noise", dir.file("a.json")});
            }).find("not a run-to-run noise table"),
            std::string::npos);
  RunDocument h100 = a;
  h100.device["name"] = "NVIDIA H100 80GB HBM3";
  write_run_file_atomic(dir.file("h100.json"), h100);
  EXPECT_NE(user_error_of([&] {
              run_cli({"compare", dir.file("h100.json"), dir.file("b.json"), "--noise", dir.file("t.json")});
            }).find("was measured on NVIDIA H200; run a is on NVIDIA H100"),
            std::string::npos);
}

// `export` writes the three files and the comparison, and refuses what it cannot use.
TEST(ExportCommand, WritesTheAccelSimFilesAndRefusesBadInput) {
  TempDir dir;
  const std::string run = fixture("runs/h200_small.json");
  const std::string reference = std::string(GPUDISSECT_SOURCE_DIR) + "/data/accel-sim/SM90_H100.config";
  testing::internal::CaptureStderr();
  EXPECT_EQ(run_cli({"export", run, "--out", dir.file("sim"), "--diff", reference}), 0);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("export: "), std::string::npos) << err;
  for (const char* f : {"gpgpusim.config", "trace.config", "opcodes.csv", "diff.md"})
    EXPECT_TRUE(std::filesystem::exists(dir.file(std::string("sim/") + f))) << f;
  EXPECT_THROW(run_cli({"export", run}), CLI::ParseError);  // --out is required
  EXPECT_THROW(run_cli({"export", run, "--format", "gem5", "--out", dir.file("m")}), CLI::ParseError);
  EXPECT_EQ(run_cli({"export", run, "--format", "model", "--out", dir.file("model.json")}), 0);
  EXPECT_EQ(nlohmann::json::parse(read_text(dir.file("model.json")))["kind"], "gpudissect-machine-model");
  EXPECT_NE(user_error_of([&] { run_cli({"export", run, "--format", "model", "--out", dir.file("m2.json"), "--diff", reference}); })
                .find("goes with --format accel-sim"),
            std::string::npos);
  EXPECT_NE(user_error_of([&] { run_cli({"export", run, "--format", "model", "--out", run}); }), "")
      << "the output never replaces the run";
  EXPECT_NE(user_error_of([&] { run_cli({"export", run, "--out", dir.file("x"), "--diff", dir.file("none.config")}); }), "");
  std::ofstream(dir.file("empty.config")) << "# nothing\n";
  EXPECT_NE(user_error_of([&] { run_cli({"export", run, "--out", dir.file("y"), "--diff", dir.file("empty.config")}); })
                .find("not a gpgpu-sim configuration"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.file("y"))) << "nothing written before the inputs are read";
}


// The committed pair: two full runs on one H200, a minute apart. Nothing moved beyond the noise
// at the default threshold, so --fail-on-regression passes.
TEST(CompareCommand, TwoCommittedRunsOfOneCardShowNoRegression) {
  TempDir dir;
  EXPECT_EQ(run_cli({"compare", kPairStem + ".json", kPairStem + "-repeat.json", "--fail-on-regression", "--out",
                     dir.file("c.md")}),
            0);
  std::ifstream in(dir.file("c.md"));
  const std::string md((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(md.find("Nothing moved beyond the runs' own noise"), std::string::npos) << md.substr(0, 2000);
}

// 5 % less read bandwidth at every point of B is flagged and fails the comparison.
TEST(CompareCommand, AnInjectedFivePercentLossIsARegression) {
  TempDir dir;
  RunDocument b = read_run_file(kPairStem + "-repeat.json");
  for (Record& r : b.records)
    for (Metric& m : r.metrics)
      if (m.name == "bandwidth/tbps")
        for (double* v : {&m.stats.median, &m.stats.min, &m.stats.max, &m.stats.mean}) *v *= 0.95;
  write_run_file_atomic(dir.file("b.json"), b);
  EXPECT_EQ(run_cli({"compare", kPairStem + ".json", dir.file("b.json"), "--fail-on-regression", "--out",
                     dir.file("c.md")}),
            1);
  std::ifstream in(dir.file("c.md"));
  const std::string md((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(md.find("-5.0% regression"), std::string::npos);
  EXPECT_EQ(run_cli({"compare", kPairStem + ".json", dir.file("b.json"), "--out", dir.file("c2.md")}), 0)
      << "without --fail-on-regression the comparison is only a report";
}

}  // namespace
}  // namespace gd

namespace gd {
namespace {

using test_support::fixture;
using test_support::run_cli;
using test_support::TempDir;

// `--out` naming the run being read replaced it and exited 0 (issue 35, item 1): every reading
// command refuses, whatever path reaches the same file, and leaves it as it was.
TEST(ReadingCommands, AnOutputThatIsTheInputIsRefusedAndTheInputKept) {
  TempDir dir;
  const std::string run = dir.file("run.json");
  std::filesystem::copy_file(fixture("runs/h200_small.json"), run);
  const std::string before = read_text(run);
  const std::string same_by_another_path = dir.file(".") + "/run.json";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report", run, "--out", run}, {"report", run, "--format", "csv", "--out", same_by_another_path},
        {"compare", run, fixture("runs/h200_small.json"), "--out", run}, {"guide", run, "--out", run},
        {"coverage", run, "--out", run}, {"headlines", run, "--out", run}}) {
    EXPECT_THROW(run_cli(args), UserError) << args[0];
    EXPECT_EQ(read_text(run), before) << args[0] << " changed its input";
  }
  EXPECT_EQ(run_cli({"headlines", run, "--out", dir.file("h.md")}), 0) << "another file is fine";
}

}  // namespace
}  // namespace gd

namespace gd {
namespace {

using test_support::fixture;
using test_support::run_cli;
using test_support::TempDir;

const std::string kPublishedHopper = std::string(GPUDISSECT_SOURCE_DIR) + "/data/reference/sm_90-published-hopper.json";

TEST(ValidateCommand, RefusesAnOutputThatIsAnInputAndWritesItsJson) {
  TempDir dir;
  const std::string run = dir.file("run.json");
  const std::string ref = dir.file("published.json");
  std::filesystem::copy_file(fixture("runs/h200_small.json"), run);
  std::filesystem::copy_file(kPublishedHopper, ref);
  const std::string run_before = read_text(run), ref_before = read_text(ref);
  EXPECT_THROW(run_cli({"validate", run, "--reference", ref, "--out", run}), UserError);
  EXPECT_THROW(run_cli({"validate", run, "--reference", ref, "--out", dir.file(".") + "/published.json"}), UserError);
  EXPECT_EQ(read_text(run), run_before);
  EXPECT_EQ(read_text(ref), ref_before);
  EXPECT_THROW(run_cli({"validate", ref, "--reference", ref, "--out", dir.file("x.md")}), UserError)
      << "a reference dataset is not a run";
  EXPECT_THROW(run_cli({"validate", run, "--reference", run, "--out", dir.file("x.md")}), UserError)
      << "a run is not a reference dataset";
  EXPECT_THROW(run_cli({"validate", run, "--reference", ref, "--json", "--format", "html"}), UserError);

  ASSERT_EQ(run_cli({"validate", run, "--reference", ref, "--json", "--out", dir.file("v.json")}), 0);
  const auto doc = nlohmann::json::parse(read_text(dir.file("v.json")));
  EXPECT_EQ(doc["command"], "validate");
  const auto published = nlohmann::json::parse(ref_before);
  EXPECT_EQ(doc["rows"].size(), published["records"].size()) << "one row per published figure";
  int total = 0;
  for (const char* k : {"agrees", "differs_explained", "disagrees", "not_measured", "not_comparable"})
    total += doc["counts"][k].get<int>();
  EXPECT_EQ(total, static_cast<int>(doc["rows"].size()));
  ASSERT_EQ(run_cli({"validate", "--reference", ref, run, "--out", dir.file("v.md")}), 0)
      << "--reference takes one file, so the run may follow it";
  EXPECT_EQ(read_text(dir.file("v.md")).rfind("# Validation: NVIDIA H200 against the published record", 0), 0u);
}

}  // namespace
}  // namespace gd
