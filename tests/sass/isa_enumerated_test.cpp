// The enumerated ISA tables (issue 29): the reader, word validation and the generation diff on
// synthetic tables whose encoding is known; then the committed tables, whose words are decoded
// again by nvdisasm and must print the form the table files them under.
#include <gtest/gtest.h>

#include <cstdio>
#include <iostream>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/spawn.hpp"
#include "sass/disasm.hpp"
#include "sass/isa_compare.hpp"
#include "sass/isa_enumerated.hpp"
#include "sass/isa_validate.hpp"
#include "sass_test_util.hpp"
#include "support/shell.hpp"

namespace gd::sass {
// Named, not anonymous: the tests build as unity chunks, where helpers of one file meet another's.
namespace enumerated_test {

// A class string: opcode bits 0..11, the given modifier bits, operand fields elsewhere.
std::string class_bits(const std::vector<int>& modifier_bits) {
  std::string bits(128, 'f');
  for (int i = 0; i < 12; ++i) bits[std::size_t(127 - i)] = 'o';
  for (int b : modifier_bits) bits[std::size_t(127 - b)] = 'm';
  for (int i = 105; i <= 125; ++i) bits[std::size_t(127 - i)] = 'c';
  return bits;
}

// ADD (opcode field 0x001, bit 40 = .SAT) and MOV (0x002), or with `next` the generation after:
// MOV gone, SUB new, ADD.SAT taking a uniform-register source.
std::string synthetic_table(bool next = false) {
  nlohmann::json j = {{"arch", next ? "sm_next" : "sm_test"}, {"nvdisasm", "fake"}, {"command", "test"}, {"seconds", 1},
                      {"counts", {{"opcodes", 2}, {"encoding_classes", 2}, {"forms", 3}, {"encoding_variants", 3}}},
                      {"opcodes", next ? nlohmann::json{"ADD", "SUB"} : nlohmann::json{"ADD", "MOV"}},
                      {"signatures", {"R, R", "R, UR"}},
                      {"classes", {{{"opcode", "ADD"}, {"opcode_field", "0x001"}, {"bits", class_bits({40})}, {"forms_exhaustive", true}},
                                   {{"opcode", next ? "SUB" : "MOV"}, {"opcode_field", "0x002"}, {"bits", class_bits({})},
                                    {"forms_exhaustive", true}}}}};
  j["forms"] = {{"ADD", {{0, 0, 1, "1", "0", "1"}}},
                {"ADD.SAT", {{next ? 1 : 0, 0, 1, "10000000001", "0", "10000000001"}}},
                {next ? "SUB" : "MOV", {{0, 1, 1, "2", "0", "2"}}}};
  return j.dump();
}

constexpr Instruction128 kAdd{0x1 | (5u << 16), 0}, kAddSat{0x10000000001ull | (5u << 16), 0};

TEST(EnumeratedIsa, ReadsFormsAndDerivesEachVariantsMaskFromItsClass) {
  const auto isa = EnumeratedIsa::parse(synthetic_table(), "synthetic");
  EXPECT_EQ(isa.arch(), "sm_test");
  ASSERT_EQ(isa.forms().size(), 3u);
  const auto& add = isa.forms().at("ADD").front();
  EXPECT_EQ(add.fixed_mask.lo, 0xfffull | (1ull << 40));  // opcode field and the modifier bit
  EXPECT_EQ(add.fixed_mask.hi, 0u);
  EXPECT_TRUE(add.matches(kAdd));
  EXPECT_FALSE(add.matches(kAddSat));
  EXPECT_TRUE(isa.has_opcode("MOV"));
  EXPECT_FALSE(isa.has_opcode("SUB"));
}

TEST(EnumeratedIsa, RefusesWhatIsNotATable) {
  EXPECT_THROW(EnumeratedIsa::parse("not json", "x"), UserError);
  EXPECT_THROW(EnumeratedIsa::parse(R"({"arch": "sm_test"})", "x"), UserError);
  std::string bad = synthetic_table();
  bad.replace(bad.find("\"10000000001\""), 13, "\"1000000000g\"");
  EXPECT_THROW(EnumeratedIsa::parse(bad, "x"), UserError);
}

TEST(ValidateWord, NamesTheFormAWordDecodesTo) {
  const auto isa = EnumeratedIsa::parse(synthetic_table(), "synthetic");
  EXPECT_EQ(validate_word(isa, kAdd, "ADD").verdict, WordCheck::Verdict::Matches);
  const WordCheck other = validate_word(isa, kAddSat, "ADD");
  EXPECT_EQ(other.verdict, WordCheck::Verdict::OtherForm);
  EXPECT_EQ(other.forms, std::vector<std::string>{"ADD.SAT"});
  EXPECT_NE(other.message.find("not the intended ADD"), std::string::npos) << other.message;
  EXPECT_EQ(validate_word(isa, Instruction128{0x3, 0}, "ADD").verdict, WordCheck::Verdict::Unknown);
  EXPECT_EQ(validate_word(Arch::parse("sm_75"), kAdd, "ADD").verdict, WordCheck::Verdict::NoTable);
}

TEST(ValidateWord, ThePatcherRefusesAWordThatSlipsIntoAnotherForm) {
  const auto isa = EnumeratedIsa::parse(synthetic_table(), "synthetic");
  Instruction128 other_registers = kAdd;
  other_registers.lo |= 0x77ull << 24;
  EXPECT_NO_THROW(check_patched_word(isa, kAdd, other_registers));
  EXPECT_THROW(check_patched_word(isa, kAdd, kAddSat), Error);
  EXPECT_NO_THROW(check_patched_word(isa, kAdd, Instruction128{0x2, 0}));  // another opcode on purpose
}

TEST(GenerationDiff, CountsNewRemovedAndChangedOpcodesAndForms) {
  const auto a = EnumeratedIsa::parse(synthetic_table(), "a");
  const auto b = EnumeratedIsa::parse(synthetic_table(true), "b");
  const GenerationDiff d = diff_generations(a, b);
  EXPECT_EQ(d.opcodes_new, std::vector<std::string>{"SUB"});
  EXPECT_EQ(d.opcodes_removed, std::vector<std::string>{"MOV"});
  EXPECT_EQ(d.forms_new, 1u);
  EXPECT_EQ(d.forms_removed, 1u);
  EXPECT_EQ(d.forms_kept, 2u);
  EXPECT_EQ(d.forms_resigned, 1u);  // ADD.SAT: "R, R" became "R, UR"
  // A form one table lacks where the other sampled its opcode's modifiers is neither new nor removed.
  auto sampled = nlohmann::json::parse(synthetic_table(true));
  sampled["classes"][0]["forms_exhaustive"] = false;  // ADD's class
  auto with_rm = nlohmann::json::parse(synthetic_table());
  with_rm["forms"]["ADD.RM"] = {{0, 0, 1, "20000000001", "0", "20000000001"}};
  const GenerationDiff s = diff_generations(EnumeratedIsa::parse(with_rm.dump(), "a"), EnumeratedIsa::parse(sampled.dump(), "b"));
  EXPECT_EQ(s.forms_removed, 1u);  // MOV only
  EXPECT_EQ(s.forms_unsampled, 1u);
  std::ostringstream md;
  write_generations_markdown(md, {&a, &b});
  EXPECT_NE(md.str().find("## sm_test → sm_next"), std::string::npos) << md.str();
}

// ------------------------------------------------------------------- the committed tables

EnumeratedIsa committed(const std::string& arch) {
  return EnumeratedIsa::load(std::string(GPUDISSECT_SOURCE_DIR) + "/data/isa/" + arch + ".json.gz");
}

class CommittedIsa : public ::testing::TestWithParam<std::string> {};

TEST_P(CommittedIsa, EveryExampleWordMatchesItsOwnVariant) {
  const auto isa = committed(GetParam());
  EXPECT_EQ(isa.arch(), GetParam());
  EXPECT_EQ(isa.counts().opcodes, isa.opcodes().size());
  EXPECT_EQ(isa.counts().forms, isa.forms().size());
  std::size_t n = 0;
  for (const auto& [form, variants] : isa.forms())
    for (const auto& v : variants) {
      ++n;
      ASSERT_TRUE(v.matches(v.example)) << form << " " << v.signature;
      ASSERT_TRUE(validate_word(isa, v.example, form).ok()) << form;
    }
  EXPECT_EQ(n, isa.counts().encoding_variants);
}

Captured run_nvdisasm(const std::string& arch, const std::vector<Instruction128>& words) {
  std::string blob;
  for (const auto& w : words) blob.append(reinterpret_cast<const char*>(&w.lo), 8).append(reinterpret_cast<const char*>(&w.hi), 8);
  TempFile file(".bin");
  file.write(blob.data(), blob.size());
  const Arch a = Arch::parse(arch);
  const std::string flag = "SM" + std::to_string(a.sm) + (a.specific ? "a" : "");
  return run_capture({*disassembler_tools().nvdisasm, "-b", flag, "-ndf", file.path()});
}

// Each word's form as nvdisasm's raw mode prints it, "" for a word it refuses. It refuses a whole
// input for one illegal word, naming most by address: those become NOPs and the rest is decoded
// again; an input refused without a name is halved (scripts/isa_nvdisasm.py does the same).
std::vector<std::string> decode_forms(const std::string& arch, std::vector<Instruction128> words) {
  const Instruction128 nop{0x7918, 0x000fc00000000000ull};
  std::vector<bool> refused(words.size(), false);
  for (;;) {
    const Captured r = run_nvdisasm(arch, words);
    std::vector<std::string> forms(words.size());
    std::set<std::size_t> named;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);) {
      if (const auto at = line.find("at address 0x"); at != std::string::npos)
        named.insert(std::stoull(line.substr(at + 13), nullptr, 16) / 16);
      else if (const auto split = split_instruction_line(line))
        if (const auto inst = parse_statement(split->second); inst && split->first / 16 < words.size())
          forms[split->first / 16] = inst->opcode;
    }
    if (r.status == 0) {
      for (std::size_t i = 0; i < words.size(); ++i)
        if (refused[i]) forms[i].clear();
      return forms;
    }
    if (named.empty()) {
      if (words.size() == 1) return {""};
      const auto mid = words.begin() + std::ptrdiff_t(words.size() / 2);
      auto out = decode_forms(arch, {words.begin(), mid});
      const auto rest = decode_forms(arch, {mid, words.end()});
      out.insert(out.end(), rest.begin(), rest.end());
      for (std::size_t i = 0; i < words.size(); ++i)
        if (refused[i]) out[i].clear();
      return out;
    }
    for (const std::size_t i : named)
      if (i < words.size()) words[i] = nop, refused[i] = true;
  }
}

// Every 40th variant's example word, decoded again: it must print its form. (All of them would
// take a minute per arch; the sample covers every opcode's neighbourhood.)
TEST_P(CommittedIsa, ASampleOfWordsDecodesAgainToTheirForms) {
  if (!disassembler_tools().nvdisasm) GTEST_SKIP() << "needs nvdisasm: " << disassembler_tools().missing_reason();
  const auto isa = committed(GetParam());
  std::vector<Instruction128> words;
  std::vector<std::string> expected;
  std::size_t i = 0;
  for (const auto& [form, variants] : isa.forms())
    for (const auto& v : variants)
      if (i++ % 40 == 0) words.push_back(v.example), expected.push_back(form);
  const auto got = decode_forms(GetParam(), words);
  std::size_t agree = 0;
  for (std::size_t k = 0; k < words.size(); ++k) {
    agree += got[k] == expected[k];
    EXPECT_EQ(got[k], expected[k]) << "word " << k;
    if (k > 0 && agree + 5 < k) break;  // a broken table: a few lines say enough
  }
  EXPECT_GT(words.size(), 200u);
}

// The disassembler prints some forms by an operand's value, not by the encoding: IMAD with a
// power-of-two immediate is IMAD.SHL, with a zero multiplicand IMAD.MOV. No fixed bits can hold
// those; a change between such a form and its plain one keeps the opcode.
bool operand_value_alias(const std::string& a, const std::string& b) {
  const auto base = [](const std::string& f) { return f.substr(0, f.find('.')); };
  if (base(a) != base(b)) return false;
  for (const std::string alias : {".SHL", ".MOV", ".IADD"})
    for (const auto& [with, without] : {std::pair{a, b}, std::pair{b, a}})
      if (const auto at = with.find(alias); at != std::string::npos && with.substr(0, at) + with.substr(at + alias.size()) == without)
        return true;
  return false;
}

// The table's claim about each variant: its fixed bits decide the form, the rest are operands or
// ignored. Random values in every free bit (outside the control word) of a sample of example
// words must leave the form as it is, or make a word nvdisasm refuses (an operand value that is
// reserved); another form only for the operand-value aliases above (under 1 %) and, rarely, for
// a bit that matters only together with another one the single-bit flips did not pair it with
// (under 1 in 500: sm_90a's BRA.INC.U once printed .ANY; each such word is named).
TEST_P(CommittedIsa, RandomFreeBitsNeverChangeTheForm) {
  if (!disassembler_tools().nvdisasm) GTEST_SKIP() << "needs nvdisasm: " << disassembler_tools().missing_reason();
  const auto isa = committed(GetParam());
  std::mt19937_64 rng(29);
  std::vector<Instruction128> words;
  std::vector<std::string> expected;
  std::size_t i = 0;
  for (const auto& [form, variants] : isa.forms())
    for (const auto& v : variants) {
      if (i++ % 40 != 7) continue;
      const std::uint64_t control = ControlWord::kMask;
      const Instruction128 free{~v.fixed_mask.lo, ~v.fixed_mask.hi & ~control};
      words.push_back({(v.example.lo & ~free.lo) | (rng() & free.lo), (v.example.hi & ~free.hi) | (rng() & free.hi)});
      expected.push_back(form);
    }
  const auto got = decode_forms(GetParam(), words);
  std::size_t decoded = 0, other = 0, aliases = 0;
  for (std::size_t k = 0; k < words.size(); ++k) {
    if (got[k].empty() || got[k] == expected[k]) {
      decoded += !got[k].empty();
      continue;
    }
    ++decoded;
    if (operand_value_alias(got[k], expected[k])) ++aliases;
    else if (++other <= 5) std::cerr << "  " << expected[k] << " became " << got[k] << "\n";
  }
  EXPECT_LT(other * 500, decoded) << other << " words of " << decoded << " changed form";
  EXPECT_LT(aliases * 100, decoded) << aliases << " operand-value aliases";
  EXPECT_GT(decoded, words.size() * 8 / 10);
}

TEST(OperandValueAlias, IsTheSameOpcodeWithOrWithoutAnAliasToken) {
  EXPECT_TRUE(operand_value_alias("IMAD.SHL.U32", "IMAD.U32"));
  EXPECT_TRUE(operand_value_alias("IMAD.U32", "IMAD.MOV.U32"));
  EXPECT_FALSE(operand_value_alias("IMAD.WIDE.U32", "IMAD.U32"));
  EXPECT_FALSE(operand_value_alias("BAR.RED.OR", "BAR.RED.AND"));
}

INSTANTIATE_TEST_SUITE_P(Arches, CommittedIsa, ::testing::Values("sm_90a", "sm_100a", "sm_120a"));

TEST(ReferenceComparison, Sm100aHasAtLeastTheReferencesOpcodeCount) {
  const auto isa = committed("sm_100a");
  const IsaReference& ref = sm100a_reference();
  EXPECT_GE(isa.counts().opcodes, ref.opcodes);
  // The reference's table is not in the seed: the mnemonics its text names stand for it, and the
  // enumeration finds them all (TEX only since compiled words seed the search).
  for (const auto& n : ref.named)
    EXPECT_TRUE(n.find('.') == std::string::npos ? isa.has_opcode(n) : isa.forms().count(n) > 0) << n;
}

// End to end: the command prints the generation diff from the committed tables (found beside the
// binary's folder), and refuses to run without saying what to do.
TEST(IsaEnumeratedCommand, GenerationsComparesTheCommittedTables) {
  const auto r = run_command(std::string(GPUDISSECT_BINARY) + " isa --generations 2>&1");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* line : {"## sm_90a → sm_100a", "## sm_100a → sm_120a", "## sm_100a against the SM100a ISA reference"})
    EXPECT_NE(r.output.find(line), std::string::npos) << line;
  const auto bare = run_command(std::string(GPUDISSECT_BINARY) + " isa 2>&1");
  EXPECT_EQ(bare.status, 2) << bare.output;
  EXPECT_NE(bare.output.find("--arch"), std::string::npos) << bare.output;
}

TEST(IsaEnumeratedCommand, WritesTheEnumeratedTableBesideTheCorpusTables) {
  GD_REQUIRE_DISASSEMBLER();
  const std::string out = testing::scratch_dir() + "/isa-enumerated";
  const auto r = run_command(std::string(GPUDISSECT_BINARY) + " isa --arch sm_100a --no-corpus --out " + out + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("sm_100a enumerated: "), std::string::npos) << r.output;
  std::ifstream md(out + "/isa-sm_100a-enumerated.md");
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("Seen in compiled code"), std::string::npos) << text.substr(0, 400);
  EXPECT_NE(text.find("| IMAD |"), std::string::npos);
}

}  // namespace enumerated_test
}  // namespace gd::sass
