// The control-word codec: round trips, the text form, and the bit layout pinned on what ptxas
// emits for each target (scoreboards between a load and its consumer, FFMA stalls, idle NOPs).
#include <gtest/gtest.h>

#include "sass/control.hpp"
#include "sass_test_util.hpp"

namespace gd::sass {
namespace {

using testing::compile_cubin;
using testing::target_archs;

TEST(ControlWord, EncodeDecodeRoundTripsEveryFieldValue) {
  const std::uint64_t other_bits = 0x0000'01ff'ffff'ffffULL | (std::uint64_t(0x3) << 62);  // outside 41..61
  for (int stall = 0; stall < 16; ++stall)
    for (int wb : {0, 3, 5, 7})
      for (int rb : {0, 2, 7})
        for (int wait : {0, 1, 0x15, 0x3f})
          for (int reuse : {0, 1, 0xf})
            for (bool yield : {false, true}) {
              ControlWord w;
              w.stall = stall;
              w.write_barrier = wb;
              w.read_barrier = rb;
              w.wait_mask = std::uint8_t(wait);
              w.reuse = std::uint8_t(reuse);
              w.yield = yield;
              const std::uint64_t hi = w.encode(other_bits);
              ASSERT_EQ(ControlWord::decode(hi), w);
              ASSERT_EQ(hi & ~ControlWord::kMask, other_bits) << "bits outside the control word changed";
            }
}

TEST(ControlWord, YieldIsStoredInverted) {
  ControlWord w;
  w.yield = true;
  EXPECT_EQ((w.encode(0) >> (ControlWord::kShift + 4)) & 1, 0u);
  w.yield = false;
  EXPECT_EQ((w.encode(0) >> (ControlWord::kShift + 4)) & 1, 1u);
}

TEST(ControlWord, OutOfRangeFieldsThrow) {
  ControlWord w;
  w.stall = 16;
  EXPECT_THROW(w.encode(0), Error);
  w.stall = 0;
  w.write_barrier = 8;
  EXPECT_THROW(w.encode(0), Error);
  w.write_barrier = 7;
  w.wait_mask = 64;
  EXPECT_THROW(w.encode(0), Error);
}

TEST(ControlWord, ConventionalText) {
  EXPECT_EQ(idle_control_word().to_string(), "B------:R-:W-:Y:S00");
  ControlWord w;
  w.wait_mask = 0b000101;
  w.read_barrier = 1;
  w.write_barrier = 2;
  w.stall = 4;
  EXPECT_EQ(w.to_string(), "B0-2---:R1:W2:-:S04");
  w.reuse = 0b0101;
  EXPECT_EQ(w.to_string(), "B0-2---:R1:W2:-:S04:Uac");
  EXPECT_EQ(ControlWord::parse(w.to_string()), w);
  EXPECT_EQ(ControlWord::parse("B------:R-:W-:Y:S00"), idle_control_word());
  EXPECT_FALSE(ControlWord::parse("B1-----:R-:W-:Y:S00"));  // barrier 1 in column 0
  EXPECT_FALSE(ControlWord::parse("B------:R-:W-:Y:S16"));
  EXPECT_FALSE(ControlWord::parse("nonsense"));
}

// ------------------------------------------------------------------------ real compiler output

class ControlOnRealCode : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { GD_REQUIRE_DISASSEMBLER(); }
  std::vector<SassInstruction> kernel(const char* name) {
    cubin_ = std::make_unique<Cubin>(compile_cubin(testing::kChainSource, GetParam()));
    return disassemble(*cubin_).kernels.at(name);
  }
  std::unique_ptr<Cubin> cubin_;
};

// The register a load writes ("R0" in "LDG.E R0, desc[UR4][R2.64]").
std::string destination(const SassInstruction& i) { return i.operands.empty() ? "" : i.operands.front(); }

bool reads(const SassInstruction& i, const std::string& reg) {
  for (std::size_t k = 1; k < i.operands.size(); ++k) {
    const std::string& o = i.operands[k];
    if (o == reg || o.rfind(reg + ".", 0) == 0) return true;
  }
  return false;
}

TEST_P(ControlOnRealCode, ConsumerOfAGlobalLoadWaitsOnItsWriteBarrier) {
  const auto insts = kernel("ffma_chain");
  const auto load = std::find_if(insts.begin(), insts.end(), [](const auto& i) { return i.base_opcode() == "LDG"; });
  ASSERT_NE(load, insts.end());
  const int barrier = load->control.write_barrier;
  ASSERT_NE(barrier, ControlWord::kNoBarrier) << "a variable-latency load must set a scoreboard";
  const std::string reg = destination(*load);
  const auto consumer = std::find_if(load + 1, insts.end(), [&](const auto& i) { return reads(i, reg); });
  ASSERT_NE(consumer, insts.end()) << "no reader of " << reg;
  EXPECT_TRUE(consumer->control.wait_mask >> barrier & 1)
      << consumer->text << " " << consumer->control.to_string() << " does not wait on W" << barrier;
}

TEST_P(ControlOnRealCode, DependentFfmaChainCarriesTheLatencyAsStall) {
  const auto insts = kernel("ffma_chain");
  std::vector<const SassInstruction*> ffma;
  for (const auto& i : insts)
    if (i.opcode == "FFMA") ffma.push_back(&i);
  ASSERT_EQ(ffma.size(), 32u);
  // Back to back and dependent: nothing hides the 4-cycle FMA latency but the stall itself.
  for (std::size_t k = 1; k + 1 < ffma.size(); ++k) {
    EXPECT_EQ(ffma[k]->address, ffma[k - 1]->address + 16);
    EXPECT_GE(ffma[k]->control.stall, 4) << ffma[k]->control.to_string();
    EXPECT_EQ(ffma[k]->control.write_barrier, ControlWord::kNoBarrier) << "fixed latency: no scoreboard";
  }
}

TEST_P(ControlOnRealCode, PaddingNopsDecodeToTheIdleWord) {
  const auto insts = kernel("ffma_chain");
  ASSERT_EQ(insts.back().base_opcode(), "NOP") << "ptxas pads kernels to 128 bytes with NOPs";
  std::size_t nops = 0;
  for (auto it = insts.rbegin(); it != insts.rend() && it->base_opcode() == "NOP"; ++it, ++nops)
    EXPECT_EQ(it->control, idle_control_word()) << it->control.to_string();
  EXPECT_GT(nops, 0u);
}

TEST_P(ControlOnRealCode, DecodingTheRawWordsAgreesWithTheReuseMarks) {
  // nvdisasm prints ".reuse" on an operand exactly when its reuse flag is set.
  const auto insts = kernel("ffma_chain");
  for (const auto& i : insts) {
    bool marked = false;
    for (const auto& o : i.operands) marked |= o.find(".reuse") != std::string::npos;
    EXPECT_EQ(marked, i.control.reuse != 0) << i.text << " " << i.control.to_string();
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, ControlOnRealCode, ::testing::ValuesIn(target_archs()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gd::sass
