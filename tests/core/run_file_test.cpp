#include "core/run_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include <sys/stat.h>
#include <zlib.h>

#include "core/error.hpp"
#include "support/sample_run.hpp"
#include "support/text.hpp"

namespace gd {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::canonical;
using test_support::fixture;
using test_support::TempDir;
using test_support::user_error_of;


void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(RunJson, HeaderFields) {
  RunDocument doc = test_support::sample_run();
  doc.finished_at.clear();
  const json j = to_json(doc);
  EXPECT_EQ(j["schema_version"], kSchemaVersion);
  EXPECT_EQ(j["tool"]["name"], "gpudissect");
  EXPECT_EQ(j["tool"]["version"], "0.1.0");
  EXPECT_EQ(j["tool"]["git_revision"], "abc123def456");
  EXPECT_TRUE(j["finished_at"].is_null());
  EXPECT_EQ(j["complete"], true);
  EXPECT_EQ(j["records"].size(), doc.records.size());
  EXPECT_EQ(j["device"]["name"], "NVIDIA H200");
}

TEST(RunJson, RoundTripInMemoryAndThroughFile) {
  const RunDocument doc = test_support::sample_run();
  EXPECT_EQ(canonical(run_from_json(to_json(doc), "mem")), canonical(doc));
  TempDir dir;
  write_run_file_atomic(dir.file("run.json"), doc);
  const RunDocument back = read_run_file(dir.file("run.json"));
  EXPECT_EQ(canonical(back), canonical(doc));
  EXPECT_TRUE(std::isnan(back.records[2].metrics[0].stats.stddev));
  EXPECT_TRUE(back.records[2].derived);
  EXPECT_EQ(back.records[4].status, Status::Skipped);
  EXPECT_EQ(back.records[5].reason, "cudaErrorIllegalAddress | sticky");
  EXPECT_EQ(back.finished_at, doc.finished_at);
}

// `text` gzip-compressed into `path`, as `gzip` writes it.
void write_gzip(const std::string& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb1");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, text.data(), unsigned(text.size())), int(text.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

// Committed datasets are stored gzip-compressed: every reader takes them as the plain file; a
// damaged one, or one that inflates past the size limit (a small file standing for a huge one),
// is refused by name.
TEST(RunFile, GzipCompressedRunsReadAsThePlainFile) {
  TempDir dir;
  const RunDocument doc = test_support::sample_run();
  write_gzip(dir.file("run.json.gz"), to_json(doc).dump());
  EXPECT_EQ(canonical(read_run_file(dir.file("run.json.gz"))), canonical(doc));

  std::ifstream in(dir.file("run.json.gz"), std::ios::binary);
  std::string packed((std::istreambuf_iterator<char>(in)), {});
  write_text(dir.file("cut.json.gz"), packed.substr(0, packed.size() / 2));
  EXPECT_EQ(user_error_of([&] { read_run_file(dir.file("cut.json.gz")); }),
            dir.file("cut.json.gz") + ": not a readable gzip file: the file ends early");
  std::string flipped = packed;
  flipped[packed.size() / 2] ^= 0x55;
  write_text(dir.file("bad.json.gz"), flipped);
  EXPECT_NE(user_error_of([&] { read_run_file(dir.file("bad.json.gz")); }).find("not a readable gzip file"), std::string::npos);

  gzFile f = gzopen(dir.file("bomb.json.gz").c_str(), "wb1");
  ASSERT_NE(f, nullptr);
  const std::string zeros(1 << 20, '0');
  for (std::uintmax_t written = 0; written <= kMaxRunFileBytes; written += zeros.size())
    ASSERT_EQ(gzwrite(f, zeros.data(), unsigned(zeros.size())), int(zeros.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
  ASSERT_LT(fs::file_size(dir.file("bomb.json.gz")), std::uintmax_t(4) << 20) << "a small file";
  EXPECT_EQ(user_error_of([&] { read_run_file(dir.file("bomb.json.gz")); }),
            dir.file("bomb.json.gz") + ": inflates to more than 512 MiB; run files and journals are at most that");
}

TEST(RunFile, ReadsTheFixture) {
  const RunDocument doc = read_run_file(fixture("runs/h200_small.json"));
  EXPECT_EQ(doc.run_id, "2025-11-29T14:00:00Z-5e1a2b3c");
  EXPECT_TRUE(doc.complete);
  EXPECT_EQ(doc.device["sm_count"], 132);
  ASSERT_EQ(doc.records.size(), 7u);
  EXPECT_EQ(doc.records[1].metric("time/cycles")->stats.n, 20u);
  EXPECT_TRUE(doc.records[2].derived);
  EXPECT_TRUE(std::isnan(doc.records[2].metrics[0].stats.stddev));
  EXPECT_EQ(doc.records[3].metric("bandwidth/tbps")->value(), 4.512);
  EXPECT_EQ(to_string(doc.records[3].params), "blocks_per_sm=4 op=triad");
  EXPECT_EQ(doc.records[4].sass.status, SassStatus::Unverified);
  EXPECT_EQ(doc.records[5].status, Status::Skipped);
  EXPECT_EQ(doc.records[6].status, Status::Failed);
  EXPECT_EQ(doc.records[6].reason.rfind("CudaError: cudaErrorIllegalAddress", 0), 0u);
}

TEST(RunFile, MissingFileAndDirectory) {
  EXPECT_EQ(user_error_of([] { read_run_file("/nonexistent/run.json"); }), "/nonexistent/run.json: no such file");
  TempDir dir;
  EXPECT_NE(user_error_of([&] { read_run_file(dir.path().string()); }).find(": is a directory"), std::string::npos);
}

TEST(RunFile, NotJsonGivesPosition) {
  const std::string path = fixture("runs/malformed.json");
  const std::string msg = user_error_of([&] { read_run_file(path); });
  EXPECT_EQ(msg.rfind(path + ": not JSON: parse error at line ", 0), 0u) << msg;
  EXPECT_EQ(msg.find("[json.exception"), std::string::npos) << msg;
  TempDir dir;
  write_text(dir.file("empty.json"), "");
  EXPECT_NE(user_error_of([&] { read_run_file(dir.file("empty.json")); }).find("not JSON"), std::string::npos);
}

// A run whose extra nests 100,000 arrays deep: refused when read (the serializer recursed over it
// and overflowed the stack), while a nesting of a few levels more than any run holds still reads.
TEST(RunFile, NestingDeeperThanTheLimitIsRefusedWhenRead) {
  const auto nested = [](int levels) {
    std::string text = to_json(test_support::sample_run()).dump();
    const std::string deep = std::string(std::size_t(levels), '[') + std::string(std::size_t(levels), ']');
    const auto at = text.find("\"extra\":{}");
    EXPECT_NE(at, std::string::npos);
    return text.replace(at, 10, "\"extra\":{\"x\":" + deep + "}");
  };
  TempDir dir;
  write_text(dir.file("deep.json"), nested(100000));
  const std::string msg = user_error_of([&] { read_run_file(dir.file("deep.json")); });
  EXPECT_NE(msg.find("nested deeper than 64 levels"), std::string::npos) << msg;
  write_text(dir.file("deep.jsonl"), "{\"gpudissect_journal\": 1, \"header\": " + std::string(100000, '[') + "}\n");
  EXPECT_NE(user_error_of([&] { read_run_file(dir.file("deep.jsonl")); }).find("nested deeper"), std::string::npos);
  write_text(dir.file("fine.json"), nested(20));
  EXPECT_NO_THROW(read_run_file(dir.file("fine.json")));
}

// Run files travel (issue 36 item 4): what cannot be a run file, or is past a limit no run comes
// near, is refused with a message naming the limit, before anything pads a table to it.
TEST(RunFile, InputsPastTheLimitsAreRefusedNamingTheLimit) {
  TempDir dir;
  EXPECT_NE(user_error_of([&] { read_run_file("/dev/zero"); }).find("not a regular file"), std::string::npos);
  const std::string fifo = dir.file("fifo.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(user_error_of([&] { read_run_file(fifo); }).find("not a regular file"), std::string::npos);
  const std::string huge = dir.file("huge.json");  // sparse: no disk is used
  std::ofstream(huge).close();
  fs::resize_file(huge, kMaxRunFileBytes + 1);
  EXPECT_NE(user_error_of([&] { read_run_file(huge); }).find("at most 512 MiB"), std::string::npos);

  RunDocument doc = test_support::sample_run();
  doc.device["name"] = std::string(kMaxRunStringBytes + 1, 'x');
  write_text(dir.file("long.json"), to_json(doc).dump());
  EXPECT_NE(user_error_of([&] { read_run_file(dir.file("long.json")); }).find("strings are at most 64 KiB"), std::string::npos);
  doc.device["name"] = std::string(kMaxRunStringBytes, 'x');
  write_text(dir.file("edge.json"), to_json(doc).dump());
  EXPECT_NO_THROW(read_run_file(dir.file("edge.json")));

  doc = test_support::sample_run();
  for (std::size_t i = 0; i <= kMaxParamsPerRecord; ++i) doc.records[0].params.push_back({"p" + std::to_string(i), 1.0});
  write_text(dir.file("params.json"), to_json(doc).dump());
  EXPECT_NE(user_error_of([&] { read_run_file(dir.file("params.json")); }).find("a record has at most 64"), std::string::npos);

  doc = test_support::sample_run();
  const Record base = doc.records[0];
  for (std::size_t i = 0; i <= kMaxParamNamesPerProbe; ++i) {
    Record r = base;
    r.params = {{"name" + std::to_string(i), 1.0}};
    doc.records.push_back(r);
  }
  write_text(dir.file("names.json"), to_json(doc).dump());
  EXPECT_NE(user_error_of([&] { read_run_file(dir.file("names.json")); }).find("more than 1024 distinct params"),
            std::string::npos);
}

// A device number outside what its reader converts to (an sm_count of -4.35e18, found by the
// run-model fuzzer) is refused where the file is read, not converted with undefined behaviour.
TEST(RunFile, DeviceNumbersOutOfRangeAreRefused) {
  TempDir dir;
  for (const auto& [field, value] : std::vector<std::pair<std::string, json>>{
           {"sm_count", -4.35e18}, {"cc_major", 3e9}, {"max_sm_clock_mhz", 1e300}}) {
    json j = to_json(test_support::sample_run());
    j["device"][field] = value;
    write_text(dir.file("d.json"), j.dump());
    EXPECT_NE(user_error_of([&] { read_run_file(dir.file("d.json")); }).find("'" + field + "' is out of range"),
              std::string::npos)
        << field;
  }
  json j = to_json(test_support::sample_run());
  j["device"]["global_mem_bytes"] = 150000000000LL;  // a byte size past int is fine
  write_text(dir.file("big.json"), j.dump());
  EXPECT_NO_THROW(read_run_file(dir.file("big.json")));
}

// The same run id with other measurements is two runs, one of which would silently stand for the
// other in a merge or import (issue 36 item 5); the same run given twice is kept once.
TEST(RunFiles, ARepeatedRunIsKeptOnceAndAnImpostorIsRefused) {
  const RunDocument a = test_support::sample_run();
  RunDocument again = a;
  again.finished_at = "later";  // what a run adds at its end may differ
  std::vector<RunDocument> docs = {a, again};
  std::vector<std::string> paths = {"a.json", "again.json"};
  EXPECT_EQ(drop_repeated_runs(docs, paths).size(), 1u);
  EXPECT_EQ(docs.size(), 1u);
  RunDocument other = a;
  other.records[1].metrics[0].stats.median *= 1.5;
  docs = {a, other};
  paths = {"a.json", "other.json"};
  EXPECT_NE(user_error_of([&] { drop_repeated_runs(docs, paths); }).find("other.json and a.json both claim run id"),
            std::string::npos);
  EXPECT_FALSE(same_measurements(a, other));
  EXPECT_TRUE(same_measurements(a, again));
}

TEST(RunFile, WrongSchemaVersionSaysWhichIsSupported) {
  const std::string msg = user_error_of([] { read_run_file(fixture("runs/wrong_schema.json")); });
  EXPECT_NE(msg.find("wrong_schema.json: schema version 99 is not supported"), std::string::npos) << msg;
  EXPECT_NE(msg.find("reads schema versions 1 to " + std::to_string(kSchemaVersion)), std::string::npos) << msg;

  json j = to_json(test_support::sample_run());
  j.erase("schema_version");
  EXPECT_EQ(user_error_of([&] { run_from_json(j, "x.json"); }),
            "x.json: missing schema_version (this gpudissect reads schema versions 1 to 2)");
  j["schema_version"] = "1";
  EXPECT_NE(user_error_of([&] { run_from_json(j, "x.json"); }).find("schema_version must be an integer"), std::string::npos);
}

TEST(RunFile, ForeignJsonIsNotARunFile) {
  EXPECT_EQ(user_error_of([] { run_from_json(json::parse(R"({"name": "package.json"})"), "p.json"); }),
            "p.json: not a gpudissect run file (no \"tool\": {\"name\": \"gpudissect\"} and no schema_version)");
  EXPECT_EQ(user_error_of([] { run_from_json(json::array(), "a.json"); }),
            "a.json: not a gpudissect run file (top level is array, expected an object)");
  json j = to_json(test_support::sample_run());
  j["tool"]["name"] = "nvbench";
  EXPECT_EQ(user_error_of([&] { run_from_json(j, "n.json"); }),
            "n.json: not a gpudissect run file (tool.name is not \"gpudissect\")");
}

TEST(RunFile, BadRecordIsNamedByIndexAndId) {
  json j = to_json(test_support::sample_run());
  j["records"][1]["metrics"][0]["n"] = 2.5;
  EXPECT_EQ(user_error_of([&] { run_from_json(j, "r.json"); }),
            "r.json: record 1 (latency.alu.ffma): metric 'time/cycles': field 'n' must be an integer, not number");
  j = to_json(test_support::sample_run());
  j["records"][3] = 7;
  EXPECT_EQ(user_error_of([&] { run_from_json(j, "r.json"); }), "r.json: record 3: record must be an object, not number");
  j = to_json(test_support::sample_run());
  j.erase("records");
  EXPECT_EQ(user_error_of([&] { run_from_json(j, "r.json"); }), "r.json: missing field 'records'");
  j = to_json(test_support::sample_run());
  j["device"]["sm_count"] = "many";
  EXPECT_EQ(user_error_of([&] { run_from_json(j, "r.json"); }), "r.json: device: field 'sm_count' has the wrong type (string)");
  j = to_json(test_support::sample_run());
  j["device"]["max_sm_clock_mhz"] = "fast";
  EXPECT_EQ(user_error_of([&] { run_from_json(j, "r.json"); }),
            "r.json: device: field 'max_sm_clock_mhz' has the wrong type (string)");
  j = to_json(test_support::sample_run());
  j["device"] = "H200";
  EXPECT_EQ(user_error_of([&] { run_from_json(j, "r.json"); }), "r.json: field 'device' must be an object, not string");
}

TEST(AtomicWrite, LeavesOnlyTheFile) {
  TempDir dir;
  RunDocument doc = test_support::sample_run();
  for (int i = 0; i < 5; ++i) {
    doc.run_id = "run-" + std::to_string(i);
    write_run_file_atomic(dir.file("run.json"), doc);
  }
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"run.json"});
  EXPECT_EQ(read_run_file(dir.file("run.json")).run_id, "run-4");
}

TEST(AtomicWrite, UnwritableTargetsAreUserErrors) {
  TempDir dir;
  const std::string missing_dir = dir.file("no/such/dir/run.json");
  const std::string msg = user_error_of([&] { write_run_file_atomic(missing_dir, test_support::sample_run()); });
  EXPECT_EQ(msg, "cannot write " + missing_dir + ": No such file or directory");
  write_text(dir.file("plain"), "x");
  const std::string under_file = dir.file("plain/run.json");
  EXPECT_EQ(user_error_of([&] { write_file_atomic(under_file, "text"); }), "cannot write " + under_file + ": Not a directory");
  // The target is a directory: rename fails after the temp file was written; it must not stay.
  fs::create_directory(dir.file("taken"));
  EXPECT_NE(user_error_of([&] { write_file_atomic(dir.file("taken"), "text"); }).find("cannot write"), std::string::npos);
  EXPECT_EQ(entries(dir.path()), (std::vector<std::string>{"plain", "taken"}));
}

TEST(AtomicWrite, ReplacesContentWholly) {
  TempDir dir;
  write_file_atomic(dir.file("a.txt"), std::string(10000, 'x'));
  write_file_atomic(dir.file("a.txt"), "short\n");
  std::ifstream in(dir.file("a.txt"));
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all, "short\n");
}

// Found by the run-file fuzzer: a number too large for a double is not a parse error to
// nlohmann but out_of_range, and ended as "internal error" (exit 70).
TEST(RunFile, ANumberTooLargeIsNotJsonNotAnInternalError) {
  TempDir dir;
  write_text(dir.file("big.json"), "{\"schema_version\": 1E2080}");
  EXPECT_NE(user_error_of([&] { read_run_file(dir.file("big.json")); }).find("not JSON: number overflow parsing '1E2080'"),
            std::string::npos);
}

TEST(UtcNow, Iso8601Utc) {
  EXPECT_TRUE(std::regex_match(utc_now_iso8601(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << utc_now_iso8601();
}

}  // namespace
}  // namespace gd
