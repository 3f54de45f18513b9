#include "core/run_journal.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "core/result_db.hpp"
#include "support/sample_run.hpp"
#include "support/text.hpp"

namespace gd {
namespace {

using test_support::canonical;
using test_support::TempDir;
using test_support::user_error_of;

RunDocument header_only() { return test_support::header_of(test_support::sample_run()); }

TEST(RunJournal, EveryRecordIsOnDiskWhenOnRecordReturns) {
  TempDir dir;
  const std::string path = dir.file("run.jsonl");
  const auto all = test_support::sample_run().records;
  RunJournal j(path, header_only());
  EXPECT_TRUE(read_journal(path).doc.records.empty());
  j.on_record(all[0]);
  j.on_record(all[4]);
  JournalRead back = read_journal(path);
  ASSERT_EQ(back.doc.records.size(), 2u);
  EXPECT_EQ(to_json(back.doc.records[1]), to_json(all[4]));
  EXPECT_FALSE(back.finished);
  EXPECT_FALSE(back.doc.complete) << "a run without its finish line must read as incomplete";
  // One line per record after the header: appended, never rewritten.
  const std::string text = read_text(path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);

  j.set_finish_extra([] {
    return nlohmann::json{{"gpu_state", {{"changed", nlohmann::json::array()}}},
                          {"timing", {{"wall_s", 2.5}, {"probe_wall_s", {{"t.a", 2.0}}}}}};
  });
  j.on_finish(true);  // as execute() ends a run
  j.on_finish(true);  // a second call adds nothing after the finish line
  back = read_journal(path);
  EXPECT_TRUE(back.finished);
  EXPECT_TRUE(back.doc.complete);
  EXPECT_FALSE(back.doc.finished_at.empty());
  EXPECT_EQ(back.doc.gpu_state["changed"], nlohmann::json::array());
  EXPECT_EQ(back.doc.timing["probe_wall_s"]["t.a"], 2.0) << "where the time went survives the journal";
  EXPECT_EQ(canonical(back.doc), canonical(j.document()));
  // read_run_file takes a journal wherever it takes a run file (report, compare, import).
  EXPECT_EQ(canonical(read_run_file(path)), canonical(j.document()));
}

TEST(RunJournal, NeverOverwritesAndFailsAtOnceWhereItCannotWrite) {
  TempDir dir;
  { RunJournal j(dir.file("run.jsonl"), header_only()); }
  EXPECT_NE(user_error_of([&] { RunJournal again(dir.file("run.jsonl"), header_only()); }).find("File exists"), std::string::npos);
  EXPECT_NE(user_error_of([&] { RunJournal j(dir.file("missing/run.jsonl"), header_only()); }).find("cannot create run journal"),
            std::string::npos);
}

TEST(RunJournal, ACutOffLastLineIsDroppedAndABadMiddleLineIsLeftOutAndCounted) {
  TempDir dir;
  const std::string path = dir.file("run.jsonl");
  const auto all = test_support::sample_run().records;
  {
    RunJournal j(path, header_only());
    j.on_record(all[0]);
    j.on_record(all[1]);
  }
  const std::string whole = read_text(path);
  const std::string cut = whole.substr(0, whole.size() - 20);  // killed inside the last write
  JournalRead r = read_journal_text(cut, "cut.jsonl");
  EXPECT_TRUE(r.dropped_tail);
  EXPECT_EQ(r.doc.records.size(), 1u);

  // One bad line in the middle costs that line, not the journal: the records around it are kept,
  // the line is named, and the run is no longer complete.
  const auto first_eol = whole.find('\n');
  const std::string bad = whole.substr(0, first_eol + 1) + "{\"record\": 5}\n{\"record\": {broken\n" +
                          whole.substr(first_eol + 1) + "[1]\n{\"finish\": {\"complete\": true}}\n";
  const JournalRead kept = read_journal_text(bad, "bad.jsonl");
  EXPECT_EQ(kept.doc.records.size(), 2u);
  ASSERT_EQ(kept.bad_lines.size(), 3u);
  EXPECT_EQ(kept.bad_lines[0].first, 2u);
  EXPECT_EQ(kept.bad_lines[1].first, 3u);
  EXPECT_EQ(kept.bad_lines[2].first, 6u);
  EXPECT_EQ(kept.bad_lines[2].second, "not a JSON object");
  EXPECT_TRUE(kept.finished);
  EXPECT_FALSE(kept.doc.complete) << "records were left out";
  EXPECT_NE(user_error_of([&] { read_journal_text("{\"x\": 1}\n", "x.jsonl"); }).find("not a gpudissect run journal"),
            std::string::npos);
  EXPECT_NE(user_error_of([&] { read_journal_text("", "e.jsonl"); }).find("empty run journal"), std::string::npos);
  EXPECT_NE(user_error_of([&] { read_journal_text("{\"gpudissect_journal\": 99, \"header\": {}}\n", "v.jsonl"); })
                .find("journal version 99 is not supported"),
            std::string::npos);
}

// A full disk (here: the file-size limit, which fails write() the same way) stops the run with a
// clear error, and every record written before stays readable.
TEST(RunJournal, AFailedWriteStopsWithAClearErrorAndKeepsWhatWasWritten) {
  TempDir dir;
  const std::string path = dir.file("run.jsonl");
  const auto all = test_support::sample_run().records;
  RunJournal j(path, header_only());
  j.on_record(all[0]);
  const auto kept = read_text(path).size();

  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto previous = ::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = kept + 40;  // the next record does not fit
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    j.on_record(all[3]);
  } catch (const OutputError& e) {
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, previous);
  EXPECT_NE(message.find("cannot append to run journal " + path + ": File too large"), std::string::npos) << message;
  EXPECT_NE(message.find("The 1 record(s) written before are kept"), std::string::npos) << message;
  EXPECT_NE(message.find("gpudissect recover"), std::string::npos) << message;
  EXPECT_EQ(read_text(path).size(), kept) << "the half-written line must be taken back";
  const JournalRead back = read_journal(path);
  EXPECT_FALSE(back.dropped_tail);
  ASSERT_EQ(back.doc.records.size(), 1u);
  EXPECT_THROW(j.on_record(all[0]), OutputError) << "after a failed write the journal takes nothing more";
}

// A record that a slow fake probe finished is reported on a pipe only after the journal returned
// from on_record (after its fsync). The parent SIGKILLs the run at a random moment: every record
// reported must be in the journal, and the journal must read cleanly.
struct Reporter : RecordSink {
  int fd;
  explicit Reporter(int f) : fd(f) {}
  void on_record(const Record&) override { (void)!::write(fd, "r", 1); }
};

[[noreturn]] void slow_run(const std::string& path, int report_fd) {
  ProbeSpec s;
  s.id = "t.slow";
  s.description = "sleeps, then reports its point";
  s.metrics = {{"value/x", "units", "x"}};
  s.axes = {Axis::pow2("x", 1, 1 << 20)};
  s.time_cap_s = 100;
  s.run = [](ProbeContext& ctx) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ctx.set_observed_sm_clock_mhz(1000);
    ctx.metric("value/x", double(ctx.int_param("x")));
  };
  Registry reg;
  reg.add(s);
  reg.add([&] { ProbeSpec t = s; t.id = "t.slow2"; return t; }());
  DeviceInfo d;
  d.name = "Fake GPU";
  RunJournal journal(path, header_only());
  Reporter reporter(report_fd);
  ExecuteOptions o;
  o.progress = false;
  execute(plan(select_probes(reg, {}), d), d, {&journal, &reporter}, {}, o);
  ::_exit(0);
}

// Forks a run: `child` gets the write end of a pipe it reports its records on, and must _exit.
// Returns the child's pid; `reports` is the read end.
pid_t fork_run(int& reports, const std::function<void(int)>& child) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  reports = fds[0];
  return pid;
}

// How many records the child reported, once it is gone.
std::size_t count_reports(int fd) {
  std::size_t n = 0;
  char buf[256];
  for (ssize_t got; (got = ::read(fd, buf, sizeof buf)) > 0;) n += std::size_t(got);
  ::close(fd);
  return n;
}

TEST(RunJournal, SigkillAtARandomPointLosesNoFinishedRecord) {
  std::mt19937 rng(std::random_device{}());
  for (int trial = 0; trial < 6; ++trial) {
    TempDir dir;
    const std::string path = dir.file("run.jsonl");
    int reports = -1;
    const pid_t pid = fork_run(reports, [&](int fd) { slow_run(path, fd); });
    ASSERT_GE(pid, 0);
    const int kill_after_ms = std::uniform_int_distribution<int>(5, 180)(rng);
    std::this_thread::sleep_for(std::chrono::milliseconds(kill_after_ms));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before the kill; make it slower";
    const std::size_t reported = count_reports(reports);
    // Killed before the header was written: nothing to lose yet.
    if (reported == 0 && (!std::filesystem::exists(path) || std::filesystem::file_size(path) == 0)) continue;
    const JournalRead back = read_journal(path);
    EXPECT_GE(back.doc.records.size(), reported) << "killed after " << kill_after_ms << " ms";
    EXPECT_LE(back.doc.records.size(), reported + 1) << "at most the record in flight is on disk unreported";
    EXPECT_FALSE(back.finished);
    EXPECT_FALSE(back.doc.complete);
    for (std::size_t i = 0; i < back.doc.records.size(); ++i) {
      const std::int64_t x = std::int64_t(1) << (i % 21);
      EXPECT_EQ(back.doc.records[i].metric("value/x")->value(), double(x)) << "record " << i;
    }
  }
}

// A disk that fills mid-run (the file-size limit fails write() as ENOSPC would): the run stops at
// the first record the journal cannot take, with OutputError (exit 74), and every record reported
// before is in the journal. The database beside it fails too; that alone never stops the run.
TEST(RunJournal, AFullDiskMidRunStopsAtTheFirstFailedWriteAndKeepsTheJournal) {
  TempDir dir;
  const std::string path = dir.file("run.jsonl");
  int reports = -1;
  const pid_t pid = fork_run(reports, [&](int report_fd) {
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit small{32 << 10, 32 << 10};
    ::setrlimit(RLIMIT_FSIZE, &small);
    Registry reg;
    for (int i = 0; i < 20; ++i) {
      ProbeSpec s;
      s.id = "t.fill" + std::to_string(i);
      s.description = "reports its point";
      s.metrics = {{"value/x", "units", "x"}};
      s.axes = {Axis::pow2("x", 1, 1 << 20)};
      s.run = [](ProbeContext& ctx) {
        ctx.set_observed_sm_clock_mhz(1000);
        ctx.metric("value/x", double(ctx.int_param("x")));
      };
      reg.add(s);
    }
    DeviceInfo d;
    d.name = "Fake GPU";
    try {
      RunJournal journal(path, header_only());
      ResultDb db(dir.file("r.db"), header_only());
      DbCopySink db_copy(db);
      Reporter reporter(report_fd);
      ExecuteOptions o;
      o.progress = false;
      execute(plan(select_probes(reg, {}), d), d, {&journal, &db_copy, &reporter}, {}, o);
    } catch (const OutputError&) {
      ::_exit(74);
    } catch (...) {
      ::_exit(1);
    }
  });
  ASSERT_GE(pid, 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const std::size_t reported = count_reports(reports);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 74) << "OutputError: the documented exit code";
  const JournalRead back = read_journal(path);
  EXPECT_GT(reported, 0u);
  EXPECT_LT(reported, 420u) << "the run stopped";
  EXPECT_EQ(back.doc.records.size(), reported) << "every record reported is in the journal, and no other";
  EXPECT_FALSE(back.dropped_tail) << "the half-written line was taken back";
  EXPECT_LE(std::filesystem::file_size(path), std::size_t(32 << 10));
}

}  // namespace
}  // namespace gd
