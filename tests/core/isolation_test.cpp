// --isolate: probes in a child process under a watchdog. The misbehaving probes trap, fault,
// hang or exit at their second point; no other record may be lost.
#include <gtest/gtest.h>

#include <chrono>

#include "core/child_process.hpp"
#include "core/executor.hpp"
#include "support/isolation_probes.hpp"
#include "support/collecting_sink.hpp"

namespace gd {
namespace {

using test_support::CollectingSink;

struct IsolatedRun {
  CollectingSink sink;
  ExecuteSummary summary;
  double seconds = 0;
  const Record& at(const std::string& id, std::int64_t x) const {
    for (const Record& r : sink.records)
      if (r.id == id && std::get<std::int64_t>(r.params.at(0).second) == x) return r;
    throw std::runtime_error("no record " + id + " x=" + std::to_string(x));
  }
};

IsolatedRun run(const std::vector<std::string>& filters, IsolateMode mode, double watchdog_s = 2,
                SamplingOverride sampling = {}) {
  static const Registry reg = test_support::isolation_registry();
  DeviceInfo d;
  d.name = "Fake GPU";
  ExecuteOptions o;
  o.progress = false;
  o.isolate = mode;
  o.child_command = {GPUDISSECT_TEST_CHILD};
  o.watchdog_s = watchdog_s;
  o.sampling = sampling;
  IsolatedRun r;
  const auto t0 = std::chrono::steady_clock::now();
  r.summary = execute(plan(select_probes(reg, {filters, ""}), d), d, {&r.sink}, {}, o);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void expect_healthy(const IsolatedRun& r, const std::string& id) {
  for (std::int64_t x : {1, 2, 3}) {
    const Record& rec = r.at(id, x);
    EXPECT_EQ(rec.status, Status::Ok) << id << " x=" << x << ": " << rec.reason;
    EXPECT_EQ(rec.metric("value/x")->value(), double(x));
  }
}

void expect_failed_from_second_point(const IsolatedRun& r, const std::string& id, const std::string& why) {
  EXPECT_EQ(r.at(id, 1).status, Status::Ok) << "the point before the failure is kept";
  const Record& bad = r.at(id, 2);
  EXPECT_EQ(bad.status, Status::Failed);
  EXPECT_NE(bad.reason.find(why), std::string::npos) << bad.reason;
  EXPECT_EQ(r.at(id, 3).status, Status::Failed);
  EXPECT_NE(r.at(id, 3).reason.find("not run: the probe's child process ended at point x=2"), std::string::npos)
      << r.at(id, 3).reason;
}

TEST(Isolation, ATrappingAndAFaultingProbeLoseNoOtherRecord) {
  const IsolatedRun r = run({"t.ok", "t.trap", "t.segv", "t.exit", "t.after"}, IsolateMode::All);
  ASSERT_EQ(r.sink.records.size(), 15u);
  expect_healthy(r, "t.ok");
  expect_healthy(r, "t.after");
  expect_failed_from_second_point(r, "t.trap", "killed by SIGABRT (Aborted)");
  expect_failed_from_second_point(r, "t.segv", "killed by SIGSEGV (Segmentation fault)");
  expect_failed_from_second_point(r, "t.exit", "exited with status 7");
  EXPECT_EQ(r.summary.ok, 9);
  EXPECT_EQ(r.summary.failed, 6);
  EXPECT_EQ(r.at("t.ok", 1).extra.value("isolated", false), true);
}

TEST(Isolation, AHangingProbeIsKilledByTheWatchdogAndTheRunGoesOn) {
  const IsolatedRun r = run({"t.ok", "t.hang", "t.after"}, IsolateMode::All, 1.0);
  ASSERT_EQ(r.sink.records.size(), 9u);
  expect_healthy(r, "t.ok");
  expect_healthy(r, "t.after");
  expect_failed_from_second_point(r, "t.hang", "hung: no result within 1 s; the watchdog killed the child process");
  EXPECT_LT(r.seconds, 20) << "the watchdog must not wait for the hang";
}

TEST(Isolation, RiskyProbesAreIsolatedByDefaultAndOnlyThey) {
  const IsolatedRun r = run({"t.ok", "t.risky"}, IsolateMode::Risky);
  ASSERT_EQ(r.sink.records.size(), 6u);
  EXPECT_FALSE(r.at("t.ok", 1).extra.contains("isolated")) << "a probe not marked risky runs in process";
  expect_failed_from_second_point(r, "t.risky", "SIGABRT");
}

TEST(Isolation, TheChildKeepsTheRunsSamplingSingleSampleIncluded) {
  SamplingOverride single;
  single.single_sample = true;  // compute-sanitizer and ncu runs: isolated probes must obey it too
  const IsolatedRun r = run({"t.sampled"}, IsolateMode::All, 5, single);
  ASSERT_EQ(r.sink.records.size(), 3u);
  for (const Record& rec : r.sink.records) {
    ASSERT_EQ(rec.status, Status::Ok) << rec.reason;
    EXPECT_EQ(rec.metric("value/x")->stats.n, 1u);
  }
  SamplingOverride twelve;
  twelve.min_samples = 12;
  EXPECT_EQ(run({"t.sampled"}, IsolateMode::All, 5, twelve).at("t.sampled", 1).metric("value/x")->stats.n, 12u);
}

TEST(Isolation, TheChildKeepsFunctionalSizes) {
  SamplingOverride functional;
  functional.functional = true;  // scripts/sanitize.sh's racecheck runs: the child shrinks its kernels too
  const IsolatedRun r = run({"t.sized"}, IsolateMode::All, 5, functional);
  ASSERT_EQ(r.sink.records.size(), 3u);
  for (const Record& rec : r.sink.records) {
    ASSERT_EQ(rec.status, Status::Ok) << rec.reason;
    EXPECT_EQ(rec.metric("value/x")->value(), 3) << "the functional size";
    EXPECT_EQ(rec.metric("value/samples")->stats.n, 1u) << "--functional measures once";
  }
  EXPECT_EQ(run({"t.sized"}, IsolateMode::All, 5).at("t.sized", 1).metric("value/x")->value(), 1000);
}

TEST(ChildProcess, AChildThatCannotStartIsAFailureNotAHang) {
  const ChildOutcome o = run_child({"/nonexistent/program"}, [](const std::string&) {}, 5);
  EXPECT_TRUE(o.exited);
  EXPECT_EQ(o.status, 127);
  EXPECT_NE(o.describe(5).find("cannot execute"), std::string::npos) << o.describe(5);
}

// A serving child answers request after request in one process; a request that it leaves
// unanswered (it exits, or hangs past the watchdog) ends the session with how it ended.
TEST(ChildSession, OneChildAnswersEveryRequestUntilItEnds) {
  const std::string script =
      "while read line; do if [ \"$line\" = quit ]; then exit 7; fi; "
      "if [ \"$line\" = hang ]; then sleep 60; fi; echo \"$$ $line\" >&3; echo end >&3; done";
  ChildSession child({"/bin/sh", "-c", script});
  std::vector<std::string> lines;
  const auto take = [&](const std::string& l) {
    if (l == "end") return true;
    lines.push_back(l);
    return false;
  };
  EXPECT_FALSE(child.request("a", take, 5).has_value());
  EXPECT_FALSE(child.request("b", take, 5).has_value());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], std::to_string(child.pid()) + " a");
  EXPECT_EQ(lines[1], std::to_string(child.pid()) + " b") << "the same process answered both";
  const auto ended = child.request("quit", take, 5);
  ASSERT_TRUE(ended.has_value());
  EXPECT_TRUE(ended->exited);
  EXPECT_EQ(ended->status, 7);
  EXPECT_FALSE(child.serving());
  EXPECT_EQ(child.request("c", take, 5)->status, 7) << "a session whose child is gone says how it ended";

  ChildSession hung({"/bin/sh", "-c", script});
  const auto t0 = std::chrono::steady_clock::now();
  const auto timed_out = hung.request("hang", take, 0.5);
  ASSERT_TRUE(timed_out.has_value());
  EXPECT_TRUE(timed_out->timed_out);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5);
}

TEST(ChildSession, ClosingTheSessionEndsItsChild) {
  const auto t0 = std::chrono::steady_clock::now();
  {
    ChildSession child({"/bin/sh", "-c", "while read line; do echo end >&3; done; exit 0"});
    EXPECT_FALSE(child.request("x", [](const std::string&) { return true; }, 5).has_value());
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.5)
      << "its stdin closed, the child ended at once (not after the 2 s grace)";
  ChildSession missing({"/nonexistent/program"});
  const auto o = missing.request("x", [](const std::string&) { return true; }, 5);
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->status, 127);
}

}  // namespace
}  // namespace gd
