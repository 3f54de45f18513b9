// run --ncu's pieces that need no GPU: point tags, ncu's CSV (a real capture's format), the
// counters a record gets, finding ncu, and the profiling command line.
#include "core/ncu.hpp"
#include "core/spawn.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "cli/commands.hpp"
#include "core/probe.hpp"
#include "core/error.hpp"

namespace gd {
namespace {

ncu::Counters parse_fixture() {
  std::ifstream in(std::string(GPUDISSECT_FIXTURES) + "/ncu/counters.csv");
  EXPECT_TRUE(in.good());
  return ncu::parse_csv(in);
}

TEST(NcuPointTag, EqualPointsShareATagOthersDoNot) {
  const Params a{{"ilp", std::int64_t(4)}, {"op", std::string("read")}};
  const Params b{{"ilp", std::int64_t(8)}, {"op", std::string("read")}};
  EXPECT_EQ(ncu::point_tag("memory.x", a), ncu::point_tag("memory.x", a));
  EXPECT_NE(ncu::point_tag("memory.x", a), ncu::point_tag("memory.x", b));
  EXPECT_NE(ncu::point_tag("memory.x", a), ncu::point_tag("memory.y", a));
  const std::string t = ncu::point_tag("memory.x", a);
  EXPECT_EQ(t.rfind("@gd:memory.x:", 0), 0u) << t;
  // ncu's CSV does not escape these inside renamed kernel names.
  EXPECT_EQ(t.find_first_of("\",/"), std::string::npos) << t;
}

TEST(NcuCsv, ParsesARealCaptureByPointAndKernel) {
  const ncu::Counters c = parse_fixture();
  // Two ffma launches share a tag; untagged launches are dropped, also our own
  // gd::<unnamed>::report_arch_kernel, whose name starts like a tag.
  ASSERT_EQ(c.size(), 3u);
  const auto& ffma = c.at("@gd:latency.alu.ffma:00000000000000aa");
  ASSERT_EQ(ffma.size(), 1u);
  const auto& m = ffma.at("k_ffma(float *, int)");
  ASSERT_EQ(m.at("smsp__inst_executed_pipe_fma.sum").size(), 2u);
  EXPECT_EQ(m.at("smsp__inst_executed_pipe_fma.sum")[0], 4004);  // "4,004": thousands separator
  EXPECT_DOUBLE_EQ(m.at("sm__cycles_elapsed.avg")[0], 8271.94);
  EXPECT_EQ(c.at("@gd:latency.alu.iadd3:00000000000000bb").at("k_iadd(int *, int)").at("smsp__inst_executed_pipe_alu.sum")[0],
            1300);
}

TEST(NcuCsv, RecordCountersAreMediansWithLaunchCounts) {
  const ncu::Counters c = parse_fixture();
  const auto j = ncu::to_json(c.at("@gd:latency.alu.ffma:00000000000000aa"));
  EXPECT_DOUBLE_EQ(j["k_ffma(float *, int)"]["smsp__inst_executed_pipe_fma.sum"].get<double>(), 6004);
  EXPECT_EQ(ncu::launches_json(c.at("@gd:latency.alu.ffma:00000000000000aa"))["k_ffma(float *, int)"], 2);
}

ncu::Counters parse_text(const std::string& text) {
  std::istringstream in(text);
  return ncu::parse_csv(in);
}

TEST(NcuCsv, MalformedInputIsAnError) {
  EXPECT_THROW(parse_text(""), Error);
  EXPECT_THROW(parse_text("==PROF== nothing profiled\n"), Error);
  EXPECT_THROW(parse_text("\"ID\",\"Kernel Name\",\"Metric Name\"\n"), Error);  // no value column
  const std::string header = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n";
  EXPECT_THROW(parse_text(header + "\"0\",\"@gd:a:1/k()\",\"m.sum\",\"12x\"\n"), Error);
  EXPECT_THROW(parse_text(header + "\"0\",\"@gd:a:1/k()\",\"m.sum\"\n"), Error);
  EXPECT_THROW(parse_text(header + "\"0\",\"@gd:a:1/k()\",\"m.sum\",\"12\n"), Error);  // unterminated quote
  EXPECT_THROW(parse_text(header + "\"0\",\"@gd:a:1\",\"m.sum\",\"12\"\n"), Error);    // no /kernel part
  EXPECT_EQ(parse_text(header + "\"0\",\"@gd:a:1/k(int, int)\",\"m.sum\",\"1,200.5\"\n")
                .at("@gd:a:1").at("k(int, int)").at("m.sum")[0], 1200.5);
}

TEST(NcuMetrics, DefaultsFirstThenProbesThenExtraOnceEach) {
  ProbeSpec p;
  p.id = "memory.x";
  p.ncu_metrics = {"lts__t_sectors.sum", "smsp__inst_executed.sum"};
  const auto list = cli::ncu_metric_list({&p}, {"dram__bytes_read.sum", "lts__t_sectors.sum"});
  const auto& d = ncu::default_metrics();
  ASSERT_EQ(list.size(), d.size() + 2);
  EXPECT_TRUE(std::equal(d.begin(), d.end(), list.begin()));
  EXPECT_EQ(list[d.size()], "lts__t_sectors.sum");
  EXPECT_EQ(list[d.size() + 1], "dram__bytes_read.sum");
  EXPECT_THROW(cli::ncu_metric_list({}, {"bad metric;rm"}), UserError);
}

TEST(NcuCommand, NeverChangesClocksAndTagsLaunches) {
  const auto argv = cli::ncu_profile_command("/opt/ncu", {"a.sum", "b.sum"}, "/tmp/p", {"--filter", "x"});
  const auto at = [&](const std::string& s) { return std::find(argv.begin(), argv.end(), s); };
  ASSERT_NE(at("--clock-control"), argv.end());
  EXPECT_EQ(*(at("--clock-control") + 1), "none");
  EXPECT_NE(at("--nvtx"), argv.end());
  EXPECT_EQ(*(at("--metrics") + 1), "a.sum,b.sum");
  EXPECT_EQ(argv.front(), "/opt/ncu");
  EXPECT_EQ(argv[argv.size() - 3], "run");
  EXPECT_EQ(argv.back(), "x");
  EXPECT_EQ(at("--kernel-name"), argv.end()) << "every kernel by default";
  const auto only = cli::ncu_profile_command("/opt/ncu", {"a.sum"}, "/tmp/p", {"--filter", "x"}, "alu_stream_kernel");
  const auto k = std::find(only.begin(), only.end(), "--kernel-name");
  ASSERT_NE(k, only.end());
  EXPECT_EQ(*(k + 1), "regex:alu_stream_kernel");
  EXPECT_LT(k - only.begin(), std::find(only.begin(), only.end(), "run") - only.begin()) << "an ncu option, not a run one";
}

TEST(NcuFindExe, ExplicitAndEnvironmentPathsMustBeExecutable) {
  EXPECT_THROW(ncu::find_exe("/nonexistent/ncu"), UserError);
  EXPECT_EQ(ncu::find_exe("/bin/sh"), "/bin/sh");
  ::setenv("GPUDISSECT_NCU", "/nonexistent/ncu", 1);
  EXPECT_THROW(ncu::find_exe(""), UserError);
  ::setenv("GPUDISSECT_NCU", "/bin/sh", 1);
  EXPECT_EQ(ncu::find_exe(""), "/bin/sh");
  ::unsetenv("GPUDISSECT_NCU");
}

// A results folder unpacked from elsewhere may hold a planted `ncu`: a relative setting, or a
// relative or empty PATH entry (both mean the current folder), must not find it (issue 36).
TEST(NcuFindExe, NeverLooksInTheCurrentFolder) {
  EXPECT_THROW(ncu::find_exe("bin/sh"), UserError);
  ::setenv("GPUDISSECT_NCU", "./ncu", 1);
  EXPECT_THROW(ncu::find_exe(""), UserError);
  ::unsetenv("GPUDISSECT_NCU");
  const auto dir = std::filesystem::temp_directory_path() / ("gd-ncu-cwd-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "ncu") << "#!/bin/sh\n";
  std::filesystem::permissions(dir / "ncu", std::filesystem::perms::owner_all);
  const auto old_cwd = std::filesystem::current_path();
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  std::filesystem::current_path(dir);
  ::setenv("PATH", (":.:" + old_path).c_str(), 1);
  const auto found = find_tool_on_path("ncu");
  std::filesystem::current_path(old_cwd);
  ::setenv("PATH", old_path.c_str(), 1);
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(!found || found->rfind(dir.string(), 0) != 0) << *found;
  EXPECT_TRUE(!found || found->front() == '/') << *found;
}

// The parent's side of run --ncu against a stand-in ncu that profiles nothing and exports the
// fixture: the counters reach the run, and what the run file records adds up.
TEST(NcuProfile, CountersFromTheExportReachTheRun) {
  const auto dir = std::filesystem::temp_directory_path() / ("gd-ncu-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto fake = dir / "ncu";
  {
    std::ofstream f(fake);
    f << "#!/bin/sh\ncase \" $* \" in *\" --import \"*) cat " << GPUDISSECT_FIXTURES << "/ncu/counters.csv;; esac\n";
  }
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  cli::NcuRequest req;
  req.exe = fake.string();
  req.folder = (dir / "run.ncu").string();
  const auto j = cli::profile_with_ncu(req, {}, {"--filter", "latency.alu.ffma"});
  EXPECT_EQ(j["points_profiled"], 3);
  EXPECT_EQ(j["launches_profiled"], 4);  // ffma twice, iadd3 once at each of two points
  ASSERT_TRUE(ncu::have_counters());
  EXPECT_NE(ncu::counters_for("@gd:latency.alu.iadd3:00000000000000cc"), nullptr);
  EXPECT_EQ(ncu::counters_for("@gd:latency.alu.iadd3:0000000000000000"), nullptr);
  std::filesystem::remove_all(dir);
}

TEST(NcuProfile, AFailingProfileIsAnErrorQuotingItsLog) {
  const auto dir = std::filesystem::temp_directory_path() / ("gd-ncu-fail-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto fake = dir / "ncu";
  {
    std::ofstream f(fake);
    f << "#!/bin/sh\necho '==ERROR== ERR_NVGPUCTRPERM - no permission to access counters'\nexit 9\n";
  }
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  cli::NcuRequest req;
  req.exe = fake.string();
  req.folder = (dir / "run.ncu").string();
  try {
    cli::profile_with_ncu(req, {}, {});
    ADD_FAILURE() << "a failing ncu was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ERR_NVGPUCTRPERM"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gd
