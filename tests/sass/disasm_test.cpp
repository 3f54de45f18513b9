// Parsing disassembler text, and joining it with the cubin's raw words.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "sass/disasm.hpp"
#include "sass_test_util.hpp"
#include "support/shell.hpp"

namespace gd::sass {
namespace {

TEST(ParseStatement, PredicateOpcodeModifiersOperands) {
  const auto i = parse_statement("@!P0 LDG.E.64.STRONG.GPU R2, desc[UR4][R4.64+0x10] ;");
  ASSERT_TRUE(i);
  EXPECT_EQ(i->predicate, "@!P0");
  EXPECT_EQ(i->opcode, "LDG.E.64.STRONG.GPU");
  EXPECT_EQ(i->base_opcode(), "LDG");
  EXPECT_EQ(i->modifiers(), (std::vector<std::string>{"E", "64", "STRONG", "GPU"}));
  EXPECT_EQ(i->operands, (std::vector<std::string>{"R2", "desc[UR4][R4.64+0x10]"}));
}

TEST(ParseStatement, CommasInsideBracketsStayInOneOperand) {
  const auto i = parse_statement("HMMA.16816.F32 R4, R8, R12, R4, {R1, R2}");
  ASSERT_TRUE(i);
  EXPECT_EQ(i->operands.size(), 5u);
  EXPECT_EQ(i->operands.back(), "{R1, R2}");
}

TEST(ParseStatement, NoOperandsAndNonInstructions) {
  const auto nop = parse_statement("NOP;");
  ASSERT_TRUE(nop);
  EXPECT_EQ(nop->opcode, "NOP");
  EXPECT_TRUE(nop->operands.empty());
  EXPECT_FALSE(parse_statement(""));
  EXPECT_FALSE(parse_statement(".L_x_0:"));
}

TEST(ParseStatement, ClockReads) {
  EXPECT_TRUE(parse_statement("CS2R R4, SR_CLOCKLO")->reads_clock());
  EXPECT_TRUE(parse_statement("CS2UR UR6, SR_CLOCKLO")->reads_clock());
  EXPECT_TRUE(parse_statement("S2R R0, SR_CLOCKLO")->reads_clock());
  EXPECT_FALSE(parse_statement("S2R R0, SR_TID.X")->reads_clock());
  EXPECT_FALSE(parse_statement("CS2R R4, SRZ")->reads_clock());
}

TEST(ParseDisassembly, NvdisasmAndCuobjdumpLayouts) {
  const std::string nvdisasm =
      "\t.section\t.text.kern,\"ax\",@progbits\n"
      ".text.kern:\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
      ".L_x_0:\n"
      "        /*0010*/              @!P0 BRA `(.L_x_0) ;\n"
      "\t.section\t.text.other,\"ax\",@progbits\n"
      "        /*0000*/                   EXIT ;\n";
  auto k = parse_disassembly(nvdisasm);
  ASSERT_EQ(k.size(), 2u);
  ASSERT_EQ(k["kern"].size(), 2u);
  EXPECT_EQ(k["kern"][1].address, 0x10u);
  EXPECT_EQ(k["kern"][1].predicate, "@!P0");
  EXPECT_EQ(k["other"][0].opcode, "EXIT");

  const std::string cuobjdump =
      "\t\tFunction : _Z3fooPf\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */\n"
      "                                                                          /* 0x000fe20000000800 */\n"
      "        /*0010*/                   EXIT ;                                 /* 0x000000000000794d */\n";
  k = parse_disassembly(cuobjdump);
  ASSERT_EQ(k["_Z3fooPf"].size(), 2u);
  EXPECT_EQ(k["_Z3fooPf"][0].operands, (std::vector<std::string>{"R1", "c[0x0][0x28]"}));
}

// The hand-written splitter against the regular expression it replaced, on the shapes nvdisasm
// (-c and -b) and cuobjdump print and on lines that are not instructions.
TEST(SplitInstructionLine, AgreesWithTheRegexItReplaced) {
  static const std::regex re(R"(^\s*/\*([0-9a-fA-F]+)\*/\s*(.*?)\s*;?\s*(/\*.*\*/)?\s*$)");
  const std::vector<std::string> lines = {
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;",
      "        /*0010*/              @!P0 BRA `(.L_x_0) ;",
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */",
      "        /*00a0*/                   EXIT ;                                 /* 0x000000000000794d */  ",
      "/*1f0*/ FFMA R0, R1, R2, R3;",
      "\t/*0Ab0*/\tHMMA.16816.F32 R4, R8, R12, R4 ;\r",
      "        /*0020*/                   NOP",
      "        /*0030*/                   NOP ;;",
      "        /*0040*/                   ;",
      "        /*0050*/                   /* 0x000fe20000000800 */",
      "        /*0060*/  MOV R1, R2 ; /* a */ junk",
      "                                                                          /* 0x000fe20000000800 */",
      "        /**/                       EXIT ;",
      "        /*00zz*/                   EXIT ;",
      ".L_x_0:",
      "",
  };
  for (const std::string& line : lines) {
    std::smatch m;
    const bool want = std::regex_match(line, m, re);
    const auto got = split_instruction_line(line);
    ASSERT_EQ(got.has_value(), want) << line;
    if (!want) continue;
    EXPECT_EQ(got->first, std::stoull(m[1], nullptr, 16)) << line;
    // The statement goes on to parse_statement, which trims blanks and ';': compare what it sees.
    const auto a = parse_statement(got->second), b = parse_statement(m[2]);
    ASSERT_EQ(a.has_value(), b.has_value()) << line;
    if (a) EXPECT_EQ(a->text, b->text) << line;
  }
}

class DisassemblePerArch : public ::testing::TestWithParam<std::string> {};

TEST_P(DisassemblePerArch, TextJoinsTheRawWordsOfTheCubin) {
  GD_REQUIRE_DISASSEMBLER();
  const Cubin c = testing::compile_cubin(testing::kChainSource, GetParam());
  const Disassembly d = disassemble(c);
  ASSERT_TRUE(d.has_text);
  for (const auto& k : c.kernels()) {
    const auto& insts = d.kernels.at(k.name);
    ASSERT_EQ(insts.size(), k.instruction_count()) << k.name;
    for (std::size_t i = 0; i < insts.size(); ++i) {
      EXPECT_EQ(insts[i].address, 16 * i);
      EXPECT_FALSE(insts[i].opcode.empty());
      EXPECT_EQ(insts[i].raw, c.instruction(k, i));
      EXPECT_EQ(insts[i].control, ControlWord::decode(insts[i].raw.hi));
    }
  }
}

TEST_P(DisassemblePerArch, RawInstructionsWorkWithoutADisassembler) {
  const Cubin c = testing::compile_cubin(testing::kChainSource, GetParam());
  const Kernel& k = *c.find_kernel("ffma_chain");
  const auto raw = raw_instructions(c, k);
  ASSERT_EQ(raw.size(), k.instruction_count());
  EXPECT_TRUE(raw.front().opcode.empty());
  EXPECT_EQ(raw.back().control, idle_control_word()) << "last word is padding";
}

// Cubins of one arch go to the disassembler together, concatenated; a branch target must still
// read as an offset in its own kernel, as the listing's addresses do.
TEST_P(DisassemblePerArch, BatchedCubinsReadAsIfAlone) {
  GD_REQUIRE_DISASSEMBLER();
  const Cubin first = testing::compile_cubin(testing::kChainSource, GetParam());
  const Cubin loop = testing::compile_cubin(R"(
extern "C" __global__ void counted_loop(float* io, int n) {
  float x = io[threadIdx.x];
#pragma unroll 1
  for (int i = 0; i < n; ++i) x = x * 1.5f + io[i];
  io[threadIdx.x] = x;
}
)", GetParam());
  const Kernel& k = *loop.find_kernel("counted_loop");
  const auto batch = disassemble_all({&first, &loop});
  const auto alone = disassemble(loop);
  ASSERT_EQ(batch.size(), 2u);
  const auto& together = batch[1].kernels.at(k.name);
  const auto& single = alone.kernels.at(k.name);
  ASSERT_EQ(together.size(), single.size());
  int branches = 0;
  for (std::size_t i = 0; i < single.size(); ++i) {
    EXPECT_EQ(together[i].address, single[i].address);
    EXPECT_EQ(together[i].text, single[i].text) << "at " << single[i].address;
    if (single[i].base_opcode() != "BRA") continue;
    ++branches;
    const std::string target = single[i].operands.back();
    ASSERT_EQ(target.rfind("0x", 0), 0u) << single[i].text;
    EXPECT_LT(std::stoull(target, nullptr, 16), 16 * k.instruction_count()) << single[i].text;
  }
  EXPECT_GT(branches, 0) << "the loop compiled without a branch; the test checks nothing";
  for (const auto& kk : first.kernels())
    EXPECT_EQ(batch[0].kernels.at(kk.name).size(), kk.instruction_count()) << kk.name;
}

// The code is cut into chunks disassembled on all cores; where the cuts fall must not change a
// single instruction's text or address (one kernel per chunk against all in one).
TEST_P(DisassemblePerArch, ChunkedDisassemblyEqualsOneCall) {
  GD_REQUIRE_DISASSEMBLER();
  const Cubin a = testing::compile_cubin(testing::kChainSource, GetParam());
  const Cubin b = testing::compile_cubin(testing::kChainSource, GetParam());
  ASSERT_GT(a.kernels().size(), 1u) << "one kernel cannot be cut apart";
  const auto one = disassemble_all({&a, &b}, {}, std::uint64_t(1) << 40);
  const auto cut = disassemble_all({&a, &b}, {}, 16);  // every kernel its own chunk
  ASSERT_EQ(one.size(), cut.size());
  for (std::size_t c = 0; c < one.size(); ++c)
    for (const auto& [name, insts] : one[c].kernels) {
      const auto& other = cut[c].kernels.at(name);
      ASSERT_EQ(insts.size(), other.size()) << name;
      ASSERT_FALSE(insts.front().opcode.empty()) << name << ": no disassembler text to compare";
      for (std::size_t i = 0; i < insts.size(); ++i) {
        EXPECT_EQ(insts[i].address, other[i].address) << name;
        EXPECT_EQ(insts[i].text, other[i].text) << name << " at " << insts[i].address;
      }
    }
}

// A filter selects what the disassembler reads; the rest keep their raw words (and are marked
// by having no opcode text), so one catalog kernel does not cost the whole cubin.
TEST_P(DisassemblePerArch, OnlyWantedKernelsAreDisassembled) {
  GD_REQUIRE_DISASSEMBLER();
  const Cubin c = testing::compile_cubin(testing::kChainSource, GetParam());
  const auto d = disassemble_all({&c}, [](const Kernel& k) { return k.name == "ffma_chain"; }).front();
  for (const auto& k : c.kernels()) {
    const auto& insts = d.kernels.at(k.name);
    ASSERT_EQ(insts.size(), k.instruction_count()) << k.name;
    EXPECT_EQ(insts.front().opcode.empty(), k.name != "ffma_chain") << k.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, DisassemblePerArch, ::testing::ValuesIn(testing::target_archs()),
                         [](const auto& info) { return info.param; });

TEST(Tools, MissingReasonNamesWhatToInstall) {
  EXPECT_NE(DisassemblerTools{}.missing_reason().find("nvidia-cuda-nvdisasm"), std::string::npos);
}

TEST(Tools, ShellQuoteSurvivesQuotes) {
  const auto r = run_command("printf %s " + shell_quote("it's \"x\" $HOME"));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.output, "it's \"x\" $HOME");
}

}  // namespace
}  // namespace gd::sass
