// The V-pipe backend verdict: measured only when every V-pipe instruction's pair with IADD3 was
// decided, and "yes" or "no" only when the instructions agree.
#include "analysis/vpipe.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gd {
namespace {

TEST(VpipeBackend, AgreeingPairsGiveYesOrNo) {
  EXPECT_EQ(vpipe_backend_text({{"VIADD.16x2", "confirmed", 1.9}, {"FMNMX", "confirmed", 1.95}}).rfind("yes: ", 0), 0u);
  EXPECT_EQ(vpipe_backend_text({{"VIADD.16x2", "shared", 1.0}, {"FMNMX", "shared", 1.02}}).rfind("no: ", 0), 0u);
}

TEST(VpipeBackend, SplitInstructionsAreNamedWithTheirPairs) {
  const std::string t = vpipe_backend_text({{"VIADD.16x2", "confirmed", 1.89}, {"FMNMX", "shared", 1.01}});
  EXPECT_EQ(t.rfind("no single V-pipe", 0), 0u) << t;
  EXPECT_NE(t.find("VIADD.16x2 beside IADD3: co-issues (gain 1.89)"), std::string::npos) << t;
  EXPECT_NE(t.find("FMNMX beside IADD3: shares a pipe (gain 1.01)"), std::string::npos) << t;
}

TEST(VpipeBackend, AnUndecidedPairLeavesItUnmeasured) {
  EXPECT_EQ(vpipe_backend_text({{"VIADD.16x2", "confirmed", 1.9}, {"FMNMX", "undecided", 1.4}}), "");
  EXPECT_EQ(vpipe_backend_text({}), "") << "no pair, no answer";
  EXPECT_THROW(vpipe_backend_text({{"FMNMX", "maybe", 1}}), std::invalid_argument);
}

}  // namespace
}  // namespace gd
