// Output paths: what --out does to whatever is already there, and which failures are whose.
#include "core/output_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "support/sample_run.hpp"
#include "support/text.hpp"

namespace gd {
namespace {

namespace fs = std::filesystem;
using test_support::TempDir;
using test_support::user_error_of;

TEST(CheckFreeSpace, ARunThatCannotFitRefusesBeforeItStarts) {
  TempDir dir;
  EXPECT_NO_THROW(check_free_space(dir.file("out/not/yet"), 1 << 20, "a run of 10 points")) << "its ancestor decides";
  try {
    check_free_space(dir.file("out"), 1ULL << 62, "a run of 2415 points");
    ADD_FAILURE() << "no file system has 4.6 EB free";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("a run of 2415 points needs about 4611686018428 MB in '" + dir.file("out") + "'"),
              std::string::npos) << e.what();
  }
}

TEST(OutputPath, DashIsStandardOutputAndCreatesNoFile) {
  TempDir dir;
  const fs::path cwd = fs::current_path();
  fs::current_path(dir.path());
  const OutputPath out = OutputPath::resolve("-");
  testing::internal::CaptureStdout();
  out.write("to stdout\n");
  const std::string printed = testing::internal::GetCapturedStdout();
  fs::current_path(cwd);
  EXPECT_EQ(out.kind(), OutputPath::Kind::Stdout);
  EXPECT_EQ(printed, "to stdout\n");
  EXPECT_TRUE(entries(dir.path()).empty()) << "a file named '-' was created";
}

TEST(OutputPath, RegularFileIsReplacedWhollyAndKeepsItsMode) {
  TempDir dir;
  const std::string path = dir.file("r.md");
  std::ofstream(path) << std::string(10000, 'x');
  ::chmod(path.c_str(), 0600);
  const OutputPath out = OutputPath::resolve(path);
  EXPECT_EQ(out.kind(), OutputPath::Kind::Atomic);
  out.write("short\n");
  EXPECT_EQ(read_text(path), "short\n");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u) << "a private file must stay private";
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"r.md"}) << "no temporary file may stay";
}

TEST(OutputPath, SymlinkIsWrittenThroughAndStaysALink) {
  TempDir dir;
  fs::create_directory(dir.file("real"));
  std::ofstream(dir.file("real/report.md")) << "old";
  fs::create_symlink("real/report.md", dir.file("latest.md"));
  const OutputPath out = OutputPath::resolve(dir.file("latest.md"));
  EXPECT_EQ(out.target(), dir.file("real/report.md"));
  out.write("new\n");
  EXPECT_TRUE(fs::is_symlink(dir.file("latest.md")));
  EXPECT_EQ(read_text(dir.file("real/report.md")), "new\n");
  EXPECT_EQ(entries(dir.path() / "real"), std::vector<std::string>{"report.md"});
}

TEST(OutputPath, DanglingSymlinkCreatesItsTarget) {
  TempDir dir;
  fs::create_symlink(dir.file("made.md"), dir.file("link.md"));
  OutputPath::resolve(dir.file("link.md")).write("made\n");
  EXPECT_TRUE(fs::is_symlink(dir.file("link.md")));
  EXPECT_EQ(read_text(dir.file("made.md")), "made\n");
}

TEST(OutputPath, FifoIsWrittenDirectlyNotReplaced) {
  TempDir dir;
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const OutputPath out = OutputPath::resolve(fifo);
  ASSERT_EQ(out.kind(), OutputPath::Kind::Direct);  // else the reader below would wait forever
  auto reader = std::async(std::launch::async, [&] { return read_text(fifo); });
  out.write("through the pipe\n");
  EXPECT_EQ(reader.get(), "through the pipe\n");
  EXPECT_TRUE(fs::is_fifo(fifo)) << "the FIFO was replaced by a file";
}

TEST(OutputPath, CharacterDevicesAreWrittenDirectly) {
  const OutputPath null = OutputPath::resolve("/dev/null");
  ASSERT_EQ(null.kind(), OutputPath::Kind::Direct);  // else writing would rename a file over /dev/null
  null.write("discarded");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_EQ(OutputPath::resolve("/dev/stdout").kind(), OutputPath::Kind::Direct);
}

TEST(OutputPath, AFailedWriteIsAnOutputErrorNamingThePath) {
  try {
    OutputPath::resolve("/dev/full").write("no room");
    FAIL() << "no OutputError";
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write /dev/full: No space left on device");
  }
}

TEST(OutputPath, BadPathsAreUserErrorsBeforeAnythingIsWritten) {
  TempDir dir;
  EXPECT_EQ(user_error_of([&] { OutputPath::resolve(dir.file("no/such/r.md")); }),
            "cannot write " + dir.file("no/such/r.md") + ": folder " + dir.file("no/such") +
                ": No such file or directory");
  EXPECT_NE(user_error_of([&] { OutputPath::resolve(dir.path().string()); }).find("it is a directory"),
            std::string::npos);
  EXPECT_NE(user_error_of([] { OutputPath::resolve("/proc/gpudissect-out.md"); }).find("cannot write"),
            std::string::npos);
  EXPECT_NE(user_error_of([] { OutputPath::resolve(""); }).find("empty"), std::string::npos);
  EXPECT_TRUE(entries(dir.path()).empty()) << "resolve must not leave its write test behind";
}

TEST(CheckOutputDir, ACreatableFolderIsNotCreated) {
  TempDir dir;
  check_output_dir(dir.file("a/b/results"));
  EXPECT_FALSE(fs::exists(dir.file("a"))) << "checking must create nothing";
  check_output_dir(dir.path().string());
  EXPECT_TRUE(entries(dir.path()).empty());
  create_output_dir(dir.file("a/b/results"));
  EXPECT_TRUE(fs::is_directory(dir.file("a/b/results")));
}

TEST(CheckOutputDir, UnwritableOrNotAFolderIsAUserError) {
  TempDir dir;
  std::ofstream(dir.file("plain")) << "x";
  EXPECT_NE(user_error_of([&] { check_output_dir(dir.file("plain")); }).find("is not a directory"), std::string::npos);
  EXPECT_NE(user_error_of([&] { check_output_dir(dir.file("plain/sub")); }).find("is not a directory"),
            std::string::npos);
  EXPECT_EQ(user_error_of([] { check_output_dir("/proc/gpudissect-results"); })
                .rfind("cannot create output directory '/proc/gpudissect-results': cannot create anything in /proc (", 0),
            0u);
}

}  // namespace
}  // namespace gd
