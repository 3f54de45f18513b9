#include "core/tenancy.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <sstream>

#include "core/error.hpp"
#include "core/gpu_lock.hpp"
#include "support/sample_run.hpp"
#include "support/text.hpp"

extern char** environ;

namespace gd {
namespace {

GpuProcess proc(unsigned pid, unsigned long long mib = 1002) { return {pid, mib << 20, "compute"}; }

// A machine as the tests describe it: pids 100 (this run), 101 and 102 (its children) are ours,
// 554 is someone else's python3, anything else is not visible here.
struct FakeMachine {
  int own = 1;
  ProcessView view() const {
    return {[](unsigned pid) {
              if (pid >= 100 && pid <= 102) return PidRelation::Own;
              return pid == 554 ? PidRelation::Other : PidRelation::Unseen;
            },
            [this] { return own; }, [](unsigned pid) { return pid == 554 ? std::string("python3") : std::string(); }};
  }
};

// The card as NVML would describe it, with a fake clock that the idle window advances.
struct FakeCard {
  std::vector<GpuProcess> processes = {proc(100)};
  bool listable = true;
  double utilization = 0, power = 80, limit = 700;
  double now = 0;
  TenancySource source() {
    return [this](unsigned long long idle_since_us) {
      TenancyReading r;
      if (listable) r.processes = processes;
      if (idle_since_us == 0) return r;
      r.utilization = Utilization{utilization, 3, "samples"};
      r.power_w = power;
      r.power_limit_w = limit;
      return r;
    };
  }
  TenancyMonitor monitor(const FakeMachine& m) {
    return TenancyMonitor(source(), m.view(), [this] { return now; }, [this](double s) { now += s; });
  }
};

TEST(Tenancy, BusyAtStartNamesTheTenantItsMemoryUtilizationAndPower) {
  FakeCard card;
  card.processes = {proc(100, 600), proc(554, 1002)};
  card.utilization = 100;
  card.power = 691;
  FakeMachine m;
  TenancyMonitor mon = card.monitor(m);
  const TenancyVerdict v = mon.check_idle(0.6);
  EXPECT_TRUE(v.checked);
  ASSERT_TRUE(v.busy);
  EXPECT_TRUE(contains(v.text(), "another process has a context on this GPU: pid 554 python3 (compute, 1002 MiB)")) << v.text();
  EXPECT_TRUE(contains(v.text(), "GPU utilization up to 100 % over 3 NVML sample(s) while this run launched nothing")) << v.text();
  EXPECT_TRUE(contains(v.text(), "board power 691 W of its 700 W limit")) << v.text();
  EXPECT_FALSE(contains(v.text(), "pid 100")) << "this run is not its own tenant";
  EXPECT_EQ(v.reading["processes"].size(), 2u);
  EXPECT_EQ(v.reading["processes"][1]["name"], "python3");
  EXPECT_EQ(v.reading["processes"][0]["relation"], "this run");
  const std::string msg = busy_message("GPU 0 (NVIDIA H200, GPU-9b83f6d3)", v);
  EXPECT_TRUE(contains(msg, "GPU 0 (NVIDIA H200, GPU-9b83f6d3) is in use: another process")) << msg;
  EXPECT_TRUE(contains(msg, "--allow-busy")) << msg;
  EXPECT_NEAR(card.now, 0.6, 1e-9) << "the window waited";
}

// What `run` does with the look before its first probe: refuse (GpuBusy: exit 75) naming what it
// saw, or with --allow-busy warn and measure.
TEST(Tenancy, ABusyCardRefusesTheRunUnlessAllowed) {
  FakeCard card;
  card.processes = {proc(100), proc(554)};
  FakeMachine m;
  std::ostringstream notes;
  {
    TenancyMonitor mon = card.monitor(m);
    try {
      require_alone(mon, "GPU 0 (NVIDIA H200, GPU-9b83f6d3)", false, notes);
      ADD_FAILURE() << "a busy card must refuse";
    } catch (const GpuBusy& e) {
      EXPECT_TRUE(contains(e.what(), "GPU 0 (NVIDIA H200, GPU-9b83f6d3) is in use: another process has a context on this GPU: "
                                     "pid 554 python3 (compute, 1002 MiB)")) << e.what();
    }
    EXPECT_NEAR(card.now, 0.8, 1e-9) << "after the idle window";
  }
  TenancyMonitor mon = card.monitor(m);
  const TenancyVerdict v = require_alone(mon, "GPU 0", true, notes);
  EXPECT_TRUE(v.busy);
  EXPECT_TRUE(contains(notes.str(), "gpudissect: warning: GPU 0 is in use (another process")) << notes.str();
  EXPECT_TRUE(contains(notes.str(), "measuring anyway (--allow-busy)")) << notes.str();
  card.processes = {proc(100)};
  notes.str("");
  TenancyMonitor alone = card.monitor(m);
  EXPECT_FALSE(require_alone(alone, "GPU 0", false, notes).busy);
  EXPECT_EQ(notes.str(), "") << "a run alone says nothing";
  card.listable = false;
  TenancyMonitor blind(
      [](unsigned long long) { return TenancyReading{}; }, m.view(), [] { return 0.0; }, [](double) {});
  EXPECT_FALSE(require_alone(blind, "GPU 0", false, notes).checked);
  EXPECT_TRUE(contains(notes.str(), "whether another tenant shares the GPU is not checked")) << notes.str();
}

TEST(Tenancy, EachSignAloneIsEnoughAndAnIdleCardIsNotBusy) {
  FakeMachine m;
  {
    FakeCard card;  // this run alone, 0 %, 80 W
    TenancyMonitor mon = card.monitor(m);
    const TenancyVerdict v = mon.check_idle(0.6);
    EXPECT_TRUE(v.checked);
    EXPECT_FALSE(v.busy) << v.text();
    EXPECT_EQ(v.reading["busy"], false);
  }
  {
    FakeCard card;  // no process listed (hidden, or MIG), but the SMs are busy
    card.processes.clear();
    card.utilization = 40;
    TenancyMonitor mon = card.monitor(m);
    EXPECT_TRUE(mon.check_idle(0.6).busy);
  }
  {
    FakeCard card;  // power alone
    card.power = 400;
    TenancyMonitor mon = card.monitor(m);
    EXPECT_TRUE(mon.check_idle(0.6).busy);
  }
  {
    FakeCard card;  // between points the run's own kernels are the utilization: only processes count
    card.utilization = 100;
    card.power = 690;
    TenancyMonitor mon = card.monitor(m);
    EXPECT_FALSE(mon.sample().busy);
  }
}

TEST(Tenancy, TheRunsOwnChildrenNeverCount) {
  FakeCard card;
  card.processes = {proc(100), proc(101), proc(102)};  // an isolated probe's child and its patched launch
  FakeMachine m;
  TenancyMonitor mon = card.monitor(m);
  EXPECT_FALSE(mon.check_idle(0.6).busy);
  for (int i = 0; i < 5; ++i, card.now += 1) EXPECT_FALSE(mon.sample().busy);
}

// In a container NVML's pids are the host's: none is ours or visible. Then the count decides.
TEST(Tenancy, AHiddenPidContainerStillReadsAsBusy) {
  FakeCard card;
  card.processes = {proc(90001), proc(90002)};
  FakeMachine m;  // this run alone: one process of ours
  {
    TenancyMonitor mon = card.monitor(m);
    const TenancyVerdict v = mon.check_idle(0.6);
    ASSERT_TRUE(v.busy);
    EXPECT_TRUE(contains(v.text(), "NVML lists 2 processes with a context on this GPU and this run has 1")) << v.text();
    EXPECT_TRUE(contains(v.text(), "another pid namespace")) << v.text();
  }
  m.own = 2;  // the second is an isolated probe's child: nobody else
  TenancyMonitor mon = card.monitor(m);
  EXPECT_FALSE(mon.check_idle(0.6).busy);
}

// A context being torn down (a child that just exited) lingers in NVML's list briefly: an unseen
// pid beside our own is a tenant only once it has been listed for the grace period.
TEST(Tenancy, AnUnseenPidCountsOnceItLingers) {
  FakeCard card;
  card.processes = {proc(100), proc(4242)};
  FakeMachine m;
  TenancyMonitor mon = card.monitor(m);
  EXPECT_FALSE(mon.sample().busy) << "first seen now";
  card.now += kUnseenPidGraceS / 2;
  EXPECT_FALSE(mon.sample().busy);
  card.now += kUnseenPidGraceS;
  const TenancyVerdict v = mon.sample();
  EXPECT_TRUE(v.busy);
  EXPECT_TRUE(contains(v.text(), "pid 4242 (compute, 1002 MiB), not visible from here")) << v.text();
  card.processes = {proc(100)};
  EXPECT_FALSE(mon.sample().busy) << "gone";
  card.processes = {proc(100), proc(4242)};
  EXPECT_FALSE(mon.sample().busy) << "back: its grace starts again";
  EXPECT_EQ(mon.samples(), 5);
}

TEST(Tenancy, WithoutNvmlNothingIsCheckedAndNothingIsAssumed) {
  FakeCard card;
  card.listable = false;
  FakeMachine m;
  TenancyMonitor mon(
      [](unsigned long long) { return TenancyReading{}; }, m.view(), [] { return 0.0; }, [](double) {});
  const TenancyVerdict v = mon.check_idle(0.6);
  EXPECT_FALSE(v.checked);
  EXPECT_FALSE(v.busy);
  EXPECT_EQ(v.reading["why"], "NVML could not list the GPU's processes");
}

// The real /proc: this process is its own, its parent is not.
TEST(Tenancy, ThisProcessViewPlacesPidsByAncestry) {
  const ProcessView v = this_process_view();
  EXPECT_EQ(v.relation(unsigned(::getpid())), PidRelation::Own);
  EXPECT_EQ(v.relation(unsigned(::getppid())), PidRelation::Other);
  EXPECT_EQ(v.relation(4000000000u), PidRelation::Unseen);
  const pid_t child = ::fork();
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  EXPECT_EQ(v.relation(unsigned(child)), PidRelation::Own) << "a child";
  EXPECT_GE(v.own_count(), 2);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
}

// Sanitizer runs share the card on purpose (several at once) and the --ncu pass is its parent's:
// only a measurement locks the GPU and looks for tenants.
TEST(Tenancy, OnlyAMeasurementTakesTheGpu) {
  EXPECT_TRUE(run_takes_the_gpu(false, false, false));
  EXPECT_FALSE(run_takes_the_gpu(true, false, false)) << "the --ncu pass";
  EXPECT_FALSE(run_takes_the_gpu(false, true, false)) << "--single-sample";
  EXPECT_FALSE(run_takes_the_gpu(false, false, true)) << "--functional";
}

std::string gpu_busy_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const GpuBusy& e) {
    return e.what();
  }
  return "";
}

TEST(GpuLock, ASecondRunOnTheSameGpuRefusesNamingTheFirst) {
  test_support::TempDir dir;
  std::optional<GpuLock> first;
  first.emplace("GPU-9b83f6d3", "GPU 0", dir.path().string());
  const std::string msg = gpu_busy_of([&] { GpuLock second("GPU-9b83f6d3", "GPU 0 (NVIDIA H200)", dir.path().string()); });
  EXPECT_TRUE(contains(msg, "GPU 0 (NVIDIA H200) is being measured by another gpudissect run (pid " +
                                std::to_string(::getpid()) + ", started ")) << msg;
  EXPECT_NO_THROW(GpuLock other("GPU-0000aaaa", "GPU 1", dir.path().string())) << "another card is free";
  first.reset();
  EXPECT_NO_THROW(GpuLock again("GPU-9b83f6d3", "GPU 0", dir.path().string())) << "released with its holder";
}

// The kernel drops an flock when its holder dies, however it dies.
TEST(GpuLock, ARunKilledWithSigkillReleasesIt) {
  test_support::TempDir dir;
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t holder = ::fork();
  if (holder == 0) {
    GpuLock lock("GPU-9b83f6d3", "GPU 0", dir.path().string());
    (void)!::write(ready[1], "x", 1);
    ::pause();
    ::_exit(0);
  }
  char c;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  const std::string msg = gpu_busy_of([&] { GpuLock second("GPU-9b83f6d3", "GPU 0", dir.path().string()); });
  EXPECT_TRUE(contains(msg, "(pid " + std::to_string(holder) + ", started ")) << msg;
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  EXPECT_NO_THROW(GpuLock after("GPU-9b83f6d3", "GPU 0", dir.path().string()));
  ::close(ready[0]);
  ::close(ready[1]);
}

// The run's children (isolated probes, patched launches) are started by exec: they must not keep
// the lock alive after the run is gone.
TEST(GpuLock, ChildProcessesDoNotInheritIt) {
  test_support::TempDir dir;
  pid_t child = -1;
  {
    GpuLock lock("GPU-9b83f6d3", "GPU 0", dir.path().string());
    char arg0[] = "sleep", arg1[] = "30";
    char* argv[] = {arg0, arg1, nullptr};
    ASSERT_EQ(::posix_spawnp(&child, "sleep", nullptr, nullptr, argv, environ), 0);
  }
  EXPECT_NO_THROW(GpuLock after("GPU-9b83f6d3", "GPU 0", dir.path().string())) << "the exec'd child holds no copy";
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
}

TEST(GpuLock, AnUnusableLockFolderIsAUserError) {
  EXPECT_THROW(GpuLock("GPU-1", "GPU 0", "/nonexistent/gpudissect-locks"), UserError);
}

}  // namespace
}  // namespace gd
