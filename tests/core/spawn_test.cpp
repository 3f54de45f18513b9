// core/spawn: the one way the tool starts another program. Arguments reach it as they are (no
// shell reads them), stderr is captured or discarded as asked, and a descriptor the caller left
// open is the child's too (a disassembler reads its input as /dev/fd/N).
#include "core/spawn.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace gd {
namespace {

TEST(RunCapture, ArgumentsReachTheProgramAsTheyAre) {
  const std::string tricky = "a b 'c' \"d\" $(touch /tmp/gd-spawn-shell) ; `x` *";
  const Captured r = run_capture({"/bin/echo", tricky});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.output, tricky + "\n");
  EXPECT_NE(::access("/tmp/gd-spawn-shell", F_OK), 0) << "a shell read the argument";
}

TEST(RunCapture, StderrIsCapturedOrDiscardedAndTheStatusKept) {
  const Captured both = run_capture({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(both.status, 3);
  EXPECT_EQ(both.output, "out\nerr\n");
  const Captured out_only = run_capture({"/bin/sh", "-c", "echo out; echo err >&2"}, /*with_stderr=*/false);
  EXPECT_EQ(out_only.output, "out\n");
  EXPECT_EQ(run_capture({"/bin/sh", "-c", "kill -9 $$"}).status, 128 + 9);
}

TEST(RunCapture, AnOpenDescriptorIsInheritedAndAMissingProgramIsAnError) {
  const int fd = ::memfd_create("gd-spawn-test", 0);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "from the parent", 15), 15);
  const Captured r = run_capture({"/bin/cat", "/dev/fd/" + std::to_string(fd)});
  ::close(fd);
  EXPECT_EQ(r.output, "from the parent");
  EXPECT_THROW(run_capture({"/nonexistent/tool"}), Error);
  EXPECT_THROW(run_capture({"gd-no-such-tool-anywhere"}), Error);
}

}  // namespace
}  // namespace gd
