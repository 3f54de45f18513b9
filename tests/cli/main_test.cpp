// End to end: what main.cpp decides for every command: exit codes, write failures on standard
// output, unknown commands. These run the real binary and never need a GPU.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sass/disasm.hpp"
#include "sass/sass_test_util.hpp"
#include "support/shell.hpp"
#include "support/text.hpp"
#include "support/committed_suite.hpp"

namespace gd {
namespace {

using test_support::kSmallRun;

// Standard output goes to /dev/full (every write fails with ENOSPC); stderr is captured.
CommandResult with_stdout_full(const std::string& args) {
  return run_command(std::string(GPUDISSECT_BINARY) + " " + args + " 2>&1 >/dev/full");
}


// `report RUN.json > /dev/full` used to exit 0 with nothing written.
TEST(WriteErrors, AFullStandardOutputIsExitCode74WithAMessage) {
  for (const std::string& args : std::vector<std::string>{"list", "list -v", "report " + kSmallRun, "report " + kSmallRun + " --format csv",
                                 "compare " + kSmallRun + " " + kSmallRun, "--help"}) {
    const auto r = with_stdout_full(args);
    EXPECT_EQ(r.status, 74) << args << "\n" << r.output;
    // The reason is known when the failing write is the last one; a stream that failed earlier
    // no longer tells why.
    EXPECT_TRUE(contains(r.output, "gpudissect: error: cannot write standard output")) << args << "\n" << r.output;
  }
}

TEST(WriteErrors, AFailedCommandKeepsItsOwnExitCode) {
  // Prints a table, then fails: a binary without our kernels is a SASS mismatch (exit 1).
  GD_REQUIRE_DISASSEMBLER();
  const std::string exe = sass::testing::nvcc_build("__global__ void unrelated(float* p) { p[0] = 1.0f; }\n"
                                                    "int main() { return 0; }\n",
                                                    "--no-compress " + sass::testing::gencode("sm_90a"), ".x");
  const auto r = with_stdout_full("verify --exe " + exe + " --filter latency.alu.ffma");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "cannot write standard output")) << r.output;
}

// verify reads every translation unit's cubins: a kernel one arch's pass lacks is listed (text
// and --json) and fails the command on its own. The selected probe is gated off sm_80, so the
// probes' checks alone exit 0 (the uniform binary shows it).
TEST(Verify, NamesAKernelMissingFromADevicePass) {
  GD_REQUIRE_DISASSEMBLER();
  const std::string flags = "--no-compress " + sass::testing::gencode("sm_80") + " " + sass::testing::gencode("sm_90a");
  const std::string two_pass = sass::testing::nvcc_build(
      "template <int N> __global__ void only_in_one_pass(int* p) { p[0] = N; }\n"
      "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900\n"
      "template __global__ void only_in_one_pass<9>(int*);\n"
      "#endif\n"
      "int main() { return 0; }\n",
      flags, ".pass");
  const std::string select = " --arch sm_80 --filter tensor.wgmma.latency";
  auto r = gpudissect("verify --exe " + two_pass + select);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "1 kernel(s) missing from a device pass")) << r.output;
  EXPECT_TRUE(contains(r.output, "only_in_one_pass")) << r.output;
  r = gpudissect("verify --json --exe " + two_pass + select);
  EXPECT_TRUE(contains(r.output, "\"kernels_missing_from_a_pass\": [\n    \"_Z16only_in_one_passILi9EEvPi")) << r.output;

  const std::string uniform = sass::testing::nvcc_build("__global__ void everywhere(int* p) { p[0] = 1; }\n"
                                                        "int main() { return 0; }\n", flags, ".uni");
  r = gpudissect("verify --exe " + uniform + select);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(contains(r.output, "missing from a device pass")) << r.output;
  r = gpudissect("verify --json --exe " + uniform + select);
  EXPECT_TRUE(contains(r.output, "\"kernels_missing_from_a_pass\": []")) << r.output;
}

TEST(UnknownCommand, NamesItselfAndSuggestsTheClosest) {
  auto r = gpudissect("lsit");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.output, "gpudissect: error: unknown command 'lsit'; did you mean 'list'?")) << r.output;
  r = gpudissect("verfy --arch sm_90a");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.output, "did you mean 'verify'?")) << r.output;
  r = gpudissect("frobnicate");
  EXPECT_EQ(r.status, 2);
  EXPECT_FALSE(contains(r.output, "did you mean")) << "nothing is close to frobnicate: " << r.output;
  EXPECT_TRUE(contains(r.output, "commands: info, list, run,")) << r.output;
  EXPECT_FALSE(contains(r.output, "__patch-child")) << "hidden commands are not offered";
}

// The patch probes' child takes one batch file or --serve (batch paths on stdin), not both or none.
TEST(PatchChildCommand, TakesABatchFileOrServe) {
  for (const char* args : {"__patch-child", "__patch-child /tmp/x.json --serve"}) {
    const auto r = gpudissect(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.output;
    EXPECT_TRUE(contains(r.output, "takes a batch file or --serve")) << r.output;
  }
}

TEST(HelpText, ListsTheExitCodes) {
  const auto r = gpudissect("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(contains(r.output, "74 output could not be written")) << r.output;
  EXPECT_TRUE(contains(r.output, "75 the GPU is in use")) << r.output;
}

}  // namespace
}  // namespace gd
