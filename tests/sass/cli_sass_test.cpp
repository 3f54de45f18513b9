// End to end: the sass, verify and isa subcommands of the real binary, on its own code and on
// a cubin compiled here.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "sass_test_util.hpp"
#include "support/shell.hpp"

namespace gd::sass {
namespace {

TEST(SassCommand, AnnotatedListingOfACubin) {
  const std::string cubin = testing::nvcc_build(testing::kChainSource, "-cubin -O3 " + testing::gencode("sm_90a"), ".cubin");
  const auto r = gpudissect("sass --cubin " + cubin + " --kernel 'ffma_*'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("// sm_90a  ffma_chain"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("B------:R-:W-:Y:S00"), std::string::npos) << "idle NOP control word";
  EXPECT_EQ(r.output.find("hollow_chain"), std::string::npos) << "kernel filter";
  if (disassembler_tools().any()) {
    EXPECT_NE(r.output.find("FFMA R"), std::string::npos);
    EXPECT_NE(r.output.find("// clock"), std::string::npos);
  }
}

TEST(SassCommand, UnknownKernelOrArchIsAUsageError) {
  const std::string cubin = testing::nvcc_build(testing::kChainSource, "-cubin -O3 " + testing::gencode("sm_90a"), ".cubin");
  auto r = gpudissect("sass --cubin " + cubin + " --kernel ffma_chian");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("closest"), std::string::npos) << r.output;
  r = gpudissect("sass --cubin " + cubin + " --arch sm_100a");
  EXPECT_EQ(r.status, 2) << r.output;
  r = gpudissect("sass --cubin /nonexistent.cubin");
  EXPECT_EQ(r.status, 2) << r.output;
}

// The notation is unreadable without a key, so the listing carries one.
TEST(SassCommand, ExplainsTheControlWordNotation) {
  const auto r = gpudissect("sass --arch sm_90a --kernel '*ffma_stall_chain_kernel*'");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* part : {"B0-----:R-:W2:Y:S04:Ua", "wait mask", "read / write barrier", "yield", "stall:",
                           "operand reuse"})
    EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output.substr(0, 1200);
  EXPECT_LT(r.output.find("wait mask"), r.output.find("// sm_90a")) << "the key comes before the listing";
}

TEST(SassCommand, ListsOurOwnKernels) {
  const auto r = gpudissect("sass --arch sm_90a --kernel '*ffma_stall_chain_kernel*'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("ffma_stall_chain_kernel"), std::string::npos);
}

// The CI gate: every registered probe's SASS matches its declaration on each target.
class VerifyCommand : public ::testing::TestWithParam<std::string> {};

TEST_P(VerifyCommand, EveryProbeMatchesItsDeclaredSass) {
  GD_REQUIRE_DISASSEMBLER();
  const auto r = gpudissect("verify --arch " + GetParam());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(" 0 mismatch"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sass.patch.ffma_stall"), std::string::npos) << r.output;
}

INSTANTIATE_TEST_SUITE_P(Targets, VerifyCommand, ::testing::ValuesIn(testing::target_archs()),
                         [](const auto& info) { return info.param; });

TEST(VerifyCommand, FilterMatchingNothingIsAUsageError) {
  auto r = gpudissect("verify --filter 'no.such.*'");
  EXPECT_EQ(r.status, 2) << r.output;
  r = gpudissect("verify --filter latency.example");  // the README's placeholder id
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("filter 'latency.example' matches no probe"), std::string::npos) << r.output;
}

// The same selection as `list` and `run`: a dotted prefix selects a family.
TEST(VerifyCommand, FilterTakesTheDottedPrefixesOfListAndRun) {
  GD_REQUIRE_DISASSEMBLER();
  const auto r = gpudissect("verify --arch sm_90a --filter memory.bandwidth");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("memory.bandwidth.dram"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("memory.latency"), std::string::npos) << r.output;
  // Every probe `list` selects with the same filter, and only those (the copy engines run no SM kernel).
  const auto listed = gpudissect("list --filter memory.bandwidth");
  int probes = 0;
  for (std::size_t at = listed.output.find("memory.bandwidth."); at != std::string::npos;
       at = listed.output.find("\nmemory.bandwidth.", at + 1))
    ++probes;
  ASSERT_GE(probes, 2) << listed.output;
  EXPECT_NE(r.output.find(std::to_string(probes - 1) + " verified, 0 mismatch, 0 unverified, 1 not_applicable"),
            std::string::npos)
      << r.output;
}

TEST(VerifyCommand, AnArchTheBinaryLacksOrNoArchAtAllIsAUsageError) {
  auto r = gpudissect("verify --arch sm_75");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("carries no sm_75 code (it has: "), std::string::npos) << r.output;
  r = gpudissect("verify --arch hopper");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("'hopper' is not a GPU architecture"), std::string::npos) << r.output;
}

// A probe that runs no SM kernel by design has nothing to verify: not_applicable, not a failure
// (the "nothing was verified" failure is for checks that could not be made).
TEST(VerifyCommand, AProbeWithoutSmKernelsIsNotApplicable) {
  const auto r = gpudissect("verify --filter memory.bandwidth.copy_engine --arch sm_90a");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("1 not_applicable"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("nothing was verified"), std::string::npos) << r.output;
}

// A folder where a file belongs was an internal error (exit 70).
TEST(SassCommands, AFolderWhereAFileBelongsIsAUsageError) {
  for (const std::string args : {"verify --exe /tmp", "sass --cubin /tmp", "isa --arch sm_90a --exe /tmp"}) {
    const auto r = gpudissect(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("'/tmp' is a directory, not a file"), std::string::npos) << args << "\n" << r.output;
  }
  const auto r = gpudissect("verify --exe /etc/hostname");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("not an ELF file"), std::string::npos) << r.output;
}

TEST(SassCommands, ConflictingOptionsAreRejected) {
  auto r = gpudissect("isa --arch sm_90a --no-corpus --corpus " + std::string(GPUDISSECT_SOURCE_DIR) + "/src/sass/corpus");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("excludes"), std::string::npos) << r.output;
  r = gpudissect("sass --cubin a.cubin --exe b");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("excludes"), std::string::npos) << r.output;
}

TEST(IsaCommand, ACorpusThatDoesNotExistIsAnError) {
  const auto r = gpudissect("isa --arch sm_90a --out " + testing::scratch_dir() + "/isa-nocorpus --corpus /no/such/corpus");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--corpus /no/such/corpus: no such folder"), std::string::npos) << r.output;
}

// The folder is checked before the corpus is compiled: an nvcc that leaves a mark shows whether
// any work was started.
TEST(IsaCommand, AnUnwritableOutFailsBeforeAnyWork) {
  const std::string mark = testing::scratch_dir() + "/nvcc-was-run";
  const std::string nvcc = testing::scratch_dir() + "/marking-nvcc.sh";
  std::ofstream(nvcc) << "#!/bin/sh\ntouch " << mark << "\nexit 1\n";
  std::filesystem::permissions(nvcc, std::filesystem::perms::owner_all);
  auto r = run_command("GPUDISSECT_NVCC=" + nvcc + " " + std::string(GPUDISSECT_BINARY) +
                       " isa --arch sm_90a --out /proc/gpudissect-isa 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("cannot create output directory '/proc/gpudissect-isa'"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(mark)) << "nvcc ran before the output folder was checked";
  r = gpudissect("isa --arch sm_90a --out -");
  EXPECT_EQ(r.status, 2) << r.output;
}

// Ctrl-C during verify used to leave /tmp/gpudissect-*.cubin behind: cubins were written to
// temporary files for the disassembler. They now travel as in-memory files.
TEST(VerifyCommand, AnInterruptLeavesNoTemporaryFiles) {
  GD_REQUIRE_DISASSEMBLER();
  const std::filesystem::path tmp = testing::scratch_dir() + "/interrupt-tmp";
  std::filesystem::create_directories(tmp);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("TMPDIR", tmp.c_str(), 1);
    ::freopen("/dev/null", "w", stdout);
    ::freopen("/dev/null", "w", stderr);
    ::execl(GPUDISSECT_BINARY, GPUDISSECT_BINARY, "verify", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Interrupt as soon as a temporary file shows, or after a moment when none does.
  for (int i = 0; i < 30 && std::filesystem::is_empty(tmp); ++i) ::usleep(10000);
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "verify finished before it was interrupted; the test proved nothing";
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(tmp)) left.push_back(e.path().filename().string());
  EXPECT_TRUE(left.empty()) << "left behind: " << left.front();
}

// `verify --arch sm_90` did not suggest the sm_90a the binary carries.
TEST(VerifyCommand, AnArchWithoutItsSuffixSuggestsTheOneCarried) {
  const auto r = gpudissect("verify --arch sm_90 --filter latency.alu.ffma");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("carries no sm_90 code (it has: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("; did you mean sm_90a?"), std::string::npos) << r.output;
  const auto far = gpudissect("verify --arch sm_75");
  EXPECT_EQ(far.output.find("did you mean"), std::string::npos) << "nothing is that close to sm_75:\n" << far.output;
}

// `isa --arch sm_75` printed five compiler error dumps, wrote tables of what happened to build
// and exited 0: an arch the binary does not carry is one clear error, before any compiling.
TEST(IsaCommand, AnArchTheBinaryLacksIsOneClearError) {
  const std::string out = testing::scratch_dir() + "/isa-sm_75";
  std::filesystem::remove_all(out);
  const std::string mark = testing::scratch_dir() + "/isa-nvcc-was-run";
  std::filesystem::remove(mark);
  const std::string nvcc = testing::scratch_dir() + "/isa-marking-nvcc.sh";
  std::ofstream(nvcc) << "#!/bin/sh\ntouch " << mark << "\nexit 1\n";
  std::filesystem::permissions(nvcc, std::filesystem::perms::owner_all);
  const auto r = run_command("GPUDISSECT_NVCC=" + nvcc + " " + std::string(GPUDISSECT_BINARY) + " isa --arch sm_75 --out " +
                             out + " 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(r.output.rfind("gpudissect: error: this gpudissect binary carries no sm_75 code (it has: ", 0), 0u) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "one line:\n" << r.output;
  EXPECT_FALSE(std::filesystem::exists(out)) << "no tables of a partial corpus";
  EXPECT_FALSE(std::filesystem::exists(mark)) << "nothing was compiled";
  const auto near = gpudissect("isa --arch sm_90 --out " + out);
  EXPECT_EQ(near.status, 2) << near.output;
  EXPECT_NE(near.output.find("did you mean sm_90a?"), std::string::npos) << near.output;
}

// The closest kernels to a --kernel that matches none repeated one name once per arch's cubin.
TEST(SassCommand, SuggestionsNameEachKernelOnce) {
  const auto r = gpudissect("sass --kernel '*ffma_stall_chain_kernl*'");
  EXPECT_EQ(r.status, 2) << r.output;
  const auto at = r.output.find("closest:");
  ASSERT_NE(at, std::string::npos) << r.output;
  std::set<std::string> seen;
  std::istringstream in(r.output.substr(at));
  std::string line;
  std::getline(in, line);  // "...; closest:"
  int listed = 0;
  while (std::getline(in, line) && line.rfind("  ", 0) == 0) {
    ++listed;
    EXPECT_TRUE(seen.insert(line).second) << "listed twice: " << line << "\n" << r.output;
  }
  EXPECT_GE(listed, 2) << r.output;
}

// Ctrl-C while isa compiles its corpus left /tmp/gpudissect-*.cubin, and during the HTML
// report's Python step /tmp/gpudissect-html-*: the interrupt now removes them before the process
// ends (with the signal, as before). A stand-in nvcc or python holds the command in that step.
void expect_interrupt_leaves_nothing(const std::string& what, const std::string& env, const std::vector<std::string>& args) {
  const std::filesystem::path tmp = testing::scratch_dir() + "/interrupt-" + what;
  std::filesystem::remove_all(tmp);
  std::filesystem::create_directories(tmp);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("TMPDIR", tmp.c_str(), 1);
    ::putenv(const_cast<char*>(env.c_str()));
    ::freopen("/dev/null", "w", stdout);
    ::freopen("/dev/null", "w", stderr);
    std::vector<char*> argv = {const_cast<char*>(GPUDISSECT_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(GPUDISSECT_BINARY, argv.data());
    ::_exit(127);
  }
  // Interrupt once a temporary file or folder of ours shows (the stand-in then waits seconds).
  bool made = false;
  for (int i = 0; i < 3000 && !made; ++i) {
    for (const auto& e : std::filesystem::directory_iterator(tmp))
      made |= e.path().filename().string().rfind("gpudissect-", 0) == 0;
    if (!made) ::usleep(10000);
  }
  ::usleep(200000);  // let the stand-in start
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(made) << what << ": no temporary file appeared; the test proved nothing";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << what << ": ended by the interrupt";
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::recursive_directory_iterator(tmp)) left.push_back(e.path().string());
  EXPECT_TRUE(left.empty()) << what << " left behind: " << left.front();
}

TEST(Interrupt, IsaLeavesNoTemporaryCubins) {
  const std::string nvcc = testing::scratch_dir() + "/slow-nvcc.sh";
  std::ofstream(nvcc) << "#!/bin/sh\nsleep 3\nexit 1\n";
  std::filesystem::permissions(nvcc, std::filesystem::perms::owner_all);
  expect_interrupt_leaves_nothing("isa", "GPUDISSECT_NVCC=" + nvcc,
                                  {"isa", "--arch", "sm_90a", "--out", testing::scratch_dir() + "/isa-interrupted",
                                   "--corpus", std::string(GPUDISSECT_SOURCE_DIR) + "/src/sass/corpus"});
}

TEST(Interrupt, HtmlReportLeavesNoTemporaryFolder) {
  const std::string python = testing::scratch_dir() + "/slow-python.sh";
  std::ofstream(python) << "#!/bin/sh\nsleep 3\nexit 1\n";
  std::filesystem::permissions(python, std::filesystem::perms::owner_all);
  expect_interrupt_leaves_nothing("html", "GPUDISSECT_PYTHON=" + python,
                                  {"report", std::string(GPUDISSECT_FIXTURES) + "/runs/h200_small.json", "--format",
                                   "html", "--out", testing::scratch_dir() + "/interrupted.html"});
}

// `verify` of all four targets took 68 s with no output until done, and every time again: it
// now says what it verifies, and nvdisasm's listings are cached by the code's bytes.
TEST(VerifyCommand, SaysWhatItDoesAndASecondRunReadsTheCache) {
  GD_REQUIRE_DISASSEMBLER();
  const auto& tools = disassembler_tools();
  if (!tools.nvdisasm) GTEST_SKIP() << "the cache is nvdisasm's; only cuobjdump here";
  const std::string dir = testing::scratch_dir() + "/disasm-cache-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string calls = dir + "/calls", wrapper = dir + "/nvdisasm";
  // Counts disassembling calls; the --version check every process makes of its tool is not one.
  std::ofstream(wrapper) << "#!/bin/sh\n[ \"$1\" = --version ] || echo call >> " << calls << "\nexec "
                         << shell_quote(*tools.nvdisasm) << " \"$@\"\n";
  std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
  const auto count = [&] {
    std::ifstream in(calls);
    int n = 0;
    for (std::string l; std::getline(in, l);) ++n;
    return n;
  };
  const std::string command = std::string(GPUDISSECT_BINARY) + " verify --arch sm_90a --filter latency.alu.ffma";
  const std::string verify = "GPUDISSECT_NVDISASM=" + wrapper + " GPUDISSECT_CACHE_DIR=" + dir + "/cache " + command;
  const auto first = run_command(verify + " 2>&1");
  EXPECT_EQ(first.status, 0) << first.output;
  EXPECT_NE(first.output.find("gpudissect: verifying 1 probe(s) on sm_90a"), std::string::npos) << first.output;
  const int after_first = count();
  EXPECT_GE(after_first, 1) << "nvdisasm never ran: the test proves nothing";
  const auto second = run_command(verify + " 2>/dev/null");
  EXPECT_EQ(second.status, 0) << second.output;
  EXPECT_EQ(count(), after_first) << "the second verify started nvdisasm again";
  EXPECT_NE(second.output.find("latency.alu.ffma  sm_90a    verified"), std::string::npos) << second.output;
  const auto uncached = run_command("GPUDISSECT_CACHE_DIR=off " + command + " 2>/dev/null");
  EXPECT_EQ(uncached.output, second.output) << "the cached listing verifies as the fresh one does";
}

// "needs compute capability 90 to any" read oddly: the range is said as a reader would.
TEST(VerifyCommand, AGatedArchSaysTheRangeInPlainWords) {
  const auto r = gpudissect("verify --arch sm_80 --filter tensor.wgmma.latency");
  EXPECT_NE(r.output.find("the probe needs compute capability 9.0 only"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("to any"), std::string::npos) << r.output;
}

// Every corpus file must build for every target: a file that silently stopped building would
// shrink the reference tables without anyone noticing.
class IsaCommand : public ::testing::TestWithParam<std::string> {};

TEST_P(IsaCommand, WritesMarkdownAndJsonFromTheWholeCorpus) {
  GD_REQUIRE_DISASSEMBLER();
  const std::string arch = GetParam();
  const std::string corpus = std::string(GPUDISSECT_SOURCE_DIR) + "/src/sass/corpus";
  const std::string out = testing::scratch_dir() + "/isa-" + arch;
  const auto r = gpudissect("isa --arch " + arch + " --out " + out + " --corpus " + corpus);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(out + "/isa-" + arch + ".md"));
  EXPECT_TRUE(std::filesystem::exists(out + "/isa-" + arch + ".json"));
  EXPECT_NE(r.output.find("opcodes"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("does not build"), std::string::npos) << r.output;
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(corpus)) files += e.path().extension() == ".cu";
  std::ifstream md(out + "/isa-" + arch + ".md");
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find(std::to_string(files) + " corpus file(s)"), std::string::npos) << text.substr(0, 400);
}

INSTANTIATE_TEST_SUITE_P(Targets, IsaCommand, ::testing::Values("sm_90a", "sm_100a", "sm_120a"));

}  // namespace
}  // namespace gd::sass
