// ISA reference tables built from compiled code, like the SM100a reference in the seeds: opcodes,
// forms (opcode plus modifiers), encoding variants (a form with one operand-kind signature), the
// bits each variant never varies, the operand fields that do, and control-word statistics.
#pragma once
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "core/json.hpp"

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

// The most frequent addressing form of one load opcode (addressing_form), among its instances.
struct AddressingForm {
  std::string form;  // "LDG.E R, desc[UR][R.64+imm]"
  std::size_t count = 0, total = 0, distinct = 0;  // instances of the form, of the opcode; forms seen
};

class IsaTable {
 public:
  void add(const SassInstruction& inst);
  // add() for each of one kernel's instructions (in address order), and the address steps
  // between them.
  void add_kernel(const std::vector<SassInstruction>& insts);
  // The most frequent address step between consecutive instructions of a kernel, in bits (0: no
  // kernel with two instructions was added).
  int instruction_bits() const;
  // Bits that differ between instances whose disassembly is identical once ".reuse" is dropped:
  // what the text does not show. Instructions with a label, a float or a NaN/INF operand are left
  // out (their text may round or relocate what the bits hold). Per bit, the number of such
  // groups of identical text in which it varies; hidden_bits keeps the bits that vary in at least
  // `min_share` of the groups the most varying bit does (a few odd groups, text that prints an
  // operand in a form that hides some of its bits, do not make an operand field look hidden).
  std::vector<std::size_t> hidden_bit_groups() const;
  Instruction128 hidden_bits(double min_share = 0) const;
  // Forms whose instances carry decoded scheduling control words.
  std::size_t forms_with_control() const;
  AddressingForm addressing(const std::string& base_opcode) const;
  // Base opcodes whose instances set a write barrier at least `share` of the time, sorted.
  std::vector<std::string> write_barrier_opcodes(double share) const;
  // The most frequent addressing form of every opcode with a memory or constant operand.
  nlohmann::json addressing_json() const;
  std::size_t instructions() const { return instructions_; }
  std::size_t opcode_count() const;
  std::size_t variant_count() const;
  const std::map<std::string, InstructionForm>& forms() const { return forms_; }
  nlohmann::json to_json(const std::string& arch) const;
  void write_markdown(std::ostream& os, const std::string& arch, const std::string& corpus_note) const;

 private:
  std::size_t instructions_ = 0;
  std::map<std::string, InstructionForm> forms_;
  std::map<std::uint64_t, std::size_t> steps_;  // address step in bytes -> count
  struct SameText {
    Instruction128 first, differ;
  };
  std::map<std::string, SameText> same_text_;
  std::map<std::string, std::map<std::string, std::size_t>> addressing_;  // base opcode -> form -> count
};

// An instruction with registers, predicates and immediates abstracted: "LDG.E R, desc[UR][R.64+imm]",
// "LDC R, c[imm][imm]". Register modifiers (".64") and keyword operands stay.
std::string addressing_form(const SassInstruction& inst);

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
