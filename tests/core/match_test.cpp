#include "core/match.hpp"

#include <gtest/gtest.h>

namespace gd {
namespace {

TEST(Glob, StarCrossesDots) {
  EXPECT_TRUE(glob_match("latency.*", "latency.alu.ffma"));
  EXPECT_TRUE(glob_match("*.ffma", "latency.alu.ffma"));
  EXPECT_TRUE(glob_match("*alu*", "latency.alu.iadd3"));
  EXPECT_FALSE(glob_match("latency.*", "memory.latency.chase"));
}

TEST(Glob, QuestionMarkIsOneCharacter) {
  EXPECT_TRUE(glob_match("latency.alu.?mad", "latency.alu.imad"));
  EXPECT_FALSE(glob_match("latency.alu.?mad", "latency.alu.mad"));
}

TEST(Glob, LiteralMustMatchWhole) {
  EXPECT_TRUE(glob_match("a.b", "a.b"));
  EXPECT_FALSE(glob_match("a.b", "a.bc"));
  EXPECT_TRUE(glob_match("", ""));
  EXPECT_FALSE(glob_match("", "x"));
  EXPECT_TRUE(glob_match("**", ""));
}

TEST(EditDistance, Basics) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("same", "same"), 0u);
}

TEST(Closest, TypoFindsTheIntendedId) {
  const std::vector<std::string> ids{"latency.alu.ffma", "latency.alu.iadd3", "memory.latency.chase"};
  EXPECT_EQ(closest("latency.alu.fma", ids).front(), "latency.alu.ffma");
  EXPECT_EQ(closest("chase*", ids).front(), "memory.latency.chase");
  EXPECT_EQ(closest("x", ids, 2).size(), 2u);
}

}  // namespace
}  // namespace gd
