// ISA tables: operand kinds, fixed/varying bit analysis, and a table built from real code.
#include <gtest/gtest.h>

#include "sass/isa.hpp"
#include "sass_test_util.hpp"

namespace gd::sass {
namespace {

TEST(OperandKind, ClassifiesDisassemblerOperands) {
  EXPECT_EQ(operand_kind("R12"), "R");
  EXPECT_EQ(operand_kind("-R3.reuse"), "R");
  EXPECT_EQ(operand_kind("RZ"), "R");
  EXPECT_EQ(operand_kind("UR4"), "UR");
  EXPECT_EQ(operand_kind("!P0"), "P");
  EXPECT_EQ(operand_kind("PT"), "P");
  EXPECT_EQ(operand_kind("0x1f"), "imm");
  EXPECT_EQ(operand_kind("1.5"), "imm");
  EXPECT_EQ(operand_kind("c[0x0][0x210]"), "c");
  EXPECT_EQ(operand_kind("desc[UR4][R2.64]"), "desc");
  EXPECT_EQ(operand_kind("[R1+0x8]"), "mem");
  EXPECT_EQ(operand_kind("SR_TID.X"), "SR");
}

TEST(VaryingFields, RunsOutsideTheControlWord) {
  Instruction128 m;
  m.lo = 0xff00;                                       // bits 8..15
  m.hi = (std::uint64_t(1) << 40) | ControlWord::kMask;  // bit 104, and the control bits
  const auto f = varying_fields(m);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].shift, 8);
  EXPECT_EQ(f[0].width, 8);
  EXPECT_EQ(f[1].shift, 104);
  EXPECT_EQ(f[1].width, 1);
}

TEST(IsaTable, FromCompiledCode) {
  GD_REQUIRE_DISASSEMBLER();
  const Cubin c = testing::compile_cubin(testing::kChainSource, "sm_90a");
  IsaTable t;
  for (const auto& [_, insts] : disassemble(c).kernels)
    for (const auto& i : insts) t.add(i);
  ASSERT_TRUE(t.forms().count("FFMA"));
  const InstructionForm& ffma = t.forms().at("FFMA");
  EXPECT_GE(ffma.count, 32u);
  EXPECT_EQ(ffma.control.typical_stall(), 4);
  const auto& v = ffma.variants.at("R, R, R, R");
  EXPECT_EQ(v.fixed_mask.hi & ControlWord::kMask, 0u) << "control bits are never part of the encoding";
  EXPECT_EQ(v.fixed_mask.lo & 0xfff, 0xfffu) << "the opcode field is fixed";
  EXPECT_EQ(v.fixed_value.lo & 0xfff, 0x223u) << "FFMA R, R, R, R";
  EXPECT_GE(t.opcode_count(), 5u);
  EXPECT_GE(t.variant_count(), t.forms().size());
  const auto j = t.to_json("sm_90a");
  EXPECT_EQ(j.at("forms").get<std::size_t>(), t.forms().size());
  std::ostringstream md;
  t.write_markdown(md, "sm_90a", "test");
  EXPECT_NE(md.str().find("| FFMA |"), std::string::npos);
}

}  // namespace
}  // namespace gd::sass
