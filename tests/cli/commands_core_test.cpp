// End to end: the real binary's `list`, `run` and `info`, and the errors a user sees when the
// input is wrong or the machine has no GPU. These never need a GPU.
#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cli/commands.hpp"
#include "core/executor.hpp"
#include "sass/disasm.hpp"
#include "support/shell.hpp"
#include "support/text.hpp"

namespace gd {
namespace {

// True when this machine has a usable GPU; GPU-less behaviour is only checkable without one.
bool machine_has_gpu() { return gpudissect("info").status == 0; }

TEST(ListCommand, ListsEveryFirstProbe) {
  const auto r = gpudissect("list");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* id : {"latency.alu.ffma", "latency.alu.iadd3", "latency.alu.imad", "latency.alu.lop3",
                         "memory.latency.chase", "memory.bandwidth.dram", "compute.peak.fp32"})
    EXPECT_TRUE(contains(r.output, id)) << id;
}

TEST(ListCommand, FilterByGlobPrefixAndCategory) {
  auto r = gpudissect("list --filter 'latency.alu.*'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "latency.alu.lop3"));
  EXPECT_FALSE(contains(r.output, "memory.latency.chase"));
  r = gpudissect("list --category memory");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "memory.bandwidth.dram"));
  EXPECT_FALSE(contains(r.output, "latency.alu.ffma"));
}

TEST(ListCommand, VerboseShowsSassExpectations) {
  const auto r = gpudissect("list -v --filter latency.alu.ffma");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "(timed region): FFMA[")) << "a chain is bounded above and below: " << r.output;
}

TEST(ListCommand, FilterMatchingNothingSuggestsAndFails) {
  const auto r = gpudissect("list --filter latency.alu.fma");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.output, "matches no probe")) << r.output;
  EXPECT_TRUE(contains(r.output, "latency.alu.ffma")) << r.output;
}

TEST(ListCommand, UnknownCategoryListsKnownOnes) {
  const auto r = gpudissect("list --category quantum");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.output, "unknown category 'quantum'")) << r.output;
  EXPECT_TRUE(contains(r.output, "memory")) << r.output;
}

TEST(RunCommand, BadFilterFailsBeforeTouchingTheGpu) {
  const auto r = gpudissect("run --filter no.such.probe --out /tmp/gd-e2e-unused");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.output, "matches no probe")) << r.output;
  EXPECT_FALSE(std::filesystem::exists("/tmp/gd-e2e-unused"));
}

TEST(RunCommand, UnwritableOutputDirectoryIsAClearError) {
  const auto r = gpudissect("run --filter latency.alu.ffma --out /proc/gpudissect-cannot-write-here");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.output, "cannot create output directory")) << r.output;
}

TEST(RunCommand, NoGpuIsAClearErrorAndLeavesNoFolder) {
  if (machine_has_gpu()) GTEST_SKIP() << "this machine has a GPU";
  const auto dir = std::filesystem::temp_directory_path() / ("gd-e2e-nogpu-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const auto r = gpudissect("run --quick --filter latency.alu.ffma --out " + (dir / "results").string());
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_TRUE(contains(r.output, "gpudissect: error:")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir)) << "a run that could not start left an empty results folder";
  std::filesystem::remove_all(dir);
}

// `run --devices abc` on a driverless machine said "CUDA driver version is insufficient" (exit 3):
// a malformed list is bad input on any machine, said before the driver is asked.
TEST(RunCommand, AMalformedDeviceListIsAUsageError) {
  for (const std::string list : {"abc", "0,,1", "-1", "1.5"}) {
    const auto r = gpudissect("run '--devices=" + list + "' --filter latency.alu.ffma --out /tmp/gd-e2e-unused");
    EXPECT_EQ(r.status, 2) << list << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, "--devices '" + list + "': expected 'all' or device indices")) << r.output;
    EXPECT_FALSE(contains(r.output, "insufficient")) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists("/tmp/gd-e2e-unused"));
}

// A well-formed --devices on a machine without a GPU or driver reads as a plain `run` there.
TEST(RunCommand, DevicesWithoutAGpuReadsAsPlainRun) {
  if (machine_has_gpu()) GTEST_SKIP() << "this machine has a GPU";
  const auto plain = gpudissect("run --filter latency.alu.ffma --out /tmp/gd-e2e-unused");
  ASSERT_EQ(plain.status, 3) << plain.output;
  for (const std::string list : {"all", "0", "0,1"}) {
    const auto r = gpudissect("run --devices " + list + " --filter latency.alu.ffma --out /tmp/gd-e2e-unused");
    EXPECT_EQ(r.status, 3) << list << "\n" << r.output;
    EXPECT_EQ(r.output, plain.output) << list;
  }
  EXPECT_FALSE(std::filesystem::exists("/tmp/gd-e2e-unused"));
}

// True when the CUDA driver library loads here, as the runtime would load it.
bool driver_installed() {
  void* lib = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (lib) ::dlclose(lib);
  return lib != nullptr;
}

TEST(RunCommand, NcuWithoutNcuSaysSoBeforeTouchingTheGpu) {
  if (std::filesystem::exists("/usr/local/cuda/bin/ncu")) GTEST_SKIP() << "this machine has ncu";
  const auto r = run_command("env -u GPUDISSECT_NCU CUDA_HOME=/nonexistent PATH=/usr/bin:/bin " +
                                   std::string(GPUDISSECT_BINARY) +
                                   " run --ncu --filter latency.alu.ffma --out /tmp/gd-e2e-unused 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "run --ncu needs Nsight Compute")) << r.output;
  EXPECT_FALSE(std::filesystem::exists("/tmp/gd-e2e-unused"));
}

TEST(RunCommand, NcuOptionsWithoutNcuAreAnError) {
  const auto r = gpudissect("run --ncu-metric lts__t_sectors.sum --filter latency.alu.ffma --out /tmp/gd-e2e-unused");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "only apply with --ncu")) << r.output;
  const auto bad = gpudissect("run --ncu --ncu-exe /bin/sh --ncu-metric 'x;y' --filter latency.alu.ffma --out /tmp/gd-e2e-unused");
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_TRUE(contains(bad.output, "not an Nsight Compute metric name")) << bad.output;
}

TEST(InfoCommand, NoGpuIsAClearError) {
  if (machine_has_gpu()) GTEST_SKIP() << "this machine has a GPU";
  const auto r = gpudissect("info");
  EXPECT_EQ(r.status, 3);
  if (driver_installed()) {
    EXPECT_TRUE(contains(r.output, "no usable CUDA device") || contains(r.output, "no CUDA device")) << r.output;
  } else {
    // The runtime's own words would be "CUDA driver version is insufficient", which sends users
    // after an upgrade of a driver they do not have.
    EXPECT_TRUE(contains(r.output, "gpudissect: error: no NVIDIA driver is installed")) << r.output;
    EXPECT_FALSE(contains(r.output, "insufficient")) << r.output;
  }
}

TEST(Cli, UnknownSubcommandAndOptionAreUsageErrors) {
  EXPECT_EQ(gpudissect("frobnicate").status, 2);
  EXPECT_EQ(gpudissect("list --no-such-option").status, 2);
  EXPECT_EQ(gpudissect("").status, 2);
}

TEST(Cli, VersionNamesTheRevision) {
  const auto r = gpudissect("--version");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(contains(r.output, GPUDISSECT_VERSION)) << r.output;
}

}  // namespace
}  // namespace gd

namespace gd {
namespace {

// A run with a SASS mismatch exits 1 even when every point "succeeded"; flags alone do not fail it.
TEST(RunExitCode, AMismatchFailsTheRunFlagsDoNot) {
  ExecuteSummary s;
  s.ok = 10;
  s.sass_unverified = 2;
  s.unconverged = 3;
  s.throttled = 1;
  EXPECT_EQ(cli::run_exit_code(s), 0);
  s.sass_mismatch = 1;
  EXPECT_EQ(cli::run_exit_code(s), 1);
  s.sass_mismatch = 0;
  s.failed = 1;
  EXPECT_EQ(cli::run_exit_code(s), 1);
  s.interrupted = true;
  EXPECT_EQ(cli::run_exit_code(s), 130);
}

}  // namespace
}  // namespace gd
