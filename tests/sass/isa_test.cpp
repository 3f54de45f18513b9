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

SassInstruction parsed(const std::string& text, std::uint64_t address = 0) {
  auto i = parse_statement(text);
  EXPECT_TRUE(i.has_value()) << text;
  i->address = address;
  return *i;
}

TEST(AddressingForm, AbstractsRegistersAndImmediates) {
  EXPECT_EQ(addressing_form(parsed("LDG.E.64 R4, desc[UR4][R2.64+0x10]")), "LDG.E.64 R, desc[UR][R.64+imm]");
  EXPECT_EQ(addressing_form(parsed("LDS R9, [R8.X4+-0x4]")), "LDS R, [R.X4+-imm]");
  EXPECT_EQ(addressing_form(parsed("LDC R1, c[0x0][0x28]")), "LDC R, c[imm][imm]");
  EXPECT_EQ(addressing_form(parsed("@P0 LDG.E R5, desc[UR6][R12.64].reuse")), "LDG.E R, desc[UR][R.64]");
  EXPECT_EQ(addressing_form(parsed("S2R R0, SR_TID.X")), "S2R R, SR_TID.X");
  EXPECT_EQ(addressing_form(parsed("ISETP.GE.AND P0, PT, R3, URZ, PT")), "ISETP.GE.AND P, PT, R, URZ, PT");
}

TEST(IsaTable, ReadsWhatTheTextHides) {
  IsaTable t;
  std::vector<SassInstruction> k;
  for (int i = 0; i < 4; ++i) {
    SassInstruction a = parsed("FFMA R1, R2, R3, R4", 16 * (2 * i));
    a.raw = {0x0000000302017223ull, 0x000fc80000000004ull | std::uint64_t(i) << 41};  // stall differs
    a.control = ControlWord::decode(a.raw.hi);
    SassInstruction b = parsed("LDG.E R5, desc[UR4][R2.64]", 16 * (2 * i + 1));
    b.raw = {0x0000000402057981ull, 0x000ea8000c1e1900ull};
    b.control = ControlWord::decode(b.raw.hi);
    k.push_back(a);
    k.push_back(b);
  }
  // A branch: identical text, different offsets: left out of the hidden bits.
  SassInstruction br = parsed("BRA `(.L_x_0)", 16 * 8);
  br.raw = {0x0000000000007947ull, 0x000fc0000383ffffull};
  k.push_back(br);
  br.raw.lo ^= 0xff0000;
  br.address += 16;
  k.push_back(br);
  // The same in raw mode, where nvdisasm prints the kernel-relative target.
  SassInstruction abs = parsed("@P0 BRA 0x190", 16 * 10);
  abs.raw = {0x0000000400000947ull, 0x000fea0003800000ull};
  k.push_back(abs);
  abs.raw.lo ^= 0xff00000000ull;
  abs.address += 16;
  k.push_back(abs);
  t.add_kernel(k);
  EXPECT_EQ(t.instruction_bits(), 128);
  EXPECT_EQ(t.hidden_bits().lo, 0u);
  EXPECT_EQ(t.hidden_bits().hi, 0x3ull << 41) << "the stall bits that differ, nothing else";
  const AddressingForm a = t.addressing("LDG");
  EXPECT_EQ(a.form, "LDG.E R, desc[UR][R.64]");
  EXPECT_EQ(a.count, 4u);
  EXPECT_EQ(a.distinct, 1u);
  EXPECT_EQ(t.addressing("LDS").total, 0u);
  EXPECT_EQ(t.write_barrier_opcodes(0.95), std::vector<std::string>{"LDG"});
  EXPECT_EQ(t.forms_with_control(), t.forms().size());
}

}  // namespace
}  // namespace gd::sass
