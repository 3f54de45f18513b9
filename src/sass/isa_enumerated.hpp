// The instruction set as the disassembler accepts it, enumerated offline by scripts/isa_enumerate.py
// into data/isa/<arch>.json.gz (issue 29): opcodes, encoding classes (an opcode with one value of
// the opcode field, bits 0..11), forms (opcode plus modifiers) and their encoding variants (a form
// with one operand-kind signature: the bits all its words share, and the fields that vary).
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "sass/elf.hpp"

namespace gd::sass {

struct EnumeratedVariant {
  std::string form;       // "IMAD.WIDE.U32"
  std::string signature;  // "R, R, R, R"
  int class_index = -1;   // into EnumeratedIsa::classes(); -1 when the class was not classified
  std::size_t count = 0;  // accepted words seen
  Instruction128 fixed_mask, fixed_value, example;
  // True when `w` has this variant's fixed bits (its operand fields and the control word are free).
  bool matches(const Instruction128& w) const;
};

struct EnumeratedClass {
  std::string opcode;
  unsigned opcode_field = 0;  // bits 0..11
  std::string bits;           // one class letter per bit, bit 127 first (scripts/isa_classify.py)
  bool exhaustive = false;    // every modifier combination was decoded, not a sample
  std::string example;
};

struct EnumeratedCounts {
  std::size_t opcodes = 0, encoding_classes = 0, forms = 0, encoding_variants = 0, class_signatures = 0,
              valid_words = 0;
};

class EnumeratedIsa {
 public:
  EnumeratedIsa() = default;
  // Move only: the opcode-field index points into the forms, which a move keeps and a copy would not.
  EnumeratedIsa(EnumeratedIsa&&) = default;
  EnumeratedIsa& operator=(EnumeratedIsa&&) = default;
  EnumeratedIsa(const EnumeratedIsa&) = delete;
  EnumeratedIsa& operator=(const EnumeratedIsa&) = delete;

  // Parses a table's text (JSON); UserError naming `source` when it is not one.
  static EnumeratedIsa parse(const std::string& text, const std::string& source);
  // Reads data/isa/<arch>.json[.gz]; UserError when missing or damaged.
  static EnumeratedIsa load(const std::string& path);

  const std::string& arch() const { return arch_; }
  const std::string& nvdisasm() const { return nvdisasm_; }
  const std::string& command() const { return command_; }
  double seconds() const { return seconds_; }
  const EnumeratedCounts& counts() const { return counts_; }
  const std::vector<std::string>& opcodes() const { return opcodes_; }
  // The opcodes of our corpus compiled for the arch: what a survey of compiled code sees.
  const std::vector<std::string>& compiled_opcodes() const { return compiled_opcodes_; }
  const std::vector<EnumeratedClass>& classes() const { return classes_; }
  const std::map<std::string, std::vector<EnumeratedVariant>>& forms() const { return forms_; }
  bool has_opcode(const std::string& opcode) const;
  // The variants whose fixed bits `w` has, over all forms.
  std::vector<const EnumeratedVariant*> matching(const Instruction128& w) const;

 private:
  std::string arch_, nvdisasm_, command_;
  double seconds_ = 0;
  EnumeratedCounts counts_;
  std::vector<std::string> opcodes_, compiled_opcodes_;
  std::vector<EnumeratedClass> classes_;
  std::map<std::string, std::vector<EnumeratedVariant>> forms_;
  std::multimap<unsigned, const EnumeratedVariant*> by_opcode_field_;  // bits 0..11 -> variant
  // Variants whose words differ in the opcode field (one text from two encoding classes).
  std::vector<const EnumeratedVariant*> loose_;
  void index();
};

// data/isa/<arch>.json.gz (or .json) beside the running binary or one folder up (the checkout
// for a binary in build/); "" when there is none.
std::string enumerated_isa_path(const Arch& arch);
// The table for `arch`, read once per process; nullptr when there is none.
const EnumeratedIsa* enumerated_isa(const Arch& arch);

}  // namespace gd::sass
