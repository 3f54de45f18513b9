#include "report/timing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace gd {
namespace {

TEST(Timing, RoundTripsThroughTheRunFilesJson) {
  const ProbeWalls walls = {{"b.one", 1.5}, {"a.two", 0.25}};
  const nlohmann::json j = timing_json(walls, 2.0);
  EXPECT_DOUBLE_EQ(j["wall_s"].get<double>(), 2.0);
  ProbeWalls back = walls_from_timing(j);
  ASSERT_EQ(back.size(), 2u);
  std::sort(back.begin(), back.end());
  EXPECT_EQ(back[0], (std::pair<std::string, double>{"a.two", 0.25}));
  EXPECT_EQ(back[1], (std::pair<std::string, double>{"b.one", 1.5}));
}

TEST(Timing, MalformedTimingReadsAsNothingRecorded) {
  EXPECT_TRUE(walls_from_timing(nullptr).empty());
  EXPECT_TRUE(walls_from_timing({{"probe_wall_s", "fast"}}).empty());
  EXPECT_EQ(walls_from_timing({{"probe_wall_s", {{"a", "x"}, {"b", 1.0}}}}).size(), 1u) << "a non-number entry is dropped";
}

TEST(Timing, SlowestFirstAndCutToN) {
  const ProbeWalls walls = {{"a", 1.0}, {"b", 9.0}, {"c", 3.0}, {"d", 9.0}};
  const ProbeWalls top = slowest(walls, 3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].first, "b") << "ties keep run order";
  EXPECT_EQ(top[1].first, "d");
  EXPECT_EQ(top[2].first, "c");
}

TEST(Timing, TheLineNamesTheTotalAndTheSlowestProbes) {
  std::ostringstream os;
  print_slowest(os, {{"memory.x", 12.25}, {"pipes.y", 0.5}}, 20.0);
  EXPECT_EQ(os.str(), "time: 20.0 s in all; slowest probes: memory.x 12.2 s, pipes.y 0.5 s\n");
  std::ostringstream none;
  print_slowest(none, {}, 1.0);
  EXPECT_TRUE(none.str().empty()) << "a run without probes has no line";
}

}  // namespace
}  // namespace gd
