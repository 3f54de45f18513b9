// ISA reference tables built from compiled code, like the SM100a reference in the seeds: opcodes,
// forms (opcode plus modifiers), encoding variants (a form with one operand-kind signature), the
// bits each variant never varies, the operand fields that do, and control-word statistics.
#pragma once
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sass/disasm.hpp"

namespace gd::sass {

// A run of instruction bits that varies across a variant's instances (an operand field).
struct BitField {
  int shift = 0;
  int width = 0;
};

struct EncodingVariant {
  std::string signature;          // operand kinds: "R, R, imm, R"
  std::size_t count = 0;
  Instruction128 fixed_mask;      // bits equal in every instance (control bits excluded)
  Instruction128 fixed_value;     // their value
  std::vector<BitField> varying;  // maximal runs of varying bits outside the control word
};

struct ControlStats {
  std::size_t count = 0;
  std::map<int, std::size_t> stalls;  // stall -> instances
  std::size_t write_barrier = 0, read_barrier = 0, waits = 0, yields = 0, reuse = 0;
  int typical_stall() const;          // the most frequent
};

struct InstructionForm {
  std::string form;    // "IMAD.WIDE.U32"
  std::string opcode;  // "IMAD"
  std::size_t count = 0;
  std::map<std::string, EncodingVariant> variants;  // by signature
  ControlStats control;
  std::string example;  // one instance's text
};

class IsaTable {
 public:
  void add(const SassInstruction& inst);
  std::size_t instructions() const { return instructions_; }
  std::size_t opcode_count() const;
  std::size_t variant_count() const;
  const std::map<std::string, InstructionForm>& forms() const { return forms_; }
  nlohmann::json to_json(const std::string& arch) const;
  void write_markdown(std::ostream& os, const std::string& arch, const std::string& corpus_note) const;

 private:
  std::size_t instructions_ = 0;
  std::map<std::string, InstructionForm> forms_;
};

// "R", "UR", "P", "imm", "c", "desc", "SR", ... for one operand as the disassembler prints it.
std::string operand_kind(const std::string& operand);
// Maximal runs of set bits in `mask` outside the control word (bits 105..125).
std::vector<BitField> varying_fields(const Instruction128& varying_mask);

struct IsaOptions {
  std::string arch_text;
  std::string out_dir;      // default: isa-<arch>
  std::string executable;   // default: our own
  std::string corpus_dir;   // default: src/sass/corpus next to the build
  bool skip_corpus = false;
};

struct IsaSummary {
  std::string arch;
  std::size_t instructions = 0, opcodes = 0, forms = 0, encoding_variants = 0;
  std::string markdown_path, json_path;
};

// Disassembles the binary's kernels for the arch plus the PTX corpus (compiled with nvcc when
// it is available; progress and notes go to `log`) and writes isa.md and isa.json.
IsaSummary build_isa_tables(const IsaOptions& opts, std::ostream& log);

// For an arch a binary lacks, the one it may have meant among those present: sm_90 -> sm_90a
// (or the reverse); "" when none is that close.
std::string arch_suggestion(const Arch& asked, const std::vector<Arch>& present);
// "<binary> carries no sm_90 code (it has: sm_80, sm_90a); did you mean sm_90a?"
std::string missing_arch_message(const std::string& binary, const Arch& asked, const std::vector<Arch>& present);

}  // namespace gd::sass
