#include "analysis/control_fields.hpp"

#include <gtest/gtest.h>

namespace gd {
namespace {

// The H200's FFMA sweep as recorded: stall 0 is slow and right, 1-3 wrong, 4-15 one cycle each.
std::vector<StallTrial> ffma_sweep(double cycles_per_count = 1.0) {
  std::vector<StallTrial> t;
  for (int s = 0; s <= 15; ++s)
    t.push_back({s, true, s >= 1 && s < 4 ? 32 : 0, s == 0 ? 33.0 : s < 4 ? 2.0 : 4.0 + cycles_per_count * (s - 4)});
  return t;
}

TEST(ControlFields, ChangedBitsNameTheField) {
  // Stall 4 -> 0 .. 15 on the FFMA chain's upper word: bits 41..44.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> w;
  for (std::uint64_t s = 0; s <= 15; ++s) w.emplace_back(0x000fc80000000011ull, (0x000fc80000000011ull & ~(0xfull << 41)) | s << 41);
  const std::uint64_t m = changed_upper_bits(w);
  EXPECT_EQ(m, 0xfull << 41);
  EXPECT_EQ(upper_bits_text(m), "instruction bits 105-108 (upper word [44:41]), 4 bits");
  EXPECT_EQ(upper_bits_text(1ull << 45), "instruction bit 109 (upper word [45]), 1 bit");
  EXPECT_EQ(instruction_bits_text(0x3, 1ull << 45),
            "instruction bits 0-1 (lower word [1:0]) and instruction bit 109 (upper word [45]), 3 bits");
  EXPECT_EQ(upper_bits_text(0), "");
  EXPECT_EQ(parse_word("0x000fc80000000011"), 0x000fc80000000011ull);
  EXPECT_THROW(parse_word("0x12zz"), std::invalid_argument);
}

TEST(ControlFields, StallLinearityFitsFromTheThreshold) {
  const StallLinearity one = stall_linearity(ffma_sweep(), 4, 1);
  EXPECT_TRUE(one.one_to_one) << one.text;
  EXPECT_NEAR(one.fit.slope, 1.0, 1e-9);
  EXPECT_EQ(one.first, 4);
  EXPECT_EQ(one.last, 15);
  EXPECT_EQ(one.text.rfind("1:1 linear: 1.000 cycles per stall count over stalls 4-15", 0), 0u) << one.text;
  const StallLinearity two = stall_linearity(ffma_sweep(2.0), 4, 1);
  EXPECT_FALSE(two.one_to_one);
  EXPECT_EQ(two.text.rfind("not 1:1", 0), 0u) << two.text;
  // Per instruction: a step of two instructions that each carry the stall costs two per count.
  EXPECT_TRUE(stall_linearity(ffma_sweep(2.0), 4, 2).one_to_one);
  EXPECT_EQ(stall_linearity(ffma_sweep(), 14, 1).text.rfind("undetermined", 0), 0u);
}

TEST(ControlFields, BelowThresholdSaysWhatHappened) {
  const std::string s = below_threshold_effect(ffma_sweep(), 4, 32);
  EXPECT_EQ(s.rfind("silent corruption: stall 1, 2, 3 (below the threshold 4)", 0), 0u) << s;
  EXPECT_NE(s.find("32 of 32 lanes"), std::string::npos) << s;
  EXPECT_NE(s.find("stall 0 was still right"), std::string::npos) << s;
  auto failing = ffma_sweep();
  for (auto& t : failing)
    if (t.stall == 2) t.completed = false;
  EXPECT_NE(below_threshold_effect(failing, 4, 32).find("stall 2 made the launch fail"), std::string::npos);
  std::vector<StallTrial> right;
  for (int st = 0; st < 4; ++st) right.push_back({st, true, 0, 4.0});
  EXPECT_EQ(below_threshold_effect(right, 4, 32).rfind("interlocked", 0), 0u);
  EXPECT_EQ(below_threshold_effect(ffma_sweep(), 0, 32).rfind("undetermined", 0), 0u);
}

TEST(ControlFields, YieldFieldNeedsOneBitAndATimingChange) {
  const std::uint64_t set = 0x000fc80000000011ull, cleared = 0x000fe80000000011ull;
  const std::vector<YieldTrial> moved = {{1, true, 4.0}, {1, false, 4.0}, {8, true, 5.0}, {8, false, 3.91}};
  const std::string s = yield_field_effect(set, cleared, moved);
  EXPECT_EQ(s.rfind("instruction bit 109 (upper word [45]), 1 bit, stored inverted (0 = yield)", 0), 0u) << s;
  EXPECT_NE(s.find("at 8 warps from 3.91 (cleared) to 5.00 (set)"), std::string::npos) << s;
  const std::vector<YieldTrial> still = {{1, true, 4.0}, {1, false, 4.0}, {8, true, 4.1}, {8, false, 4.0}};
  EXPECT_EQ(yield_field_effect(set, cleared, still).rfind("undetermined", 0), 0u);
  EXPECT_EQ(yield_field_effect(set, cleared ^ 1, moved).rfind("undetermined", 0), 0u);
  EXPECT_EQ(yield_field_effect(set, set, moved).rfind("undetermined", 0), 0u);
  EXPECT_NE(yield_field_effect(cleared, set, moved).find("(1 = yield)"), std::string::npos);
}

TEST(ControlFields, AFieldShowsOnlyWhenOneSettingKeepsAndAnotherBreaks) {
  const std::vector<FieldTrial> barriers = {{"write barrier 0", true, "completed"},
                                            {"write barrier 5", true, "completed"},
                                            {"write barrier 7", false, "cuda-error: misaligned address"}};
  const std::string s = field_effect(0x7ull << 46, barriers);
  EXPECT_EQ(s, "instruction bits 110-112 (upper word [48:46]), 3 bits changed by the patches: the chain stayed right "
               "with write barrier 0, write barrier 5; it broke with write barrier 7 (cuda-error: misaligned address)");
  EXPECT_EQ(field_effect(0, barriers).rfind("undetermined", 0), 0u);
  EXPECT_EQ(field_effect(0x7ull << 46, {barriers[0], barriers[1]}).rfind("undetermined", 0), 0u);
  EXPECT_EQ(field_effect(0x7ull << 46, {barriers[2]}).rfind("undetermined", 0), 0u);
}

}  // namespace
}  // namespace gd
