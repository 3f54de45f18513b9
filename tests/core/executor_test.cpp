#include "core/executor.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <stdexcept>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

#include <chrono>
#include <thread>
#include <utility>

#include "core/clock_check.hpp"
#include "core/error.hpp"

namespace gd {
namespace {

using test_support::CollectingSink;

DeviceInfo fake_device(int cc, const std::string& code) {
  DeviceInfo d;
  d.name = "Fake GPU";
  d.cc_major = cc / 10;
  d.cc_minor = cc % 10;
  d.sm_count = 4;
  d.arch_code_loaded = code;
  d.features = features_for(cc, code);
  return d;
}

// A probe that needs no GPU: it reports its sweep point back as a metric.
ProbeSpec cpu_probe(const std::string& id, std::function<void(ProbeContext&)> run = {}) {
  ProbeSpec s;
  s.id = id;
  s.description = "test probe";
  s.metrics = {{"value/x", "units", "the x parameter"}};
  s.axes = {Axis::list("x", {1, 2, 3})};
  s.run = run ? run : [](ProbeContext& ctx) {
    ctx.set_observed_sm_clock_mhz(1000);
    ctx.metric("value/x", double(ctx.int_param("x")));
  };
  s.time_cap_s = 1;
  return s;
}

// A probe whose second point raises SIGINT (as Ctrl-C would) and still finishes.
ProbeSpec interrupted_at_x2() {
  return cpu_probe("t.interrupted", [](ProbeContext& ctx) {
    if (ctx.int_param("x") == 2) std::raise(SIGINT);
    ctx.set_observed_sm_clock_mhz(1);
    ctx.metric("value/x", 1.0);
  });
}

Registry test_registry() {
  Registry r;
  r.add(cpu_probe("latency.alu.ffma"));
  r.add(cpu_probe("latency.alu.iadd3"));
  r.add(cpu_probe("memory.latency.chase"));
  return r;
}

TEST(Select, NoFiltersSelectsAllInRegistryOrder) {
  const Registry reg = test_registry();
  const auto s = select_probes(reg, {});
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[2]->id, "memory.latency.chase");
}

TEST(Select, DottedPrefixSelectsASubtreeButNotAPartialWord) {
  const Registry reg = test_registry();
  EXPECT_EQ(select_probes(reg, {{"latency.alu"}, ""}).size(), 2u);
  EXPECT_THROW(select_probes(reg, {{"latency.al"}, ""}), UserError);
}

TEST(Select, GlobAndCategoryCombine) {
  const Registry reg = test_registry();
  EXPECT_EQ(select_probes(reg, {{"*latency*"}, "memory"}).size(), 1u);
  EXPECT_EQ(select_probes(reg, {{}, "latency"}).size(), 2u);
}

TEST(Select, FilterMatchingNothingNamesTheClosestIds) {
  const Registry reg = test_registry();
  try {
    select_probes(reg, {{"latency.alu.fma"}, ""});
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("latency.alu.ffma"), std::string::npos) << e.what();
  }
}

TEST(Select, UnknownCategoryListsTheKnownOnes) {
  const Registry reg = test_registry();
  try {
    select_probes(reg, {{}, "tensor"});
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("latency, memory"), std::string::npos) << e.what();
  }
}

TEST(Registry, RejectsBadSpecs) {
  Registry r;
  EXPECT_THROW(r.add(cpu_probe("nodots")), Error);
  EXPECT_THROW(r.add(cpu_probe("Upper.case")), Error);
  r.add(cpu_probe("a.b"));
  EXPECT_THROW(r.add(cpu_probe("a.b")), Error);
  ProbeSpec no_metrics = cpu_probe("a.c");
  no_metrics.metrics.clear();
  EXPECT_THROW(r.add(no_metrics), Error);
  EXPECT_EQ(r.categories(), std::vector<std::string>{"a"});
}

TEST(Gate, CapabilityAndArchSpecificCode) {
  Requirements hopper;
  hopper.min_cc = 90;
  EXPECT_TRUE(unmet_requirement(hopper, fake_device(80, "sm_80")).has_value());
  EXPECT_FALSE(unmet_requirement(hopper, fake_device(90, "sm_90a")).has_value());

  Requirements wgmma;
  wgmma.features = {Feature::Wgmma};
  EXPECT_FALSE(unmet_requirement(wgmma, fake_device(90, "sm_90a")).has_value());
  // Same chip, but only generic code loaded: the instruction is not there to run.
  const auto why = unmet_requirement(wgmma, fake_device(90, "sm_90"));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("wgmma"), std::string::npos);
  EXPECT_TRUE(unmet_requirement(wgmma, fake_device(100, "sm_100a")).has_value());

  Requirements tc5;
  tc5.features = {Feature::Tcgen05};
  EXPECT_FALSE(unmet_requirement(tc5, fake_device(100, "sm_100a")).has_value());
  EXPECT_TRUE(unmet_requirement(tc5, fake_device(120, "sm_120a")).has_value());

  Requirements two_gpus;
  two_gpus.min_gpus = 2;
  EXPECT_TRUE(unmet_requirement(two_gpus, fake_device(90, "sm_90a")).has_value());

  Requirements older;
  older.max_cc = 89;
  EXPECT_TRUE(unmet_requirement(older, fake_device(90, "sm_90a")).has_value());
}

TEST(Execute, RunsEveryPointAndStreamsRecords) {
  Registry reg;
  reg.add(cpu_probe("t.p"));
  DeviceInfo d = fake_device(90, "sm_90a");
  CollectingSink sink;
  ExecuteOptions o;
  o.progress = false;
  const auto s = execute(plan(select_probes(reg, {}), d), d, {&sink}, {}, o);
  EXPECT_EQ(s.ok, 3);
  ASSERT_EQ(sink.records.size(), 3u);
  EXPECT_DOUBLE_EQ(sink.records[2].metric("value/x")->value(), 3);
  EXPECT_EQ(sink.records[0].sm_clock_mhz, 1000);
  EXPECT_EQ(sink.records[0].sass.status, SassStatus::Unverified);
  EXPECT_TRUE(sink.finished);
  EXPECT_TRUE(sink.complete);
}

TEST(Execute, AFailingPointIsRecordedAndTheRunGoesOn) {
  Registry reg;
  reg.add(cpu_probe("t.fails", [](ProbeContext& ctx) {
    if (ctx.int_param("x") == 2) throw std::runtime_error("boom at 2");
    ctx.set_observed_sm_clock_mhz(1);
    ctx.metric("value/x", 1.0);
  }));
  reg.add(cpu_probe("t.after"));
  DeviceInfo d = fake_device(90, "sm_90a");
  CollectingSink sink;
  ExecuteOptions o;
  o.progress = false;
  const auto s = execute(plan(select_probes(reg, {}), d), d, {&sink}, {}, o);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.ok, 5);
  EXPECT_EQ(sink.records[1].status, Status::Failed);
  EXPECT_EQ(sink.records[1].reason, "boom at 2");
  EXPECT_TRUE(sink.records[1].metrics.empty());
}

// A probe with quick_leaves_out is one skipped record in a quick run that measures, with its
// reason; a full run and a quick check-mode run (plan without leave_out_quick) measure it.
TEST(Execute, AQuickRunLeavesOutWhatSaysSoAndOnlyThat) {
  Registry reg;
  ProbeSpec row = cpu_probe("t.row");
  row.quick_leaves_out = "the family's other rows stand for it";
  reg.add(row);
  reg.add(cpu_probe("t.kept"));
  DeviceInfo d = fake_device(90, "sm_90a");
  ExecuteOptions o;
  o.progress = false;
  o.quick = true;
  CollectingSink quick;
  const auto s = execute(plan(select_probes(reg, {}), d, true), d, {&quick}, {}, o);
  EXPECT_EQ(s.skipped, 1);
  EXPECT_EQ(s.ok, 3);
  ASSERT_EQ(quick.records.size(), 4u);
  EXPECT_EQ(quick.records[0].id, "t.row");
  EXPECT_EQ(quick.records[0].status, Status::Skipped);
  EXPECT_EQ(quick.records[0].reason,
            "left out of a quick run (a run without --quick measures it): the family's other rows stand for it");
  EXPECT_EQ(quick.records[1].id, "t.kept");
  EXPECT_EQ(quick.records[1].status, Status::Ok);

  CollectingSink all;
  EXPECT_EQ(execute(plan(select_probes(reg, {}), d, false), d, {&all}, {}, o).ok, 6);
  // An unmet requirement wins over the quick leave-out: the reason says what the chip lacks.
  ProbeSpec gated = cpu_probe("t.gated");
  gated.quick_leaves_out = "x";
  gated.needs.min_gpus = 2;
  EXPECT_NE(plan({&gated}, d, true).front().skip_reason->find("needs 2 GPUs"), std::string::npos);
}

TEST(Execute, SkipsWithReasonAndUndeclaredMetricsFail) {
  Registry reg;
  ProbeSpec gated = cpu_probe("t.gated");
  gated.needs.features = {Feature::Tcgen05};
  reg.add(gated);
  reg.add(cpu_probe("t.skips", [](ProbeContext& ctx) { ctx.skip("not here"); }));
  reg.add(cpu_probe("t.undeclared", [](ProbeContext& ctx) {
    ctx.set_observed_sm_clock_mhz(1);
    ctx.metric("nope", 1.0);
  }));
  DeviceInfo d = fake_device(90, "sm_90a");
  CollectingSink sink;
  ExecuteOptions o;
  o.progress = false;
  const auto s = execute(plan(select_probes(reg, {}), d), d, {&sink}, {}, o);
  ASSERT_EQ(sink.records.size(), 1u + 3u + 3u);
  EXPECT_EQ(sink.records[0].status, Status::Skipped);
  EXPECT_NE(sink.records[0].reason.find("tcgen05"), std::string::npos);
  EXPECT_EQ(sink.records[1].reason, "not here");
  EXPECT_EQ(sink.records[4].status, Status::Failed);
  EXPECT_NE(sink.records[4].reason.find("undeclared metric"), std::string::npos);
  EXPECT_EQ(s.skipped, 4);
  EXPECT_EQ(s.failed, 3);
}

// A probe whose points name the kernels they launch ("k<x>") and whose summary sums them.
ProbeSpec summing_probe() {
  ProbeSpec p = cpu_probe("t.sum", [](ProbeContext& ctx) {
    ctx.launched_by_name("k" + std::to_string(ctx.int_param("x")));
    ctx.set_observed_sm_clock_mhz(1000 + double(ctx.int_param("x")));
    ctx.metric("value/x", double(ctx.int_param("x")));
  });
  p.metrics.push_back({"value/sum", "units", "sum of x"});
  p.summarize = [](SummaryContext& sc) {
    double sum = 0;
    for (const Record* r : sc.ok_records()) sum += r->metric("value/x")->value();
    Record& r = sc.derive({{"x", ParamValue{std::string("all")}}}, sc.ok_records());
    sc.add_metric(r, "value/sum", single_value(sum));
  };
  return p;
}

std::vector<Record> run_with(const ProbeSpec& p, const SassVerifier& verifier, ExecuteSummary* summary = nullptr,
                             ExecuteOptions o = {}) {
  Registry reg;
  reg.add(p);
  DeviceInfo d = fake_device(90, "sm_90a");
  CollectingSink sink;
  o.progress = false;
  const ExecuteSummary s = execute(plan(select_probes(reg, {}), d), d, {&sink}, verifier, o);
  if (summary) *summary = s;
  return sink.records;
}

TEST(Execute, EachPointIsVerifiedAgainstTheKernelsItLaunched) {
  std::vector<std::vector<std::string>> seen;
  const SassVerifier verifier = [&](const ProbeSpec&, const DeviceInfo&, const std::vector<std::string>& k) {
    seen.push_back(k);
    return SassCheck{SassStatus::Verified, "checked " + k.at(0)};
  };
  const auto records = run_with(summing_probe(), verifier);
  ASSERT_EQ(records.size(), 4u);
  ASSERT_EQ(seen.size(), 3u) << "one check per point, not one per probe";
  EXPECT_EQ(seen[1], std::vector<std::string>{"k2"});
  EXPECT_EQ(records[1].kernels, std::vector<std::string>{"k2"});
  EXPECT_EQ(records[1].sass.detail, "checked k2");
  EXPECT_TRUE(records[3].derived);
  EXPECT_DOUBLE_EQ(records[3].metric("value/sum")->value(), 6);
  EXPECT_EQ(records[3].sass.status, SassStatus::Verified);
  EXPECT_EQ(records[3].kernels, (std::vector<std::string>{"k1", "k2", "k3"}));
}

// A run whose code does not match fails (exit 1 in the CLI), and what derives from a mismatched
// point inherits the mismatch instead of a clean probe-level stamp.
TEST(Execute, AMismatchedPointFailsTheRunAndTaintsItsAnalysis) {
  const SassVerifier verifier = [](const ProbeSpec&, const DeviceInfo&, const std::vector<std::string>& k) {
    if (k.at(0) == "k2") return SassCheck{SassStatus::Mismatch, "k2: FFMA x0"};
    return SassCheck{SassStatus::Verified, "ok"};
  };
  ExecuteSummary s;
  const auto records = run_with(summing_probe(), verifier, &s);
  EXPECT_EQ(s.sass_mismatch, 2) << "the point and the analysis over it";
  EXPECT_EQ(s.failed, 0);
  EXPECT_TRUE(s.failed_any());
  EXPECT_EQ(records[3].sass.status, SassStatus::Mismatch);
  EXPECT_NE(records[3].sass.detail.find("k2: FFMA x0"), std::string::npos) << records[3].sass.detail;
}

TEST(Execute, TheVerifiersOneTimeDisassemblyIsNotChargedToThePoint) {
  bool first = true;
  const SassVerifier verifier = [&](const ProbeSpec&, const DeviceInfo&, const std::vector<std::string>&) -> SassCheck {
    if (std::exchange(first, false)) std::this_thread::sleep_for(std::chrono::milliseconds(800));
    return {SassStatus::Verified, "ok"};
  };
  const auto records = run_with(summing_probe(), verifier);
  EXPECT_LT(records.at(0).elapsed_s, 0.5) << "the probe's own time, without the disassembly";
  EXPECT_GE(records.at(0).extra.value("sass_verify_s", 0.0), 0.8);
  EXPECT_FALSE(records.at(1).extra.contains("sass_verify_s"));
}

// While the verifier is being prepared (ready() false), finished points wait for their check and
// the next probe runs; they are checked and emitted in run order once it is ready, each probe's
// analysis after its points, and a run that ends first emits them at its end.
TEST(Execute, PointsWaitInOrderForAVerifierStillBeingPrepared) {
  std::vector<std::string> events;
  bool ready = false;
  Registry reg;
  const auto logging = [&](std::string id) {
    return [&events, id](ProbeContext& ctx) {
      events.push_back("run " + id + " " + std::to_string(ctx.int_param("x")));
      ctx.set_observed_sm_clock_mhz(1000);
      ctx.metric("value/x", double(ctx.int_param("x")));
    };
  };
  ProbeSpec a = cpu_probe("t.a", logging("t.a"));
  a.summarize = [&events](SummaryContext& sc) {
    events.push_back("analysis t.a");
    Record& d = sc.derive({{"analysis", ParamValue{std::string("sum")}}}, sc.ok_records());
    sc.add_metric(d, "value/x", single_value(double(sc.ok_records().size())));
  };
  reg.add(a);
  reg.add(cpu_probe("t.b", logging("t.b")));
  reg.add(cpu_probe("t.c", [&](ProbeContext& ctx) {
    ready = true;  // the background preparation finishes while t.c measures
    logging("t.c")(ctx);
  }));
  struct Logging : RecordSink {
    std::vector<std::string>& events;
    std::vector<Record> records;
    explicit Logging(std::vector<std::string>& e) : events(e) {}
    void on_record(const Record& r) override {
      events.push_back("emit " + r.id + (r.derived ? " derived" : " " + to_string(r.params)));
      records.push_back(r);
    }
  } sink(events);
  const SassVerifier verifier = [&](const ProbeSpec&, const DeviceInfo&, const std::vector<std::string>&) -> SassCheck {
    if (!ready) ADD_FAILURE() << "a check before the verifier was ready";
    return {SassStatus::Verified, "ok"};
  };
  DeviceInfo d = fake_device(90, "sm_90a");
  ExecuteOptions o;
  o.progress = false;
  o.verifier_ready = [&] { return ready; };
  const ExecuteSummary s = execute(plan(select_probes(reg, {}), d), d, {&sink}, verifier, o);
  const std::vector<std::string> points = {"x=1", "x=2", "x=3"};
  std::vector<std::string> want;
  for (const char* id : {"t.a", "t.b"})
    for (int x = 1; x <= 3; ++x) want.push_back(std::string("run ") + id + " " + std::to_string(x));
  want.push_back("run t.c 1");  // ready from here: everything waiting goes out, in order
  for (const char* id : {"t.a", "t.b"}) {
    for (const auto& x : points) want.push_back(std::string("emit ") + id + " " + x);
    if (std::string(id) == "t.a") want.insert(want.end(), {"analysis t.a", "emit t.a derived"});
  }
  want.insert(want.end(), {"emit t.c x=1", "run t.c 2", "emit t.c x=2", "run t.c 3", "emit t.c x=3"});
  EXPECT_EQ(events, want);
  EXPECT_EQ(s.ok, 10);
  for (const Record& r : sink.records) EXPECT_EQ(r.sass.status, SassStatus::Verified) << r.id;
}

TEST(Execute, ARunThatEndsBeforeTheVerifierIsReadyEmitsEverythingAtItsEnd) {
  int checks = 0;
  const SassVerifier verifier = [&](const ProbeSpec&, const DeviceInfo&, const std::vector<std::string>&) -> SassCheck {
    ++checks;
    return {SassStatus::Verified, "ok"};
  };
  Registry reg;
  reg.add(interrupted_at_x2());
  DeviceInfo d = fake_device(90, "sm_90a");
  CollectingSink sink;
  ExecuteOptions o;
  o.progress = false;
  o.verifier_ready = [] { return false; };  // never ready: the end waits for it
  const auto s = execute(plan(select_probes(reg, {}), d), d, {&sink}, verifier, o);
  EXPECT_TRUE(s.interrupted);
  ASSERT_EQ(sink.records.size(), 2u) << "an interrupted run keeps the points it finished";
  EXPECT_EQ(checks, 2);
  EXPECT_EQ(sink.records[1].sass.status, SassStatus::Verified);
  EXPECT_TRUE(sink.finished);
}

// Each probe's wall time (points, checks, analysis) is reported in run order, so a slow run
// says which probe made it slow; a probe that sleeps must show its sleep.
TEST(Execute, EachProbesWallTimeIsReportedInRunOrder) {
  Registry reg;
  reg.add(cpu_probe("t.fast"));
  reg.add(cpu_probe("t.slow", [](ProbeContext& ctx) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ctx.set_observed_sm_clock_mhz(1);
    ctx.metric("value/x", 1.0);
  }));
  DeviceInfo d = fake_device(90, "sm_90a");
  CollectingSink sink;
  ExecuteOptions o;
  o.progress = false;
  std::vector<std::pair<std::string, double>> walls;
  o.probe_wall_s = &walls;
  execute(plan(select_probes(reg, {}), d), d, {&sink}, {}, o);
  ASSERT_EQ(walls.size(), 2u);
  EXPECT_EQ(walls[0].first, "t.fast");
  EXPECT_EQ(walls[1].first, "t.slow");
  EXPECT_GE(walls[1].second, 0.3) << "three points of 100 ms each";
  EXPECT_LT(walls[0].second, 0.3);
}

TEST(Resummarize, TheAnalysisRunsAgainOverStoredPointsWithoutAGpu) {
  ProbeSpec p = summing_probe();
  const auto records = run_with(p, {});
  std::vector<Record> points;
  for (const Record& r : records)
    if (!r.derived) points.push_back(r);
  ASSERT_EQ(points.size(), 3u);
  const DeviceInfo d = fake_device(90, "sm_90a");
  auto derived = resummarize(p, points, d);
  ASSERT_EQ(derived.size(), 1u);
  EXPECT_TRUE(derived[0].derived);
  EXPECT_DOUBLE_EQ(derived[0].metric("value/sum")->value(), 6.0);
  // A fixed analysis gives a new answer from the same points; a broken one says so.
  p.summarize = [](SummaryContext& sc) {
    Record& r = sc.derive({{"x", ParamValue{std::string("all")}}}, sc.ok_records());
    sc.add_metric(r, "value/sum", single_value(42));
  };
  EXPECT_DOUBLE_EQ(resummarize(p, points, d).at(0).metric("value/sum")->value(), 42.0);
  p.summarize = [](SummaryContext&) { throw std::runtime_error("cannot use value() with null"); };
  derived = resummarize(p, points, d);
  ASSERT_EQ(derived.size(), 1u);
  EXPECT_EQ(derived[0].status, Status::Failed);
  EXPECT_NE(derived[0].reason.find("analysis failed: cannot use value() with null"), std::string::npos);
}

TEST(Execute, AVerifierThatThrowsLeavesThePointUnverified) {
  const SassVerifier verifier = [](const ProbeSpec&, const DeviceInfo&, const std::vector<std::string>&) -> SassCheck {
    throw std::runtime_error("cannot read cubin");
  };
  ExecuteSummary s;
  const auto records = run_with(summing_probe(), verifier, &s);
  EXPECT_EQ(records[0].sass.status, SassStatus::Unverified);
  EXPECT_NE(records[0].sass.detail.find("cannot read cubin"), std::string::npos);
  EXPECT_EQ(s.sass_unverified, 4);
  EXPECT_FALSE(s.failed_any()) << "unverified is flagged, not a failure";
}

TEST(Execute, PointsRecordConvergenceAndClockProvenance) {
  ProbeSpec p = cpu_probe("t.conv", [](ProbeContext& ctx) {
    ctx.launched_by_name("k");
    RepeatPolicy policy;
    policy.min_samples = 4;
    policy.max_samples = 6;
    policy.target_rel_ci = 0;  // never reached: stops at the sample cap
    int i = 0;
    const Summary s = ctx.measure([&] { return double(i++ % 2); }, policy).summary;
    if (ctx.int_param("x") == 2) ctx.no_sm_clock("copy engines only");
    else ctx.set_observed_sm_clock_mhz(1500);
    ctx.metric("value/x", s);
  });
  const auto records = run_with(p, {});
  ASSERT_EQ(records.size(), 3u);
  ASSERT_EQ(records[0].status, Status::Ok) << records[0].reason;
  const Convergence& c = records[0].convergence;
  EXPECT_TRUE(c.recorded);
  EXPECT_FALSE(c.converged);
  EXPECT_EQ(c.stop_reason, "sample cap");
  EXPECT_EQ(c.n, 6u);
  EXPECT_EQ(records[0].sm_clock_source, ClockSource::InKernel);
  EXPECT_EQ(records[0].sm_clock_mhz, 1500);
  EXPECT_EQ(records[1].sm_clock_source, ClockSource::None);
  EXPECT_EQ(records[1].sm_clock_mhz, 0) << "nothing borrowed from outside the timed work";
  EXPECT_EQ(records[1].sm_clock_detail, "copy engines only");
}

// Points measured more than 3 % under the application clock carry the flag, whatever NVML said,
// and a derived record inherits it from any of its points (issue 25: wgmma at 1612 MHz in-kernel
// read as a clean 1980 MHz record).
TEST(Execute, PointsBelowTheApplicationClockAreFlaggedAndDerivedRecordsInheritIt) {
  ProbeSpec p = summing_probe();
  p.run = [](ProbeContext& ctx) {
    ctx.launched_by_name("k");
    const std::int64_t x = ctx.int_param("x");
    ctx.set_observed_sm_clock_mhz(x == 2 ? 1900 : 1980);  // 1900 / 1980 = 0.96: more than 3 % under
    ctx.metric("value/x", double(x));
  };
  ExecuteOptions o;
  o.application_sm_clock_mhz = 1980;
  ExecuteSummary s;
  const auto records = run_with(p, {}, &s, o);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_FALSE(has_flag(records[0], kClockBelowApplicationFlag));
  EXPECT_TRUE(has_flag(records[1], kClockBelowApplicationFlag));
  EXPECT_DOUBLE_EQ(records[1].extra["clock_check"]["application_mhz"].get<double>(), 1980);
  EXPECT_TRUE(has_flag(records[3], kClockBelowApplicationFlag)) << "the derived sum inherits its point's flag";
  EXPECT_EQ(s.below_application_clock, 1) << "measured points only";
  o.application_sm_clock_mhz = 0;
  for (const Record& r : run_with(p, {}, nullptr, o)) EXPECT_TRUE(record_flags(r).empty()) << "no reference: no verdict";
}

// A tenant seen at the look after point 2 and gone by the look after point 4: points 2 and 3
// shared the GPU with it (2 ended beside it, 3 began beside it), 1 did not. The summing probe's
// analysis inherits the flag from its points.
// The progress line's escape codes belong on a terminal, never in a redirected log.
TEST(Execute, AProgressLineOnlyOnATerminal) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  EXPECT_FALSE(progress_wanted(false, fds[1])) << "a pipe or log file";
  ::close(fds[0]);
  ::close(fds[1]);
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) GTEST_SKIP() << "no pseudo-terminal here";
  const int terminal = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(terminal, 0);
  EXPECT_TRUE(progress_wanted(false, terminal));
  EXPECT_FALSE(progress_wanted(true, terminal)) << "--no-progress";
  ::close(terminal);
  ::close(master);
}

TEST(Execute, PointsMeasuredBesideAnotherTenantAreFlaggedAndCounted) {
  std::vector<bool> present = {false, false, true, false};  // the look before the first point, then after each
  std::size_t look = 0;
  ExecuteOptions o;
  o.tenants = [&]() -> std::optional<std::string> {
    const bool busy = look < present.size() && present[look];
    ++look;
    return busy ? std::optional<std::string>("another process has a context on this GPU: pid 554") : std::nullopt;
  };
  ExecuteSummary s;
  const auto records = run_with(summing_probe(), {}, &s, o);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(look, 4u) << "one look before the run and one after each point";
  EXPECT_FALSE(has_flag(records[0], kContendedFlag));
  EXPECT_TRUE(has_flag(records[1], kContendedFlag));
  EXPECT_EQ(records[1].extra["contended"], "another process has a context on this GPU: pid 554");
  EXPECT_TRUE(has_flag(records[2], kContendedFlag)) << "the look before it saw the tenant";
  EXPECT_TRUE(has_flag(records[3], kContendedFlag)) << "the analysis inherits its points' flag";
  EXPECT_EQ(s.contended, 2) << "measured points only";

  present.assign(8, true);  // busy throughout (--allow-busy): every point
  look = 0;
  EXPECT_EQ((run_with(summing_probe(), {}, &s, o), s.contended), 3);
  present.assign(8, false);  // alone: none
  look = 0;
  for (const Record& r : run_with(summing_probe(), {}, &s, o)) EXPECT_FALSE(has_flag(r, kContendedFlag));
  EXPECT_EQ(s.contended, 0);
}

TEST(Execute, DerivedRecordsTakeTheirClockAndConvergenceFromTheirSources) {
  const auto records = run_with(summing_probe(), {});
  const Record& sum = records.at(3);
  EXPECT_EQ(sum.sm_clock_source, ClockSource::FromPoints);
  EXPECT_DOUBLE_EQ(sum.sm_clock_mhz, 1002) << "median of 1001, 1002, 1003";
  EXPECT_EQ(sum.extra["derived_from_points"], 3);
}

TEST(Execute, ABestPointBecomesADerivedRecordWithItsParams) {
  ProbeSpec p = summing_probe();
  p.summarize = [](SummaryContext& sc) {
    sc.derive_best({{"x", ParamValue{std::string("best")}}}, sc.ok_records(), "value/x");
    sc.derive_best({{"x", ParamValue{std::string("least")}}}, sc.ok_records(), "value/x", false);
  };
  const auto records = run_with(p, {});
  ASSERT_EQ(records.size(), 5u);
  EXPECT_DOUBLE_EQ(records[3].metric("value/x")->value(), 3);
  EXPECT_EQ(records[3].extra["best_point"]["x"], 3);
  EXPECT_EQ(records[3].kernels, std::vector<std::string>{"k3"});
  EXPECT_DOUBLE_EQ(records[4].metric("value/x")->value(), 1);
}

TEST(Execute, AxisOverridesRestrictThePlannedPointsAndAreValidated) {
  const Registry reg = test_registry();
  DeviceInfo d = fake_device(90, "sm_90a");
  auto planned = plan(select_probes(reg, {{"latency.alu"}, ""}), d);
  apply_axis_overrides(planned, {{"latency.alu.ffma", "x", "2,3"}});
  EXPECT_EQ(planned[0].axes[0].values.size(), 2u);
  EXPECT_EQ(planned[1].axes[0].values.size(), 3u) << "other probes keep their axes";
  CollectingSink sink;
  ExecuteOptions o;
  o.progress = false;
  execute(planned, d, {&sink}, {}, o);
  EXPECT_EQ(sink.records.size(), 2u + 3u);
  EXPECT_EQ(to_string(sink.records[0].params), "x=2");
  EXPECT_THROW(apply_axis_overrides(planned, {{"latency.alu.*", "y", "1"}}), UserError) << "no such axis";
  EXPECT_THROW(apply_axis_overrides(planned, {{"memory.*", "x", "1"}}), UserError) << "probe not selected";
  EXPECT_THROW(apply_axis_overrides(planned, {{"latency.alu.iadd3", "x", "7"}}), UserError) << "value not declared";
}

TEST(Execute, SamplingOverrideReachesTheProbesPolicy) {
  ProbeSpec p = cpu_probe("t.sampling", [](ProbeContext& ctx) {
    RepeatPolicy policy;
    policy.min_samples = 3;
    ctx.metric("value/x", ctx.measure([] { return 1.0; }, policy).summary);
    ctx.set_observed_sm_clock_mhz(1000);
  });
  ExecuteOptions o;
  o.sampling.min_samples = 12;
  const auto records = run_with(p, {}, nullptr, o);
  EXPECT_EQ(records.at(0).metric("value/x")->stats.n, 12u);
  EXPECT_EQ(records.at(0).convergence.n, 12u);
}

TEST(Execute, SkippedPointsAreNotApplicableNotUnverified) {
  ProbeSpec p = cpu_probe("t.skip", [](ProbeContext& ctx) { ctx.skip("not here"); });
  ExecuteSummary s;
  const auto records = run_with(p, {}, &s);
  EXPECT_EQ(records[0].sass.status, SassStatus::NotApplicable);
  EXPECT_EQ(s.sass_unverified, 0);
}

TEST(Execute, InterruptStopsAfterThePointInFlightAndKeepsIt) {
  Registry reg;
  reg.add(interrupted_at_x2());
  reg.add(cpu_probe("t.never"));
  DeviceInfo d = fake_device(90, "sm_90a");
  CollectingSink sink;
  ExecuteOptions o;
  o.progress = false;
  const auto s = execute(plan(select_probes(reg, {}), d), d, {&sink}, {}, o);
  EXPECT_TRUE(s.interrupted);
  ASSERT_EQ(sink.records.size(), 2u);  // the point that saw the signal still finished
  EXPECT_EQ(sink.records[1].status, Status::Ok);
  EXPECT_TRUE(sink.finished);
  EXPECT_FALSE(sink.complete);
  // The run's handler is gone again: the default disposition is back.
  EXPECT_EQ(std::signal(SIGINT, SIG_DFL), SIG_DFL);
}

TEST(Features, FollowChipAndLoadedCode) {
  EXPECT_TRUE(features_for(80, "sm_80").empty());
  const auto h = features_for(90, "sm_90a");
  EXPECT_NE(std::find(h.begin(), h.end(), Feature::Wgmma), h.end());
  EXPECT_NE(std::find(h.begin(), h.end(), Feature::Tma), h.end());
  const auto b = features_for(120, "sm_120a");
  EXPECT_NE(std::find(b.begin(), b.end(), Feature::BlockScaledMma), b.end());
  EXPECT_EQ(std::find(b.begin(), b.end(), Feature::Tcgen05), b.end());
}

TEST(DeviceJson, RoundTripKeepsIdentityAndFeatures) {
  DeviceInfo d = fake_device(90, "sm_90a");
  d.l2_bytes = 50 << 20;
  d.nvml = DeviceInfo::Nvml{};
  d.nvml->sm_clock_mhz = 1980;
  const DeviceInfo e = device_from_json(to_json(d));
  EXPECT_EQ(e.name, d.name);
  EXPECT_EQ(e.cc(), 90);
  EXPECT_EQ(e.l2_bytes, d.l2_bytes);
  EXPECT_EQ(e.features, d.features);
  ASSERT_TRUE(e.nvml.has_value());
  EXPECT_EQ(e.nvml->sm_clock_mhz, 1980);
  EXPECT_THROW(device_from_json(nlohmann::json{{"name", "x"}}), std::invalid_argument);
  nlohmann::json bad = to_json(d);
  bad["features"] = {"warp_drive"};
  EXPECT_THROW(device_from_json(bad), std::invalid_argument);
}

}  // namespace
}  // namespace gd
