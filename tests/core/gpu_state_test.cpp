#include "core/gpu_state.hpp"

#include <gtest/gtest.h>

#include "cli/commands.hpp"
#include "core/executor.hpp"

namespace gd {
namespace {

GpuState idle_card() {
  GpuState s;
  s.settings = {{"application_sm_clock_mhz", 1980}, {"power_limit_w", 700.0}, {"persistence_mode", "enabled"},
                {"compute_mode", "default"}};
  s.observed = {{"sm_clock_mhz", 345}, {"mem_clock_mhz", 2619}};
  return s;
}

// A fake NVML: hands out the states in order, then keeps the last.
GpuStateSource sequence(std::vector<std::optional<GpuState>> states) {
  auto i = std::make_shared<std::size_t>(0);
  return [states, i]() {
    const auto s = states[std::min(*i, states.size() - 1)];
    ++*i;
    return s;
  };
}

TEST(GpuState, ClocksThatMoveWithLoadAreNotChanges) {
  GpuState after = idle_card();
  after.observed["sm_clock_mhz"] = 1980;
  EXPECT_TRUE(state_changes(idle_card(), after).empty());
}

TEST(GpuState, EveryChangedSettingIsNamedWithBothValues) {
  GpuState after = idle_card();
  after.settings["power_limit_w"] = 500.0;
  after.settings["compute_mode"] = "exclusive_process";
  after.settings.erase("persistence_mode");
  const auto c = state_changes(idle_card(), after);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], "compute_mode: \"default\" -> \"exclusive_process\"");
  EXPECT_EQ(c[1], "persistence_mode: \"enabled\" -> (not reported)");
  EXPECT_EQ(c[2], "power_limit_w: 700.0 -> 500.0");
}

TEST(GpuStateGuard, AChangedCardFailsTheRun) {
  GpuState after = idle_card();
  after.settings["application_sm_clock_mhz"] = 1410;
  GpuStateGuard guard(sequence({idle_card(), after}));
  EXPECT_EQ(guard.before_json()["before"]["settings"]["application_sm_clock_mhz"], 1980);
  const auto changed = guard.check();
  ASSERT_EQ(changed.size(), 1u);
  const auto j = guard.to_json();
  EXPECT_TRUE(j["checked"].get<bool>());
  EXPECT_EQ(j["after"]["settings"]["application_sm_clock_mhz"], 1410);
  EXPECT_EQ(j["changed"][0], "application_sm_clock_mhz: 1980 -> 1410");
  ExecuteSummary ok;
  ok.ok = 10;
  EXPECT_EQ(cli::run_exit_code(ok, !changed.empty()), 1);
  EXPECT_EQ(cli::run_exit_code(ok, false), 0);
}

TEST(GpuStateGuard, AnUnchangedCardPassesAndNoNvmlIsSaidNotHidden) {
  GpuStateGuard same(sequence({idle_card(), idle_card()}));
  EXPECT_TRUE(same.check().empty());
  EXPECT_TRUE(same.checked());
  GpuStateGuard blind(sequence({std::nullopt}));
  EXPECT_TRUE(blind.check().empty());
  EXPECT_FALSE(blind.checked());
  EXPECT_NE(blind.to_json()["why"].get<std::string>().find("could not be read"), std::string::npos);
}

}  // namespace
}  // namespace gd
