// The parent side of patched launches: whatever a child does (hang, crash, report and then hang),
// the parent gets one outcome per launch, in time, and the launches after a bad one still run.
// Fake children stand in for `gpudissect __patch-child` (no GPU needed).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "sass/patch.hpp"
#include "sass_test_util.hpp"

namespace gd::sass {
namespace {

// A shell script as the child (`script __patch-child --serve`): batch paths arrive one per line
// on stdin. Outcomes go to fd 3, one JSON line each.
std::string fake_child(const std::string& name, const std::string& body) {
  const std::string path = testing::scratch_dir() + "/" + name + ".sh";
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

const char* kCompleted = R"(echo '{"kind":"completed","message":"","buffers":["2a"]}' >&3)";

// Any valid cubin: the fake children never load it.
const Cubin& some_cubin() {
  static const Cubin c = testing::compile_cubin(testing::kChainSource, "sm_90a");
  return c;
}

std::vector<PatchedLaunch> batch(std::size_t n) {
  LaunchJob job;
  job.kernel = "k";
  return std::vector<PatchedLaunch>(n, PatchedLaunch{&some_cubin(), job});
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(PatchChild, AHangingChildIsKilledWithinTheWatchdogAndTheRestRuns) {
  // Every child completes its first launch and hangs in its second: launches 1 and 3 hang.
  const std::string exe = fake_child("complete_then_hang", std::string(kCompleted) + "\nsleep 60");
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<LaunchOutcome> o = launch_batch_in_child(batch(4), 1.0, exe);
  ASSERT_EQ(o.size(), 4u);
  EXPECT_TRUE(o[0].completed());
  EXPECT_EQ(o[1].kind, LaunchOutcome::Kind::TimedOut);
  EXPECT_NE(o[1].message.find("hung"), std::string::npos) << o[1].message;
  EXPECT_TRUE(o[2].completed()) << "the launch after the hang ran in a fresh child";
  EXPECT_EQ(o[2].buffers.at(0), std::vector<std::uint8_t>{0x2a});
  EXPECT_EQ(o[3].kind, LaunchOutcome::Kind::TimedOut);
  EXPECT_LT(seconds_since(t0), 10) << "two hangs cost about two watchdog periods, not the child's sleep";
}

TEST(PatchChild, ACrashingChildMarksOneLaunchAndTheParentGoesOn) {
  const std::string exe = fake_child("crash", std::string(kCompleted) + "\nkill -SEGV $$");
  const std::vector<LaunchOutcome> o = launch_batch_in_child(batch(3), 5.0, exe);
  ASSERT_EQ(o.size(), 3u);
  EXPECT_TRUE(o[0].completed());
  EXPECT_EQ(o[1].kind, LaunchOutcome::Kind::Crashed);
  EXPECT_NE(o[1].message.find("SIGSEGV"), std::string::npos) << o[1].message;
  EXPECT_TRUE(o[2].completed());
}

TEST(PatchChild, AChildThatReportsAFailureIsReplacedForTheRest) {
  // A CUDA error poisons the child's context: it stops there and a fresh child takes the rest.
  const std::string exe =
      fake_child("cuda_error", R"(echo '{"kind":"cuda-error","message":"illegal instruction","buffers":[]}' >&3)");
  const std::vector<LaunchOutcome> o = launch_batch_in_child(batch(3), 5.0, exe);
  ASSERT_EQ(o.size(), 3u);
  for (const auto& x : o) {
    EXPECT_EQ(x.kind, LaunchOutcome::Kind::CudaError);
    EXPECT_EQ(x.message, "illegal instruction");
  }
}

std::vector<PatchedLaunch> grouped(const std::vector<std::string>& groups) {
  std::vector<PatchedLaunch> v = batch(groups.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i].group = groups[i];
  return v;
}

TEST(PatchChild, ASweepStopsAfterIdenticalFailuresOnlyWhenAsked) {
  // Every launch faults the same way, each in its own child.
  const std::string exe = fake_child("same_fault", R"(echo '{"kind":"cuda-error","message":"misaligned address","buffers":[]}' >&3)");
  const std::vector<std::string> groups = {"", "a", "a", "b", "b", "b", "b", "c"};
  const std::vector<LaunchOutcome> o = launch_batch_in_child(grouped(groups), 5.0, exe, 2);
  ASSERT_EQ(o.size(), groups.size());
  // "a" ends before a third launch; "b" runs two, the other two are not run; "c" starts afresh.
  for (std::size_t i : {0, 1, 2, 3, 4, 7}) EXPECT_EQ(o[i].kind, LaunchOutcome::Kind::CudaError) << i;
  for (std::size_t i : {5, 6}) {
    EXPECT_EQ(o[i].kind, LaunchOutcome::Kind::NotRun) << i;
    EXPECT_NE(o[i].message.find("the 2 launches before it in its sweep (b) failed the same way (cuda-error: misaligned address)"),
              std::string::npos) << o[i].message;
  }
  // Without stop_after every launch runs.
  for (const auto& x : launch_batch_in_child(grouped(groups), 5.0, exe)) EXPECT_EQ(x.kind, LaunchOutcome::Kind::CudaError);
}

TEST(PatchChild, DifferentFailuresOrAGroupWithoutANameNeverStopASweep) {
  // The message names how many launches the child was handed: each failure differs.
  const std::string exe = fake_child(
      "varied_fault", R"(read b; n=$(grep -o '"cubin"' "$b" | wc -l); echo "{\"kind\":\"cuda-error\",\"message\":\"left $n\",\"buffers\":[]}" >&3)");
  for (const auto& x : launch_batch_in_child(grouped({"a", "a", "a", "a"}), 5.0, exe, 2))
    EXPECT_EQ(x.kind, LaunchOutcome::Kind::CudaError) << x.message;
  const std::string same = fake_child("same_fault2", R"(echo '{"kind":"cuda-error","message":"x","buffers":[]}' >&3)");
  for (const auto& x : launch_batch_in_child(grouped({"", "", "", ""}), 5.0, same, 2))
    EXPECT_EQ(x.kind, LaunchOutcome::Kind::CudaError) << x.message;
}

TEST(PatchChild, AChildThatCannotStartFailsEveryLaunchWithoutHanging) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<LaunchOutcome> o = launch_batch_in_child(batch(2), 5.0, "/nonexistent/gpudissect");
  ASSERT_EQ(o.size(), 2u);
  for (const auto& x : o) EXPECT_EQ(x.kind, LaunchOutcome::Kind::Crashed);
  EXPECT_LT(seconds_since(t0), 5);
}

// A fake serving child: every launch of each batch completes with the child's pid as message.
const char* kServing = R"(while read b; do
  n=$(grep -o '"cubin"' "$b" | wc -l); i=0
  while [ $i -lt $n ]; do echo "{\"kind\":\"completed\",\"message\":\"$$\",\"buffers\":[]}" >&3; i=$((i+1)); done
  echo '{"end":true}' >&3
done)";

// Consecutive batches (one probe after another) share one child while it is fresh; a batch after
// a pause of kPatchChildReuse_s or more gets a new one (the old one ends by itself, idle).
TEST(PatchChild, BatchesInQuickSuccessionShareOneChild) {
  const std::string exe = fake_child("serving", kServing);
  const std::vector<LaunchOutcome> first = launch_batch_in_child(batch(3), 5.0, exe);
  const std::vector<LaunchOutcome> second = launch_batch_in_child(batch(2), 5.0, exe);
  ASSERT_EQ(first.size(), 3u);
  ASSERT_EQ(second.size(), 2u);
  for (const auto& o : first) EXPECT_TRUE(o.completed()) << o.message;
  EXPECT_EQ(second[1].message, first[0].message) << "the second batch ran in the first batch's child";
  std::this_thread::sleep_for(std::chrono::duration<double>(kPatchChildReuse_s + 0.1));
  const std::vector<LaunchOutcome> later = launch_batch_in_child(batch(1), 5.0, exe);
  EXPECT_TRUE(later.at(0).completed());
  EXPECT_NE(later.at(0).message, first[0].message) << "after a pause, a fresh child";
}

// The child's side of serving: each batch closed by the end line, then the next; it ends when its
// input does, or idle.
TEST(PatchChild, TheServingChildAnswersBatchAfterBatchAndEndsIdle) {
  const std::string empty = testing::scratch_dir() + "/empty_batch.json";
  std::ofstream(empty) << "[]";
  int in[2], out[2];
  ASSERT_EQ(::pipe(in), 0);
  ASSERT_EQ(::pipe(out), 0);
  const std::string requests = empty + "\n" + empty + "\n";
  ASSERT_EQ(::write(in[1], requests.data(), requests.size()), ssize_t(requests.size()));
  ::close(in[1]);
  EXPECT_EQ(patch_child_serve(in[0], out[1], 5), 0);
  ::close(in[0]);
  ::close(out[1]);
  std::string got;
  char buf[256];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) got.append(buf, std::size_t(n));
  ::close(out[0]);
  EXPECT_EQ(got, "{\"end\":true}\n{\"end\":true}\n");

  ASSERT_EQ(::pipe(in), 0);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(patch_child_serve(in[0], STDERR_FILENO, 0.2), 0) << "no request: it ends by itself";
  EXPECT_LT(seconds_since(t0), 2);
  ::close(in[0]);
  ::close(in[1]);
}

TEST(PatchChild, TheChildSideReportsAnUnreadableBatch) {
  const std::string path = testing::scratch_dir() + "/bad_batch.json";
  std::ofstream(path) << "{not json";
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  EXPECT_EQ(patch_child_main(path, fds[1]), 2);
  ::close(fds[1]);
  char buf[512] = {};
  const ssize_t n = ::read(fds[0], buf, sizeof buf - 1);
  ::close(fds[0]);
  ASSERT_GT(n, 0);
  EXPECT_NE(std::string(buf).find("unreadable patch batch"), std::string::npos) << buf;
}

}  // namespace
}  // namespace gd::sass
